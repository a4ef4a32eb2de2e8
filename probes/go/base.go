package main

// base: the costs every other number sits on (Souvatzis's first rows; crates/experiments/src/base/).

// sink receives every value a timed loop produces, so the compiler cannot delete the loop: Go's
// compiler keeps every store to a package-level variable inside a loop.
var sink uint64

// emptyLoop is the control of almost every point: a counted loop whose body only stores its index
// (Rust's `empty_loop` with `black_box(i)`). Per iteration: one increment, compare, branch and store.
func emptyLoop(n uint64) {
	for i := uint64(0); i < n; i++ {
		sink = i
	}
}

// noLoop is base.loop's control: no work at all, so only the two clock reads cancel.
func noLoop(uint64) {}

// callee is base.call's callee: one argument in, one result out, never inlined.
//
//go:noinline
func callee(x uint64) uint64 {
	return x + 1
}

// init registers the family's experiments.
func init() {
	register("base.loop", baseLoop)
	register("base.call", baseCall)
}

// baseLoop times one iteration of the control loop (emptyLoop) against no loop; per iteration.
func baseLoop(p *Point) (*Outcome, error) {
	if _, err := ParseParams(p.Spec, nil); err != nil {
		return nil, err
	}
	return &Outcome{M: p.H.Measure(emptyLoop, noLoop), Per: 1}, nil
}

// baseCall times a direct call of a //go:noinline function and its return inside the control loop,
// against the control loop; per call.
func baseCall(p *Point) (*Outcome, error) {
	if _, err := ParseParams(p.Spec, nil); err != nil {
		return nil, err
	}
	test := func(n uint64) {
		for i := uint64(0); i < n; i++ {
			sink = callee(i)
		}
	}
	return &Outcome{M: p.H.Measure(test, emptyLoop), Per: 1}, nil
}
