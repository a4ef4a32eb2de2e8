package main

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user + system CPU time.
func cpuTime(t *testing.T) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		t.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// settle lasts at least its duration and spends it running, not sleeping (a sleeping process lets
// sysmon park and start again at 20 µs). Running is checked loosely, a quarter of the time, so a loaded
// machine that preempts the spin does not fail the test; a sleep would use almost none.
func TestSettleRunsBusyForItsDuration(t *testing.T) {
	const d = 40 * time.Millisecond
	cpu0, wall0 := cpuTime(t), time.Now()
	settle(d)
	wall, cpu := time.Since(wall0), cpuTime(t)-cpu0
	if wall < d {
		t.Fatalf("settle returned after %v, before its %v", wall, d)
	}
	if cpu < d/4 {
		t.Fatalf("settle used %v of CPU in %v: it slept rather than ran", cpu, wall)
	}
}
