package main

import (
	"os"
	"sort"
	"syscall"
)

// The process's context switches around untimed counted batches, as crates/harness counts them
// (docs/METHOD.md §18): every thread of the probe process, the Go runtime's Ms included, voluntary (a thread
// blocked: a futex sleep) and involuntary (preempted, or yielding), from getrusage(RUSAGE_SELF). Goroutine
// switches happen in user space and count nothing here: a rendezvous between goroutines reads 0 where one
// between kernel threads reads several.

// processSwitchesKeys are the record's keys of the counts, per operation (crates/machine CounterKind names +
// "_per_op").
const (
	voluntaryKey   = "process_voluntary_cs_per_op"
	involuntaryKey = "process_involuntary_cs_per_op"
)

// switches reads the process's voluntary and involuntary context switches so far; ok is false where
// getrusage failed.
func switches() (voluntary, involuntary int64, ok bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0, false
	}
	return int64(ru.Nvcsw), int64(ru.Nivcsw), true
}

// countingOff says whether OVERHEAD_COUNTERS=off turned counting off (an A/A pair of counting against not).
func countingOff() bool {
	return os.Getenv("OVERHEAD_COUNTERS") == "off"
}

// countedPairs runs pairs more (control, test) pairs of n operations after the kept ones, untimed, with the
// process's switches read just before and after each batch (before and after run outside the counted
// windows), and returns each key's median over the pairs of (test's count − control's) / n; nil with no pair
// or counting off.
func countedPairs(pairs int, n uint64, test, control, before, after Batch) map[string]float64 {
	if pairs <= 0 || countingOff() {
		return nil
	}
	var voluntary, involuntary []float64
	for i := 0; i < pairs; i++ {
		v0, i0, ok0 := switches()
		control(n)
		v1, i1, ok1 := switches()
		before(n)
		v2, i2, ok2 := switches()
		test(n)
		v3, i3, ok3 := switches()
		after(n)
		if !(ok0 && ok1 && ok2 && ok3) {
			return nil
		}
		voluntary = append(voluntary, float64((v3-v2)-(v1-v0))/float64(n))
		involuntary = append(involuntary, float64((i3-i2)-(i1-i0))/float64(n))
	}
	return map[string]float64{voluntaryKey: median(voluntary), involuntaryKey: median(involuntary)}
}

// median of values (the mean of the middle two for an even count, as crates/stats's percentile at 0.5).
func median(values []float64) float64 {
	sorted := append([]float64(nil), values...)
	sort.Float64s(sorted)
	k := len(sorted)
	if k%2 == 1 {
		return sorted[k/2]
	}
	return (sorted[k/2-1] + sorted[k/2]) / 2
}
