package main

import "time"

// Batch runs its operation n times. Experiments hand the harness a test batch and a control batch
// (the same loop with an empty or cheaper body); they never time themselves.
type Batch func(n uint64)

// hintLow and hintHigh bound the batch a hinted N may take, as fractions of the target, for the hint
// to be kept: crates/harness/src/lib.rs's near_target (a quarter to four times; docs/METHOD.md §2).
const (
	hintLow  = 0.25
	hintHigh = 4.0
)

// Harness times batches as crates/harness/src/single.rs does: N sized by doubling to the target (a hint
// tried first), warm-up pairs dropped, then kept pairs of a control batch and the test batch just
// after it, each of exactly N iterations. It reports raw batch times in ns; the Rust side subtracts.
type Harness struct {
	cfg HarnessConfig
	// now reads the clock in ns (monotonic); tests substitute a scripted clock.
	now func() int64
	// hint is the batch size to try first (0: none); only the first sizing of a process takes it.
	hint uint64
	// sized is the N of the process's first sizing (0: nothing sized yet).
	sized uint64
}

// Measurement is one measured kernel: N and the kept pairs' total batch times in ns, and the process's
// context switches per operation from the counted pairs after them (keyed as the record's extra; nil where
// nothing was counted).
type Measurement struct {
	N         uint64
	TestNs    []int64
	ControlNs []int64
	Counts    map[string]float64
}

// NewHarness builds a harness on Go's monotonic clock (time.Since a fixed start).
func NewHarness(cfg HarnessConfig, hint *uint64) *Harness {
	start := time.Now()
	h := &Harness{cfg: cfg, now: func() int64 { return int64(time.Since(start)) }}
	if hint != nil {
		h.hint = *hint
	}
	return h
}

// Measure times test against control with no state to restore between batches.
func (h *Harness) Measure(test, control Batch) Measurement {
	return h.MeasureWith(test, control, nil, nil)
}

// MeasureWith is Measure with untimed hooks around every test batch of n operations: before(n) runs
// just before it (a V-only batch needs n permits to give), after(n) just after it (a P-only batch's
// permits are given back), so the state never drains however long the run. Either may be nil.
//
// Order (docs/METHOD.md §1): the sizing test batches, then for each of warmup dropped and repetitions
// kept pairs: before, control, test, after.
func (h *Harness) MeasureWith(test, control, before, after Batch) Measurement {
	if before == nil {
		before = func(uint64) {}
	}
	if after == nil {
		after = func(uint64) {}
	}
	timedTest := func(n uint64) int64 {
		before(n)
		t := h.timeBatch(test, n)
		after(n)
		return t
	}
	n := h.sizeBatch(timedTest)
	m := Measurement{N: n}
	for i := 0; i < h.cfg.Warmup+h.cfg.Repetitions; i++ {
		before(n)
		c := h.timeBatch(control, n)
		t := h.timeBatch(test, n)
		after(n)
		if i >= h.cfg.Warmup {
			m.ControlNs = append(m.ControlNs, c)
			m.TestNs = append(m.TestNs, t)
		}
	}
	m.Counts = countedPairs(h.cfg.CountedPairs, n, test, control, before, after)
	return m
}

// timeBatch runs body(n) between two clock reads and returns the elapsed ns.
func (h *Harness) timeBatch(body Batch, n uint64) int64 {
	t0 := h.now()
	body(n)
	return h.now() - t0
}

// sizeBatch finds N (crates/harness/src/single.rs size_batch): a hint is timed once and kept when its batch
// lasts between a quarter of and four times the target; otherwise N doubles from 1 until a batch and a
// second batch of the same N both reach the target (one preempted batch cannot stop the doubling
// early), or until the op cap. timed(n) runs one test batch and returns its ns.
func (h *Harness) sizeBatch(timed func(uint64) int64) uint64 {
	target := h.cfg.TargetBatchNs
	if h.hint > 0 {
		hint := h.hint
		h.hint = 0
		if hint > h.cfg.MaxBatchOps {
			hint = h.cfg.MaxBatchOps
		}
		t := float64(timed(hint))
		if t >= target*hintLow && t <= target*hintHigh {
			h.noteSized(hint)
			return hint
		}
	}
	n := uint64(1)
	for {
		if n >= h.cfg.MaxBatchOps || (float64(timed(n)) >= target && float64(timed(n)) >= target) {
			if n > h.cfg.MaxBatchOps {
				n = h.cfg.MaxBatchOps
			}
			h.noteSized(n)
			return n
		}
		n *= 2
	}
}

// noteSized keeps the first N a sizing settled on (reported as sized_batch_ops).
func (h *Harness) noteSized(n uint64) {
	if h.sized == 0 {
		h.sized = n
	}
}

// ClockResolutionNs is the smallest non-zero difference between two back-to-back clock reads, the
// finest step a batch time can resolve (it includes the cost of one read, as the Rust harness's floor
// of the step and the read cost does). Measured once at start.
func (h *Harness) ClockResolutionNs() float64 {
	best := int64(0)
	for i := 0; i < 2000; i++ {
		a := h.now()
		b := h.now()
		if d := b - a; d > 0 && (best == 0 || d < best) {
			best = d
		}
	}
	if best == 0 {
		best = 1
	}
	return float64(best)
}
