package main

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Fork-join fan-out (crates/experiments/src/spawn/{forkjoin,bulk}.rs, crates/runtimes/src/fan_out.rs) and the yield
// round (crates/experiments/src/sched/yield_round.rs). Goroutines are not pinned here: Go places them on its
// GOMAXPROCS Ps (one per CPU of the point), and that placement is part of what is measured.

// init registers the family's experiments.
func init() {
	register("spawn.forkjoin", spawnForkJoin)
	register("spawn.bulk", spawnBulk)
	register("sched.yield", schedYield)
}

// emptyTask is a fan-out's task: nothing but signalling its end.
func emptyTask(wg *sync.WaitGroup) {
	wg.Done()
}

// medianPerOp is the median over kept pairs of (test − control) / N / per, for extra values.
func medianPerOp(m Measurement, per float64) float64 {
	d := make([]float64, len(m.TestNs))
	for i := range d {
		d[i] = float64(m.TestNs[i]-m.ControlNs[i]) / float64(m.N) / per
	}
	return median(d)
}

// fanOutPoint checks threads:T against T distinct CPUs.
func fanOutPoint(p *Point, rules ...ParamRule) (Params, int, error) {
	params, err := teamPoint(p, 1, rules...)
	if err != nil {
		return nil, 0, err
	}
	return params, len(p.Spec.Cpus), nil
}

// spawnForkJoin times Ben-Asher & Feitelson 1991 §6.1's fork-join episode of one empty task per CPU (T tasks on T Ps),
// against the control loop; per episode, with per_spawn_ns (episode / T) and tasks in extra.
// mechanism:spawn: `go` of T goroutines and a WaitGroup wait for all. mechanism:pool: T worker
// goroutines started once, each receiving tasks from one channel; an episode sends T tasks and waits
// for T completions (Go's worker-pool idiom).
func spawnForkJoin(p *Point) (*Outcome, error) {
	params, t, err := fanOutPoint(p, ParamRule{"mechanism", []string{"spawn", "pool"}})
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	var test Batch
	var stop func()
	if params["mechanism"] == "spawn" {
		test = func(n uint64) {
			for i := uint64(0); i < n; i++ {
				wg.Add(t)
				for k := 0; k < t; k++ {
					go emptyTask(&wg)
				}
				wg.Wait()
			}
		}
		stop = func() {}
	} else {
		jobs := make(chan *sync.WaitGroup)
		for k := 0; k < t; k++ {
			go func() {
				for done := range jobs {
					done.Done()
				}
			}()
		}
		test = func(n uint64) {
			for i := uint64(0); i < n; i++ {
				wg.Add(t)
				for k := 0; k < t; k++ {
					jobs <- &wg
				}
				wg.Wait()
			}
		}
		stop = func() { close(jobs) }
	}
	test(1) // the first episode starts the Ps' threads; a sizing batch slowed by it would stop N at 1
	m := p.H.Measure(test, emptyLoop)
	stop()
	return &Outcome{M: m, Per: 1, Extra: map[string]float64{"tasks": float64(t), "per_spawn_ns": medianPerOp(m, float64(t))}}, nil
}

// spawnBulk times Ben-Asher & Feitelson 1991 §6.3's construct of tasks:K empty goroutines at once (`go` K times, then one
// WaitGroup wait), run by the T Ps; per spawn (per = K), with tasks and construct_ns in extra.
func spawnBulk(p *Point) (*Outcome, error) {
	params, _, err := fanOutPoint(p, ParamRule{"tasks", nil})
	if err != nil {
		return nil, err
	}
	k, err := params.Int(p.Spec, "tasks", 1)
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	test := func(n uint64) {
		for i := uint64(0); i < n; i++ {
			wg.Add(k)
			for j := 0; j < k; j++ {
				go emptyTask(&wg)
			}
			wg.Wait()
		}
	}
	test(1)
	m := p.H.Measure(test, emptyLoop)
	return &Outcome{M: m, Per: k, Extra: map[string]float64{"tasks": float64(k), "construct_ns": medianPerOp(m, 1)}}, nil
}

// schedYield times Ben-Asher & Feitelson 1991 §5.1's yield round: one measuring goroutine per CPU of the point
// (cpus:C, GOMAXPROCS=C) calls runtime.Gosched in a loop while load:L extra goroutines per CPU do
// nothing but Gosched too; each Gosched puts the caller on the global run queue and runs the next, so
// an iteration is one round through the runnable goroutines of a P. The loaders are started and seen
// running first. Goroutines cannot be pinned to a P: Go spreads the C·L loaders itself (as tokio's
// work-stealing does). Per iteration, against the control loop.
func schedYield(p *Point) (*Outcome, error) {
	params, err := ParseParams(p.Spec, []ParamRule{{"cpus", nil}, {"load", nil}})
	if err != nil {
		return nil, err
	}
	c, err := params.Int(p.Spec, "cpus", 1)
	if err != nil {
		return nil, err
	}
	load, err := params.Int(p.Spec, "load", 0)
	if err != nil {
		return nil, err
	}
	if c != len(p.Spec.Cpus) || p.Spec.DistinctCpus() != c {
		return nil, errorf("%s: cpus:%d needs %d distinct CPUs; cpus %v", p.Spec.Name(), c, c, p.Spec.Cpus)
	}
	var stop atomic.Bool
	var started atomic.Int64
	var loaders sync.WaitGroup
	for i := 0; i < c*load; i++ {
		loaders.Add(1)
		go func() {
			defer loaders.Done()
			started.Add(1)
			for !stop.Load() {
				runtime.Gosched()
			}
		}()
	}
	for started.Load() < int64(c*load) {
		runtime.Gosched()
	}
	test := func(_ int, n uint64) {
		for i := uint64(0); i < n; i++ {
			runtime.Gosched()
		}
	}
	tm := p.H.MeasureTeam(p.Spec.Cpus, false, test, emptyTeamLoop)
	stop.Store(true)
	loaders.Wait()
	return teamOutcome(tm), nil
}
