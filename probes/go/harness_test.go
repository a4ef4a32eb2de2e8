package main

import (
	"encoding/json"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// scripted is a fake clock: batches advance it by a fixed cost per operation, so the harness's
// decisions have exact answers (crates/harness/src/testing.rs's ScriptedClock).
type scripted struct{ t int64 }

// now reads the scripted clock.
func (s *scripted) now() int64 { return s.t }

// ops returns a batch costing perOp ns an operation that logs its sizes in *log.
func (s *scripted) ops(perOp int64, log *[]uint64) Batch {
	return func(n uint64) {
		if log != nil {
			*log = append(*log, n)
		}
		s.t += perOp * int64(n)
	}
}

// scriptedHarness is a harness on the scripted clock c with these settings.
func scriptedHarness(c *scripted, target float64, warmup, reps int, hint *uint64) *Harness {
	cfg := HarnessConfig{TargetBatchNs: target, Warmup: warmup, Repetitions: reps, MaxBatchOps: 1 << 32, Mode: "default"}
	h := NewHarness(cfg, hint)
	h.now = c.now
	return h
}

// sizingTo is the sizes of sizing's test batches when doubling reaches half the target at doubled and
// predicts predicted, which reaches it: 1, 2, 4, … up to doubled, then predicted twice (the batch and its
// confirmation).
func sizingTo(doubled, predicted uint64) []uint64 {
	var v []uint64
	for k := uint64(1); k <= doubled; k *= 2 {
		v = append(v, k)
	}
	return append(v, predicted, predicted)
}

// Sizing doubles N from 1 while a batch is shorter than half the target, then predicts the N for 1.1×
// the target and stops when that batch and a second one of the same N both reach it, as the Rust
// harness does: 3 ns an operation against 1000 ns doubles to 256 (768 ns), predicts 367, rounded up to
// 384 (1152 ns). Sizing's last batch is the warm-up's test: the kept test batches follow it.
func TestSizingDoublesThenPredictsTheTargetAndConfirms(t *testing.T) {
	c := &scripted{}
	h := scriptedHarness(c, 1000, 1, 3, nil)
	var sizes []uint64
	m := h.Measure(c.ops(3, &sizes), c.ops(1, nil))
	if m.N != 384 || h.sized != 384 {
		t.Fatalf("N = %d, sized = %d; want 384", m.N, h.sized)
	}
	want := append(sizingTo(256, 384), 384, 384, 384) // sizing, then 3 kept test batches
	if !reflect.DeepEqual(sizes, want) {
		t.Fatalf("test batch sizes %v, want %v", sizes, want)
	}
	if !reflect.DeepEqual(m.TestNs, []int64{1152, 1152, 1152}) || !reflect.DeepEqual(m.ControlNs, []int64{384, 384, 384}) {
		t.Fatalf("test %v control %v", m.TestNs, m.ControlNs)
	}
}

// pairsToCount is the Rust harness's rule (crates/harness/src/lib.rs's counted_pairs_tests, the same cases).
func TestPairsToCountFollowsTheRustRule(t *testing.T) {
	for _, tc := range []struct {
		configured int
		testNs     []int64
		ops        uint64
		want       int
	}{
		{2, []int64{1000, 1200, 1900}, 1, 2},
		{2, []int64{3900, 4000, 4000}, 1, 2},
		{2, []int64{4001, 90000, 100000}, 1, 1},
		{2, []int64{4001, 90000, 100000}, 4, 2},
		{2, nil, 1, 2},
		{0, []int64{100000}, 1, 0},
		{1, []int64{100000}, 1, 1},
	} {
		if got := pairsToCount(tc.configured, tc.testNs, tc.ops, 1000); got != tc.want {
			t.Errorf("pairsToCount(%d, %v, %d, 1000) = %d, want %d", tc.configured, tc.testNs, tc.ops, got, tc.want)
		}
	}
}

// nextBatchOps is the Rust harness's rule (crates/harness/src/sizing.rs's tests, the same cases).
func TestNextBatchOpsFollowsTheRustRule(t *testing.T) {
	for _, tc := range []struct {
		n      uint64
		t, tgt float64
		max    uint64
		want   uint64
	}{
		{1, 1, 1000, math.MaxUint64, 2},
		{64, 499, 1000, math.MaxUint64, 128},
		{256, 768, 1000, math.MaxUint64, 384},
		{100, 500, 1000, math.MaxUint64, 224},
		{1 << 20, 1, 1e12, 1 << 20, 1 << 20},
	} {
		if got := nextBatchOps(tc.n, tc.t, tc.tgt, tc.max); got != tc.want {
			t.Errorf("nextBatchOps(%d, %v, %v) = %d, want %d", tc.n, tc.t, tc.tgt, got, tc.want)
		}
	}
	for n := uint64(1); n < 5000; n++ {
		r := roundUpToBits(n)
		if r < n || float64(r) > float64(n)*1.125 {
			t.Fatalf("%d → %d", n, r)
		}
	}
	if roundUpToBits(367) != 384 || roundUpToBits(15) != 15 || roundUpToBits(17) != 18 {
		t.Fatal("roundUpToBits")
	}
}

// A hint is timed once and kept when that batch lasts a quarter to four times the target; otherwise
// sizing doubles from 1. Only the first sizing takes the hint, and the first N stays the one reported.
func TestHintIsKeptWithinAFactorOfFour(t *testing.T) {
	sizing := func(hint uint64) (uint64, []uint64, *Harness, *scripted) {
		c := &scripted{}
		h := scriptedHarness(c, 1000, 1, 3, &hint)
		var sizes []uint64
		m := h.Measure(c.ops(3, &sizes), noLoop)
		return m.N, sizes[:len(sizes)-3], h, c
	}
	// 3 ns an operation: 256 take 768 ns (kept), 1024 take 3072 (kept), 1400 take 4200 (dropped),
	// 64 take 192 (dropped), 84 take 252 (kept: above a quarter).
	for _, tc := range []struct{ hint, n uint64 }{{256, 256}, {1024, 1024}, {84, 84}, {1400, 384}, {64, 384}} {
		n, sizes, _, _ := sizing(tc.hint)
		if n != tc.n {
			t.Errorf("hint %d: N = %d, want %d", tc.hint, n, tc.n)
		}
		if sizes[0] != tc.hint {
			t.Errorf("hint %d: first batch %d, want the hint", tc.hint, sizes[0])
		}
		if n == tc.hint && len(sizes) != 1 {
			t.Errorf("hint %d kept but sizing ran %v", tc.hint, sizes)
		}
		if n != tc.hint && !reflect.DeepEqual(sizes[1:], sizingTo(256, 384)) {
			t.Errorf("hint %d dropped: sizing ran %v", tc.hint, sizes)
		}
	}
	_, _, h, c := sizing(256)
	// 1 ns an operation, no hint: 512 take 512 ns and predict 1100, rounded up to 1152.
	if m := h.Measure(c.ops(1, nil), noLoop); m.N != 1152 || h.sized != 256 {
		t.Fatalf("second sizing N = %d (want 1152, no hint), sized = %d (want the first, 256)", m.N, h.sized)
	}
}

// A hit and its confirmation far past the target step back once and sizing goes on (crates/harness/src/
// single.rs's a_confirmed_batch_far_past_the_target_steps_back and its neighbours, the same cases): from the
// tenth batch (N = 384) every operation costs 300 ns, so 384 steps back to 4, which sizing confirms; where
// only the two batches of 384 were slow, sizing grows back to 384; and a second overshoot is kept.
func TestAnOvershootStepsBackOnce(t *testing.T) {
	run := func(slow func(batch int) bool) (uint64, []uint64) {
		c := &scripted{}
		h := scriptedHarness(c, 1000, 1, 3, nil)
		var sizes []uint64
		m := h.Measure(func(n uint64) {
			sizes = append(sizes, n)
			perOp := int64(3)
			if slow(len(sizes)) {
				perOp = 300
			}
			c.t += perOp * int64(n)
		}, noLoop)
		return m.N, sizes
	}
	n, sizes := run(func(b int) bool { return b >= 10 })
	if want := append(sizingTo(256, 384), 4, 4); n != 4 || !reflect.DeepEqual(sizes[:len(want)], want) {
		t.Fatalf("N = %d after %v; want 4 after %v", n, sizes, want)
	}
	if n, _ := run(func(b int) bool { return b == 10 || b == 11 }); n != 384 {
		t.Fatalf("a regime that passed: N = %d, want 384", n)
	}
	n, sizes = run(func(b int) bool { return b == 10 || b == 11 || b >= 20 })
	if want := []uint64{384, 384, 4, 8, 16, 32, 64, 128, 256, 384, 384}; n != 384 || !reflect.DeepEqual(sizes[9:20], want) {
		t.Fatalf("a second overshoot: N = %d after %v", n, sizes)
	}
	if n, _ := run(func(b int) bool { return b == 11 }); n != 384 {
		t.Fatalf("one slow confirmation stepped back: N = %d", n)
	}
	if _, ok := shrinkOvershoot(4, math.NaN(), 1000); ok {
		t.Fatal("a batch time that is no number stepped back")
	}
	if got, _ := shrinkOvershoot(262144, 56000, 1000); got != 5632 {
		t.Fatalf("shrinkOvershoot = %d, want 5632 (crates/harness/src/sizing.rs's case)", got)
	}
}

// A hint of one operation that outlasts the target is kept; one shorter than the target sizes from 1.
func TestAHintOfOneLongOperationIsKept(t *testing.T) {
	for _, tc := range []struct {
		perOp int64
		n     uint64
		sized int
	}{{50000, 1, 1}, {200, 6, 6}} {
		c := &scripted{}
		hint := uint64(1)
		h := scriptedHarness(c, 1000, 1, 3, &hint)
		var sizes []uint64
		m := h.Measure(c.ops(tc.perOp, &sizes), noLoop)
		if m.N != tc.n || len(sizes)-3 != tc.sized {
			t.Errorf("%d ns an operation: N = %d after %v, want %d after %d batches", tc.perOp, m.N, sizes, tc.n, tc.sized)
		}
	}
}

// A batch that reaches the target early (preempted) is not believed: its confirmation falls short.
func TestAConfirmationThatFallsShortKeepsGrowing(t *testing.T) {
	c := &scripted{}
	h := scriptedHarness(c, 1000, 0, 1, nil)
	batches := 0
	m := h.Measure(func(n uint64) {
		batches++
		c.t += 3 * int64(n)
		if batches == 3 { // the first batch of N = 4 is preempted
			c.t += 5000
		}
	}, noLoop)
	if m.N != 384 {
		t.Fatalf("N = %d, want 384", m.N)
	}
}

// Sizing stops at the op cap when the target is out of reach.
func TestSizingStopsAtTheOpCap(t *testing.T) {
	c := &scripted{}
	h := scriptedHarness(c, 1e12, 0, 2, nil)
	h.cfg.MaxBatchOps = 64
	var sizes []uint64
	m := h.Measure(c.ops(1, &sizes), noLoop)
	if m.N != 64 || !reflect.DeepEqual(sizes, []uint64{1, 2, 4, 8, 16, 32, 64, 64}) {
		t.Fatalf("N = %d, sizes %v", m.N, sizes)
	}
	// With a warm-up, sizing stopped by the cap ran no batch of N: the warm-up pair runs whole.
	h = scriptedHarness(c, 1e12, 1, 2, nil)
	h.cfg.MaxBatchOps = 64
	sizes = nil
	h.Measure(c.ops(1, &sizes), noLoop)
	if !reflect.DeepEqual(sizes, []uint64{1, 2, 4, 8, 16, 32, 64, 64, 64}) {
		t.Fatalf("with a warm-up: sizes %v", sizes)
	}
}

// docs/METHOD.md §1's order: sizing test batches (each with its hooks), the first warm-up's control alone
// (sizing's last batch was its test), then per pair: before, control, test, after.
func TestOrderOfControlTestAndHooks(t *testing.T) {
	c := &scripted{}
	h := scriptedHarness(c, 1000, 2, 3, nil)
	var ran []string
	logged := func(tag string, perOp int64) Batch {
		return func(n uint64) {
			ran = append(ran, tag)
			c.t += perOp * int64(n)
		}
	}
	// Hooks cost a million ns each and change no sample: they run untimed.
	m := h.MeasureWith(logged("T", 5), logged("C", 1), logged("B", 1e6), logged("A", 1e6))
	// 5 ns an operation: 128 operations (640 ns) predict 220, rounded up to 224 (1120 ns).
	var want []string
	for range sizingTo(128, 224) {
		want = append(want, "B", "T", "A")
	}
	want = append(want, "C")
	for i := 0; i < 1+3; i++ {
		want = append(want, "B", "C", "T", "A")
	}
	if !reflect.DeepEqual(ran, want) {
		t.Fatalf("ran %v\nwant %v", ran, want)
	}
	if m.N != 224 || !reflect.DeepEqual(m.TestNs, []int64{1120, 1120, 1120}) || !reflect.DeepEqual(m.ControlNs, []int64{224, 224, 224}) {
		t.Fatalf("%+v", m)
	}
}

// The batches line has the protocol's fields and types, sized_batch_ops only when something was
// sized, and empty notes and extra rather than null.
func TestBatchesLineShape(t *testing.T) {
	o := &Outcome{M: Measurement{N: 8, TestNs: []int64{10, 11, 12}, ControlNs: []int64{1, 2, 3}}, Per: 2}
	line, err := BatchesLine(o, 8, 20)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"batches","v":2,"batch_ops":8,"per":2,"test_ns":[10,11,12],"control_ns":[1,2,3],"resolution_ns":20,"sized_batch_ops":8,"notes":[],"extra":{}}`
	if string(line) != want {
		t.Fatalf("got  %s\nwant %s", line, want)
	}
	o.Extra = map[string]float64{"k": 1.5}
	o.PerThreadTestNs = [][]int64{{1, 2, 3}}
	line, _ = BatchesLine(o, 0, 20)
	if strings.Contains(string(line), "sized_batch_ops") || !strings.Contains(string(line), `"extra":{"k":1.5},"per_thread_test_ns":[[1,2,3]]`) {
		t.Fatalf("got %s", line)
	}
	o.PinRefusals = 2
	if line, _ = BatchesLine(o, 0, 20); !strings.HasSuffix(string(line), `"per_thread_test_ns":[[1,2,3]],"pin_refusals":2}`) {
		t.Fatalf("got %s", line)
	}
	if _, err := BatchesLine(&Outcome{M: Measurement{N: 1, TestNs: []int64{1}}}, 0, 1); err == nil {
		t.Fatal("unpaired batches accepted")
	}
}

// A job end to end through run(): a batches line for a known point, an error line for an unknown
// experiment or runtime, exit status 2 for bad arguments, and the version line.
func TestRunWritesOneFinalLine(t *testing.T) {
	job := func(exp, rt, params string) string {
		return `{"v":2,"spec":{"experiment":"` + exp + `","runtime":"` + rt + `","params":` + params +
			`,"cpus":[0],"placement":null},"time_source":{"clock":{"kind":"tsc","hz":2e9}},` +
			`"harness":{"target_batch_ns":20000.0,"warmup":1,"repetitions":3,"max_batch_ops":4294967296,"noisy_fraction":0.05,"mode":"quick"},"batch_ops_hint":null}`
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0)) // run() sets it to the job's CPU count
	var out, errOut strings.Builder
	if st := run([]string{"--job", job("base.call", "go", "[]")}, &out, &errOut); st != 0 {
		t.Fatalf("status %d: %s", st, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var msg map[string]interface{}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &msg); err != nil {
		t.Fatal(err)
	}
	if msg["type"] != "batches" || len(msg["test_ns"].([]interface{})) != 3 || msg["per"].(float64) != 1 {
		t.Fatalf("%v", msg)
	}
	for _, bad := range []string{job("no.such", "go", "[]"), job("base.call", "java-virtual", "[]"), job("sync.sem", "go", `[["op","q"]]`), `{"v":1}`, `[`} {
		out.Reset()
		if st := run([]string{"--job", bad}, &out, &errOut); st != 1 || !strings.HasPrefix(out.String(), `{"type":"error","v":2,"message":`) {
			t.Errorf("job %s: status %d, output %s", bad, st, out.String())
		}
	}
	if st := run([]string{"--bogus"}, &out, &errOut); st != 2 {
		t.Errorf("unknown argument: status %d", st)
	}
	out.Reset()
	if run([]string{"--version"}, &out, &errOut) != 0 || out.String() != "overhead-probe-go 1\n" {
		t.Errorf("version: %q", out.String())
	}
}

// The counted pairs count the process's context switches per operation, control subtracted: a batch that
// sleeps once an operation counts about one voluntary switch per operation, its empty control none, and
// BatchesLine divides by per. With no counted pair or OVERHEAD_COUNTERS=off nothing is counted.
func TestCountedPairsCountASleepAsOneVoluntarySwitch(t *testing.T) {
	sleep := func(n uint64) {
		for i := uint64(0); i < n; i++ {
			time.Sleep(20 * time.Microsecond)
		}
	}
	noop := func(uint64) {}
	counts := countedPairs(3, 20, sleep, emptyLoop, noop, noop)
	if v := counts[voluntaryKey]; v < 0.9 {
		t.Fatalf("%v voluntary switches per sleep, want about 1 (%v)", v, counts)
	}
	line, err := BatchesLine(&Outcome{M: Measurement{N: 20, TestNs: []int64{1}, ControlNs: []int64{1}, Counts: counts}, Per: 2}, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	var msg batchesMessage
	if err := json.Unmarshal(line, &msg); err != nil {
		t.Fatal(err)
	}
	if msg.Extra[voluntaryKey] != counts[voluntaryKey]/2 {
		t.Fatalf("per 2: %v, counted %v", msg.Extra[voluntaryKey], counts[voluntaryKey])
	}
	if countedPairs(0, 20, sleep, emptyLoop, noop, noop) != nil {
		t.Fatal("no counted pair counts nothing")
	}
	t.Setenv("OVERHEAD_COUNTERS", "off")
	if countedPairs(3, 20, sleep, emptyLoop, noop, noop) != nil {
		t.Fatal("counting off counts nothing")
	}
}
