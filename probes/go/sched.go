package main

import (
	"runtime"
	"sync/atomic"
)

// sched: switching and yielding (crates/experiments/src/sched/).

// init registers the family's experiments.
func init() {
	register("sched.switch", schedSwitch)
}

// schedSwitch times Souvatzis's csloop for goroutines (mechanism:gosched, placement:same_cpu): two
// goroutines on one P (GOMAXPROCS=1), each runtime.Gosched() puts the caller on the run queue and runs
// the other, which yields straight back. One iteration is one switch round trip (two Gosched calls,
// two goroutine switches), as tokio's yield round trip in crates/runtimes/src/tokio_rt/primitives.rs. Per
// round trip, against the control loop.
func schedSwitch(p *Point) (*Outcome, error) {
	if _, err := sameCpuPair(p, ParamRule{"mechanism", []string{"gosched"}}); err != nil {
		return nil, err
	}
	if procs := runtime.GOMAXPROCS(0); procs != 1 {
		return nil, errorf("%s: needs GOMAXPROCS=1 (both goroutines on one P); it is %d", p.Spec.Name(), procs)
	}
	var stop atomic.Bool
	started, done := make(chan struct{}), make(chan struct{})
	go func() {
		close(started)
		for !stop.Load() {
			runtime.Gosched()
		}
		close(done)
	}()
	<-started
	test := func(n uint64) {
		for i := uint64(0); i < n; i++ {
			runtime.Gosched()
		}
	}
	m := p.H.Measure(test, emptyLoop)
	stop.Store(true)
	<-done
	return &Outcome{M: m, Per: 1}, nil
}
