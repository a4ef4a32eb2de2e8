package main

import "sync/atomic"

// sync.sem: Souvatzis's semaphore rows on Effective Go's channel semaphore: a buffered chan struct{}
// whose capacity is the number of permits; P (acquire) sends a token, blocking when every permit is
// taken; V (release) receives one. Tokens are zero-size, so even a huge capacity allocates nothing.
// Mirrors crates/runtimes/src/os/primitives.rs's semaphore (POSIX sem_t there).

// semCapacity is the permits of the P-only and V-only semaphores: more than any batch takes (a batch
// never exceeds max_batch_ops, and every batch's tokens are given back untimed).
const semCapacity = 1 << 40

// semaphore is a counting semaphore as a channel.
type semaphore chan struct{}

// P acquires one permit (blocks while none is free).
func (s semaphore) P() { s <- struct{}{} }

// V releases one permit (wakes a blocked P, if any).
func (s semaphore) V() { <-s }

// init registers the family's experiments.
func init() {
	register("sync.sem", syncSem)
}

// syncSem times one of op:p (P with plenty of permits, never blocks; after each test batch its permits
// are given back untimed), op:v (V with no waiter; before each test batch the permits it releases are
// taken untimed), op:pair (V then P, never blocks), op:switch (two goroutines on one P pass a permit
// back and forth through two semaphores: each handoff a V that readies a blocked P and a switch to
// it; reported per handoff, per = 2, as crates/experiments/src/sync/sem.rs does). Against the control loop.
func syncSem(p *Point) (*Outcome, error) {
	params, err := ParseParams(p.Spec, []ParamRule{{"op", []string{"p", "v", "pair", "switch"}}})
	if err != nil {
		return nil, err
	}
	op := params["op"]
	if op == "switch" {
		if _, err := sameCpuPair(p, ParamRule{"op", nil}); err != nil {
			return nil, err
		}
	} else if len(p.Spec.Cpus) != 1 {
		return nil, errorf("%s: op:%s runs on one CPU; cpus %v", p.Spec.Name(), op, p.Spec.Cpus)
	}
	capacity := uint64(semCapacity)
	if capacity < p.H.cfg.MaxBatchOps {
		capacity = p.H.cfg.MaxBatchOps
	}
	switch op {
	case "p":
		sem := make(semaphore, capacity)
		test := func(n uint64) {
			for i := uint64(0); i < n; i++ {
				sem.P()
			}
		}
		giveBack := func(n uint64) {
			for i := uint64(0); i < n; i++ {
				sem.V()
			}
		}
		return &Outcome{M: p.H.MeasureWith(test, emptyLoop, nil, giveBack), Per: 1}, nil
	case "v":
		sem := make(semaphore, capacity)
		take := func(n uint64) {
			for i := uint64(0); i < n; i++ {
				sem.P()
			}
		}
		test := func(n uint64) {
			for i := uint64(0); i < n; i++ {
				sem.V()
			}
		}
		return &Outcome{M: p.H.MeasureWith(test, emptyLoop, take, nil), Per: 1}, nil
	case "pair":
		sem := make(semaphore, 1)
		sem.P() // the one permit is held: V frees it, P takes it again
		test := func(n uint64) {
			for i := uint64(0); i < n; i++ {
				sem.V()
				sem.P()
			}
		}
		return &Outcome{M: p.H.Measure(test, emptyLoop), Per: 1}, nil
	default:
		return semSwitch(p)
	}
}

// semSwitch is op:switch: ping and pong start with no free permit; the partner blocks in P(ping), the
// timed goroutine's V(ping) readies it and its P(pong) blocks, so the partner runs, V(pong)s and blocks
// in P(ping) again. One iteration is a round trip: two handoffs.
func semSwitch(p *Point) (*Outcome, error) {
	ping, pong := make(semaphore, 1), make(semaphore, 1)
	ping.P()
	pong.P()
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		for {
			ping.P()
			if stop.Load() {
				break
			}
			pong.V()
		}
		close(done)
	}()
	test := func(n uint64) {
		for i := uint64(0); i < n; i++ {
			ping.V()
			pong.P()
		}
	}
	m := p.H.Measure(test, emptyLoop)
	stop.Store(true)
	ping.V()
	<-done
	return &Outcome{M: m, Per: 2}, nil
}
