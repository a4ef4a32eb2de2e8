package main

import "sync"

// spawn: creating activities (crates/experiments/src/spawn/).

// spawnEmpty is spawn.create's goroutine: it does nothing but signal its end.
func spawnEmpty(wg *sync.WaitGroup) {
	wg.Done()
}

// init registers the family's experiments.
func init() {
	register("spawn.create", spawnCreate)
}

// spawnCreate times Souvatzis's "process create/destroy" for goroutines (kind:task): `go` of an empty
// function plus sync.WaitGroup.Wait until it has ended (Go's idiomatic join). The goroutine starts on
// the creator's P (GOMAXPROCS=1), so the wait switches to it and back. Per spawn + join.
func spawnCreate(p *Point) (*Outcome, error) {
	if _, err := ParseParams(p.Spec, []ParamRule{{"kind", []string{"task"}}}); err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	test := func(n uint64) {
		for i := uint64(0); i < n; i++ {
			wg.Add(1)
			go spawnEmpty(&wg)
			wg.Wait()
		}
	}
	return &Outcome{M: p.H.Measure(test, emptyLoop), Per: 1}, nil
}
