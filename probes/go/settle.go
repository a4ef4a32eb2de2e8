package main

// settle: a young Go process is slower than an old one. The runtime's monitor thread (sysmon) starts by
// waking every 20 µs, and only after 50 quiet rounds doubles its sleep, round by round, up to 10 ms: for
// its first ~12 ms (more where a wake-up is slow, as on a VM) a process is interrupted tens of thousands
// of times a second. Pinned to the point's CPUs, those wake-ups land on the CPU being measured. A probe
// process lives for a few batches of ~0.5 ms, so without settling every batch fell inside that window:
// the unbuffered-channel round trip measured 134 ns (median of 120 batches in 40 processes) against 117 ns
// after settling and 117 ns from `go test -bench` (probes/crosscheck.sh), which runs for 200 ms.
// testing.B hides the same window in its first, discarded b.N = 1 run and its long runs; JMH's answer
// to a young JVM is the same: run before you time.

import "time"

// settleTime is how long a probe process runs busy before its first batch: past the end of sysmon's
// back-off (50 rounds of 20 µs plus the doublings to 10 ms, ~12 ms where a wake-up is quick), with room
// for slow wake-ups.
const settleTime = 25 * time.Millisecond

// settle keeps the calling goroutine running (not sleeping: when every P is idle sysmon parks, and on
// waking it starts again at 20 µs) for d, so the runtime's monitor has backed off before measuring.
func settle(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}
