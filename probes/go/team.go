package main

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// Teams of goroutines, started together on a spin barrier, every member timing its own batches, as
// crates/harness/src/team.rs does for threads: member 0 leads (it sizes N on its own batch times and posts
// each batch's size and kind), a barrier starts every batch and a second one ends it. A repetition's
// team batch is the slowest member's; each member's own test batches are kept too.

// TeamBody runs member thread's operation n times.
type TeamBody func(thread int, n uint64)

// controlBit marks a posted command as a control batch; the rest is N (0: stop).
const controlBit = uint64(1) << 63

// TeamMeasurement is a team's measurement: the team's batches (slowest member per pair), each
// member's own kept test batches, and the CPUs whose pinning failed.
type TeamMeasurement struct {
	M           Measurement
	PerThreadNs [][]int64
	PinFailures []string
}

// spinBarrier is a sense-reversing barrier; with yield set, waiters call runtime.Gosched while they
// spin (members that share Ps, or goroutines that must let other goroutines run on their P).
type spinBarrier struct {
	parties int32
	count   atomic.Int32
	sense   atomic.Bool
	yield   bool
}

// newSpinBarrier makes a barrier for parties members.
func newSpinBarrier(parties int, yield bool) *spinBarrier {
	b := &spinBarrier{parties: int32(parties), yield: yield}
	b.count.Store(int32(parties))
	return b
}

// wait blocks (spinning) until every party has arrived; local is the caller's own sense.
func (b *spinBarrier) wait(local *bool) {
	*local = !*local
	if b.count.Add(-1) == 0 {
		b.count.Store(b.parties)
		b.sense.Store(*local)
		return
	}
	for b.sense.Load() != *local {
		if b.yield {
			runtime.Gosched()
		}
	}
}

// leaderPlan is the leader's schedule (crates/harness/src/team.rs LeaderPlan): the hint's batch, or test
// batches growing (nextBatchOps) until one and a confirming one reach the target (one step back where both
// were far past it, shrinkOvershoot); then the first warm-up's
// control alone (sizing's last batch was its test), the other warm-up and the kept pairs of (control,
// test); then stop.
type leaderPlan struct {
	target        float64
	maxOps        uint64
	n             uint64
	sizing        bool
	tryingHint    bool
	confirming    bool
	steppedBack   bool
	firstHit      float64
	warmControl   bool
	pairsLeft     int
	nextIsControl bool
}

// newLeaderPlan starts the leader's schedule, taking the harness's hint (once per process).
func newLeaderPlan(h *Harness) *leaderPlan {
	p := &leaderPlan{target: h.cfg.TargetBatchNs, maxOps: h.cfg.MaxBatchOps, n: 1, sizing: true,
		warmControl: h.cfg.Warmup > 0, pairsLeft: h.cfg.Repetitions, nextIsControl: true}
	if h.cfg.Warmup > 1 {
		p.pairsLeft += h.cfg.Warmup - 1
	}
	if h.hint > 0 {
		p.n = h.hint
		if p.n > p.maxOps {
			p.n = p.maxOps
		}
		p.tryingHint = true
		h.hint = 0
	}
	return p
}

// next is the command after the leader's last batch (have: there was one; last: its ns).
func (p *leaderPlan) next(last int64, have bool) uint64 {
	if p.sizing && p.tryingHint && have {
		p.tryingHint = false
		t := float64(last)
		if hintKept(p.n, t, p.target) {
			p.sizing = false
		} else {
			p.n = 1
			return p.n
		}
	}
	if p.sizing {
		switch {
		case !have:
			return p.n
		case float64(last) < p.target && p.n < p.maxOps:
			p.confirming = false
			p.n = nextBatchOps(p.n, float64(last), p.target, p.maxOps)
			return p.n
		case !p.confirming && p.n < p.maxOps:
			p.confirming, p.firstHit = true, float64(last)
			return p.n
		case p.confirming && !p.steppedBack:
			// Both far past the target: one step back, and sizing goes on from there.
			if smaller, ok := shrinkOvershoot(p.n, math.Min(float64(last), p.firstHit), p.target); ok {
				p.n, p.steppedBack, p.confirming = smaller, true, false
				return p.n
			}
			p.sizing = false
		default:
			p.sizing = false
		}
	}
	if p.warmControl {
		p.warmControl = false
		return p.n | controlBit
	}
	if p.nextIsControl {
		if p.pairsLeft == 0 {
			return 0
		}
		p.pairsLeft--
		p.nextIsControl = false
		return p.n | controlBit
	}
	p.nextIsControl = true
	return p.n
}

// MeasureTeam measures test against control run by one goroutine per entry of cpus. With pin, each
// member locks itself to its OS thread and pins that thread to its CPU (members that block then sleep
// on their own thread, as kernel threads do); without, members float over the Ps (GOMAXPROCS) and
// yield while they wait at the barrier.
func (h *Harness) MeasureTeam(cpus []int, pin bool, test, control TeamBody) TeamMeasurement {
	return h.measureTeam(cpus, pin, false, test, control)
}

// MeasureStreamTeam is MeasureTeam for a stream of messages (msg.throughput), members floating over the Ps,
// with each repetition's team time the stream's span: from the earliest member's start to the latest
// member's end (crates/harness/src/team.rs TeamTiming::Span). A member's own clock starts only when Go
// first runs it, so on one P the slowest member alone misses the time its partners ran before it.
// h.now() is one monotonic clock for every goroutine, so starts and ends compare across members.
func (h *Harness) MeasureStreamTeam(cpus []int, test, control TeamBody) TeamMeasurement {
	return h.measureTeam(cpus, false, true, test, control)
}

// measureTeam is MeasureTeam, the team time the slowest member's own time or (span) the team's span.
func (h *Harness) measureTeam(cpus []int, pin, span bool, test, control TeamBody) TeamMeasurement {
	t := len(cpus)
	if t < 1 || t > maxTeam {
		panic(fmt.Sprintf("a team of %d members", t))
	}
	shares := !pin
	for i := range cpus {
		for j := 0; j < i; j++ {
			if cpus[i] == cpus[j] {
				shares = true
			}
		}
	}
	barrier := newSpinBarrier(t, shares)
	var command atomic.Uint64
	logs := make([][]int64, t)
	starts := make([][]int64, t) // each batch's start, ns on h.now()
	pinErr := make([]error, t)
	var plan *leaderPlan
	var wg sync.WaitGroup
	for i := range cpus {
		wg.Add(1)
		go func(index, cpu int) {
			defer wg.Done()
			if pin {
				pinErr[index] = pinGoroutine(cpu)
			}
			var log, start []int64
			sense := false
			var p *leaderPlan
			if index == 0 {
				p = newLeaderPlan(h)
				plan = p
			}
			for {
				if p != nil {
					if len(log) == 0 {
						command.Store(p.next(0, false))
					} else {
						command.Store(p.next(log[len(log)-1], true))
					}
				}
				barrier.wait(&sense)
				cmd := command.Load()
				if cmd == 0 {
					break
				}
				n := cmd &^ controlBit
				body := test
				if cmd&controlBit != 0 {
					body = control
				}
				t0 := h.now()
				body(index, n)
				log = append(log, h.now()-t0)
				start = append(start, t0)
				barrier.wait(&sense)
			}
			logs[index] = log
			starts[index] = start
		}(i, cpus[i])
	}
	wg.Wait()
	n := plan.n
	h.noteSized(n)
	reps := h.cfg.Repetitions
	out := TeamMeasurement{M: Measurement{N: n, TestNs: make([]int64, reps), ControlNs: make([]int64, reps)}}
	// Per kept batch: the earliest start and the latest end over the members (span timing).
	first := make([]int64, 2*reps)
	last := make([]int64, 2*reps)
	for i, log := range logs {
		tail := log[len(log)-2*reps:]
		tailStart := starts[i][len(log)-2*reps:]
		for b := range tail {
			if i == 0 || tailStart[b] < first[b] {
				first[b] = tailStart[b]
			}
			if end := tailStart[b] + tail[b]; i == 0 || end > last[b] {
				last[b] = end
			}
		}
		own := make([]int64, reps)
		for r := 0; r < reps; r++ {
			c, tt := tail[2*r], tail[2*r+1]
			own[r] = tt
			if c > out.M.ControlNs[r] {
				out.M.ControlNs[r] = c
			}
			if tt > out.M.TestNs[r] {
				out.M.TestNs[r] = tt
			}
		}
		out.PerThreadNs = append(out.PerThreadNs, own)
		if pinErr[i] != nil {
			out.PinFailures = append(out.PinFailures, fmt.Sprintf("member %d not pinned to CPU %d: %v", i, cpus[i], pinErr[i]))
		}
	}
	if span {
		// The span is never shorter than the slowest member, whose time it contains.
		for r := 0; r < reps; r++ {
			if c := last[2*r] - first[2*r]; c > out.M.ControlNs[r] {
				out.M.ControlNs[r] = c
			}
			if tt := last[2*r+1] - first[2*r+1]; tt > out.M.TestNs[r] {
				out.M.TestNs[r] = tt
			}
		}
	}
	return out
}

// teamOutcome turns a team measurement into an outcome, per = 1.
func teamOutcome(tm TeamMeasurement) *Outcome {
	return &Outcome{M: tm.M, Per: 1, Notes: tm.PinFailures, PerThreadTestNs: tm.PerThreadNs, PinRefusals: len(tm.PinFailures)}
}

// maxTeam is the most members a team may have (one per CPU).
const maxTeam = 1024

// paddedSink is one member's sink, alone on 128 bytes (two cache lines), so members' control loops
// do not share a line.
type paddedSink struct {
	v uint64
	_ [120]byte
}

// teamSinks are the members' sinks.
var teamSinks = make([]paddedSink, maxTeam)

// emptyTeamLoop is a team's control: every member runs the control loop (emptyLoop's shape: a store
// of the index every iteration) on its own sink.
func emptyTeamLoop(thread int, n uint64) {
	s := &teamSinks[thread]
	for i := uint64(0); i < n; i++ {
		s.v = i
	}
}
