package main

import (
	"reflect"
	"runtime"
	"sync/atomic"
	"testing"
)

// drive runs a leader plan against a batch cost of perOp ns an operation and returns its commands.
func drive(p *leaderPlan, perOp int64) []uint64 {
	var cmds []uint64
	last, have := int64(0), false
	for {
		c := p.next(last, have)
		cmds = append(cmds, c)
		if c == 0 {
			return cmds
		}
		if c&controlBit == 0 {
			last, have = perOp*int64(c), true
		}
	}
}

// The leader sizes as a single thread does (doubling, a predicted step, a confirming batch), then posts the
// warm-up's control alone (sizing's last batch was its test) and the kept pairs, control first; a hint near
// the target is kept, a far one dropped.
func TestLeaderPlan(t *testing.T) {
	c := &scripted{}
	h := scriptedHarness(c, 1000, 1, 2, nil)
	got := drive(newLeaderPlan(h), 3)
	want := append(sizingTo(256, 384), 384|controlBit, 384|controlBit, 384, 384|controlBit, 384, 0)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("commands %v\nwant %v", got, want)
	}
	hint := uint64(300)
	h = scriptedHarness(c, 1000, 0, 1, &hint)
	if got := drive(newLeaderPlan(h), 3); !reflect.DeepEqual(got, []uint64{300, 300 | controlBit, 300, 0}) {
		t.Fatalf("kept hint: %v", got)
	}
	if h.hint != 0 {
		t.Fatal("the hint was not consumed")
	}
	hint = 5000
	h = scriptedHarness(c, 1000, 0, 1, &hint)
	got = drive(newLeaderPlan(h), 3)
	if got[0] != 5000 || !reflect.DeepEqual(got[1:len(got)-3], sizingTo(256, 384)) {
		t.Fatalf("dropped hint: %v", got)
	}
}

// The leader steps back from a hit and confirmation far past the target as the single harness does
// (crates/harness/src/team.rs's the_leader_steps_back_from_a_batch_far_past_the_target): from the tenth
// batch every operation costs 300 ns, so 384 steps back to 4, which it confirms; and it keeps a hint of one
// operation that outlasts the target.
func TestLeaderPlanStepsBackAndKeepsALongHint(t *testing.T) {
	c := &scripted{}
	p := newLeaderPlan(scriptedHarness(c, 1000, 1, 1, nil))
	var tests []uint64
	last, have := int64(0), false
	for {
		cmd := p.next(last, have)
		if cmd == 0 {
			break
		}
		if cmd&controlBit == 0 {
			tests = append(tests, cmd)
			perOp := int64(3)
			if len(tests) >= 10 {
				perOp = 300
			}
			last, have = perOp*int64(cmd), true
		}
	}
	if want := append(sizingTo(256, 384), 4, 4, 4); !reflect.DeepEqual(tests, want) {
		t.Fatalf("test batches %v, want %v", tests, want)
	}
	hint := uint64(1)
	got := drive(newLeaderPlan(scriptedHarness(c, 1000, 1, 1, &hint)), 50000)
	if want := []uint64{1, 1 | controlBit, 1 | controlBit, 1, 0}; !reflect.DeepEqual(got, want) {
		t.Fatalf("a long hint: %v, want %v", got, want)
	}
}

// A team keeps every member's kept test batches, and the team's batches are the slowest member's;
// every member runs the same batches.
func TestMeasureTeamShape(t *testing.T) {
	c := &scripted{}
	h := scriptedHarness(c, 20000, 1, 3, nil)
	h.now = NewHarness(h.cfg, nil).now // a real clock: members run concurrently
	var ops [3]atomic.Uint64
	tm := h.MeasureTeam([]int{0, 0, 0}, false, func(thread int, n uint64) {
		for i := uint64(0); i < n*uint64(thread+1); i++ {
			teamSinks[thread].v = i
		}
		ops[thread].Add(n)
	}, emptyTeamLoop)
	if len(tm.M.TestNs) != 3 || len(tm.PerThreadNs) != 3 || h.sized != tm.M.N {
		t.Fatalf("%+v", tm)
	}
	for r := 0; r < 3; r++ {
		max := int64(0)
		for _, own := range tm.PerThreadNs {
			if own[r] > max {
				max = own[r]
			}
		}
		if tm.M.TestNs[r] != max {
			t.Fatalf("pair %d: team %d, slowest member %d", r, tm.M.TestNs[r], max)
		}
	}
	if a, b := ops[0].Load(), ops[2].Load(); a != b {
		t.Fatalf("members ran %d and %d operations", a, b)
	}
}

// On one P the members of a stream take turns: a member's own clock starts only when Go first runs it,
// so each kept batch's span must cover both turns (at least their sum, less a small tolerance), where
// the slowest member alone would cover one.
func TestStreamTeamSpansMembersThatTakeTurns(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	c := &scripted{}
	h := scriptedHarness(c, 50000, 1, 5, nil)
	h.now = NewHarness(h.cfg, nil).now // a real clock
	tm := h.MeasureStreamTeam([]int{0, 0}, func(thread int, n uint64) {
		for i := uint64(0); i < n; i++ {
			teamSinks[thread].v = i
		}
	}, emptyTeamLoop)
	for r := range tm.M.TestNs {
		a, b := tm.PerThreadNs[0][r], tm.PerThreadNs[1][r]
		if float64(tm.M.TestNs[r]) < 0.95*float64(a+b) {
			t.Fatalf("pair %d: span %d ns, members %d and %d ns: the span misses a turn", r, tm.M.TestNs[r], a, b)
		}
	}
}
