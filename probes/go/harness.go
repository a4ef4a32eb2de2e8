package main

import (
	"math"
	"math/bits"
	"sort"
	"time"
)

// Batch runs its operation n times. Experiments hand the harness a test batch and a control batch
// (the same loop with an empty or cheaper body); they never time themselves.
type Batch func(n uint64)

// hintLow and hintHigh bound the batch a hinted N may take, as fractions of the target, for the hint
// to be kept: crates/harness/src/lib.rs's near_target (a quarter to four times; docs/METHOD.md §2).
const (
	hintLow  = 0.25
	hintHigh = 4.0
)

// hintKept is crates/harness/src/lib.rs's hint_kept: a hinted batch of hint operations that took t ns is
// kept within a quarter to four times the target, or when it is one operation at least as long as the
// target (the first process confirmed it; sizing again would run it twice more).
func hintKept(hint uint64, t, target float64) bool {
	return (t >= target*hintLow && t <= target*hintHigh) || (hint == 1 && t >= target)
}

// overshoot is crates/harness/src/sizing.rs's OVERSHOOT: a confirmed sizing batch longer than this many
// targets overshot it (the operation changed regime between two sizes; docs/METHOD.md §1).
const overshoot = 8.0

// shrinkOvershoot is crates/harness/src/sizing.rs's shrink_overshoot: after a batch of n operations that
// took t ns, more than overshoot targets, the N for 1.1× the target (rounded up to keptBits bits, below n);
// ok false when it did not overshoot, t is not a number, or n is 1.
func shrinkOvershoot(n uint64, t, target float64) (smaller uint64, ok bool) {
	if n <= 1 || math.IsNaN(t) || t <= overshoot*target {
		return 0, false
	}
	aimed := math.Max(math.Ceil(float64(n)*margin*target/t), 1)
	smaller = roundUpToBits(uint64(aimed))
	if smaller > n-1 {
		smaller = n - 1
	}
	return smaller, true
}

// Harness times batches as crates/harness/src/single.rs does: N sized by doubling to half the target, then
// one predicted step (a hint tried first; nextBatchOps), warm-up pairs dropped (the first a control alone:
// sizing's last batch was its test), then kept pairs of a control batch and the test batch just after it,
// each of exactly N iterations. It reports raw batch times in ns; the Rust side subtracts.
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
// Order (docs/METHOD.md §1): the sizing test batches, then the first warm-up's control alone (sizing's last
// test batch, of N operations, was its test), then for each other warm-up and each kept pair: before,
// control, test, after.
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
	n, endedAtN := h.sizeBatch(timedTest)
	m := Measurement{N: n}
	warmup := h.cfg.Warmup
	// Sizing stopped by the op cap ran no batch of N to be the warm-up's test: the warm-up pair runs whole.
	if warmup > 0 && endedAtN {
		h.timeBatch(control, n)
		warmup--
	}
	for i := 0; i < warmup+h.cfg.Repetitions; i++ {
		before(n)
		c := h.timeBatch(control, n)
		t := h.timeBatch(test, n)
		after(n)
		if i >= warmup {
			m.ControlNs = append(m.ControlNs, c)
			m.TestNs = append(m.TestNs, t)
		}
	}
	m.Counts = countedPairs(pairsToCount(h.cfg.CountedPairs, m.TestNs, n, h.cfg.TargetBatchNs), n, test, control, before, after)
	return m
}

// pairsToCount is how many counted pairs follow kept test batches of testNs, each of ops operations
// (docs/METHOD.md §18), as the Rust harness's Harness::pairs_to_count: every configured pair, but one when a
// batch is a single operation whose median batch lasts more than four times the target.
func pairsToCount(configured int, testNs []int64, ops uint64, targetNs float64) int {
	if configured <= 1 || ops != 1 || len(testNs) == 0 {
		return configured
	}
	sorted := append([]int64(nil), testNs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	if float64(sorted[len(sorted)/2]) > 4*targetNs {
		return 1
	}
	return configured
}

// timeBatch runs body(n) between two clock reads and returns the elapsed ns.
func (h *Harness) timeBatch(body Batch, n uint64) int64 {
	t0 := h.now()
	body(n)
	return h.now() - t0
}

// sizeBatch finds N (crates/harness/src/single.rs size_batch): a hint is timed once and kept when its batch
// lasts between a quarter of and four times the target, or is one operation that outlasts it (hintKept);
// otherwise N grows from 1 (nextBatchOps) until a batch and a second batch of the same N both reach the
// target (one preempted batch cannot stop the growth early; a confirmation that falls short predicts again
// from its own time), or until the op cap. Where both were far past the target, sizing steps back once
// (shrinkOvershoot) and goes on from there.
// timed(n) runs one test batch and returns its ns. endedAtN says whether the last test batch ran N
// operations (not when the op cap stopped sizing before a batch of N).
func (h *Harness) sizeBatch(timed func(uint64) int64) (n uint64, endedAtN bool) {
	target := h.cfg.TargetBatchNs
	if h.hint > 0 {
		hint := h.hint
		h.hint = 0
		if hint > h.cfg.MaxBatchOps {
			hint = h.cfg.MaxBatchOps
		}
		t := float64(timed(hint))
		if hintKept(hint, t, target) {
			h.noteSized(hint)
			return hint, true
		}
	}
	n = 1
	steppedBack := false
	for n < h.cfg.MaxBatchOps {
		first := float64(timed(n))
		short := first
		if first >= target {
			short = float64(timed(n))
		}
		if short >= target {
			// Both far past the target: one step back, and sizing goes on from there.
			if smaller, ok := shrinkOvershoot(n, math.Min(first, short), target); ok && !steppedBack {
				n, steppedBack = smaller, true
				continue
			}
			endedAtN = true
			break
		}
		n = nextBatchOps(n, short, target, h.cfg.MaxBatchOps)
	}
	if n > h.cfg.MaxBatchOps {
		n = h.cfg.MaxBatchOps
	}
	h.noteSized(n)
	return n, endedAtN
}

// predictFrom, margin and keptBits are crates/harness/src/sizing.rs's PREDICT_FROM, MARGIN and KEPT_BITS: a
// batch of half the target or more predicts N for 1.1× the target, rounded up to 4 significant bits.
const (
	predictFrom = 0.5
	margin      = 1.1
	keptBits    = 4
)

// nextBatchOps is crates/harness/src/sizing.rs's next_batch_ops: after a batch of n operations took t ns,
// short of target, n doubled while the batch was shorter than half the target, else n scaled to 1.1× the
// target and rounded up to 4 significant bits (at most 2.2× n); always more than n and at most maxOps.
func nextBatchOps(n uint64, t, target float64, maxOps uint64) uint64 {
	next := n * 2
	if n > math.MaxUint64/2 {
		next = math.MaxUint64
	}
	if t >= target*predictFrom && t > 0 {
		next = roundUpToBits(uint64(math.Ceil(float64(n) * margin * target / t)))
	}
	if next <= n {
		next = n + 1
	}
	if next > maxOps {
		next = maxOps
	}
	return next
}

// roundUpToBits rounds n up so that only its keptBits highest bits may be set.
func roundUpToBits(n uint64) uint64 {
	width := bits.Len64(n)
	if width <= keptBits {
		return n
	}
	step := uint64(1) << (width - keptBits)
	return (n + step - 1) / step * step
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
