package main

import (
	"sync"
	"sync/atomic"
)

// Contention between CPUs (crates/experiments/src/sync/{faa,mutex,barrier}.rs, crates/runtimes/src/os/contention.rs):
// a team of goroutines, one per CPU of the point (GOMAXPROCS = T), started together; the time per
// operation is the slowest member's, against the control loop. sync.faa's members never block and are
// locked to their OS thread and pinned to their CPU. sync.mutex's and sync.barrier's members block, and
// are left to Go's scheduler (see unlockedNote).

// unlockedNote explains why blocking team members are not locked to threads.
const unlockedNote = "members are goroutines on GOMAXPROCS=T Ps, not locked to OS threads: a locked goroutine that " +
	"blocks gives its P away and is woken by a kernel handoff to its own thread (cyclic barrier measured at " +
	"40-190 us an episode locked, 170 ns unlocked, on a 2-vCPU VM), which no Go program pays; Go decides where " +
	"each member runs"

// init registers the family's experiments.
func init() {
	register("sync.faa", syncFaa)
	register("sync.mutex", syncMutex)
	register("sync.rwlock", syncRwlock)
	register("sync.barrier", syncBarrier)
}

// paddedCounter is a counter alone on 128 bytes, as the os runtime's CachePadded counters.
type paddedCounter struct {
	v int64
	_ [120]byte
}

// teamPoint checks a team point's parameters and that threads:T matches its T CPUs, all distinct.
func teamPoint(p *Point, min int, rules ...ParamRule) (Params, error) {
	rules = append(rules, ParamRule{"threads", nil})
	params, err := ParseParams(p.Spec, rules)
	if err != nil {
		return nil, err
	}
	t, err := params.Int(p.Spec, "threads", min)
	if err != nil {
		return nil, err
	}
	if t != len(p.Spec.Cpus) || p.Spec.DistinctCpus() != t {
		return nil, errorf("%s: threads:%d needs %d distinct CPUs; cpus %v", p.Spec.Name(), t, t, p.Spec.Cpus)
	}
	return params, nil
}

// syncFaa times Ben-Asher & Feitelson 1991 §8.1's fetch-and-add, impl:hw (atomic.AddInt64, lock xadd on x86-64): every
// member adds 1 to one shared counter (variable:shared, its line bounces between CPUs) or to its own
// counter 128 bytes from the others' (variable:distinct). Per add of one member while the others add.
func syncFaa(p *Point) (*Outcome, error) {
	params, err := teamPoint(p, 1, ParamRule{"impl", []string{"hw"}}, ParamRule{"variable", []string{"shared", "distinct"}})
	if err != nil {
		return nil, err
	}
	shared := params["variable"] == "shared"
	counters := make([]paddedCounter, len(p.Spec.Cpus))
	test := func(thread int, n uint64) {
		c := &counters[thread]
		if shared {
			c = &counters[0]
		}
		for i := uint64(0); i < n; i++ {
			atomic.AddInt64(&c.v, 1)
		}
	}
	return teamOutcome(p.H.MeasureTeam(p.Spec.Cpus, true, test, emptyTeamLoop)), nil
}

// syncMutex times lock:mutex, a sync.Mutex around a shared counter's increment (lock, add, unlock),
// by T members on one lock: threads:1 is the uncontended cost, more the contended one (sync.Mutex
// spins briefly, then parks waiters on the runtime's semaphore; members not locked to threads:
// unlockedNote). Per lock/unlock pair of one member.
func syncMutex(p *Point) (*Outcome, error) {
	if _, err := teamPoint(p, 1, ParamRule{"lock", []string{"mutex"}}); err != nil {
		return nil, err
	}
	var mu sync.Mutex
	var counter uint64
	test := func(_ int, n uint64) {
		for i := uint64(0); i < n; i++ {
			mu.Lock()
			counter++
			mu.Unlock()
		}
	}
	out := teamOutcome(p.H.MeasureTeam(p.Spec.Cpus, false, test, emptyTeamLoop))
	out.Notes = append(out.Notes, unlockedNote)
	sink = counter
	return out, nil
}

// syncRwlock times the reader-writer case, lock:rw_mutex (sync.RWMutex), by T members on
// one lock: writers:W percent of each member's operations write (Lock, increment a shared counter,
// Unlock), the rest read (RLock, load it, RUnlock). Per operation of one member (members not locked to
// threads: unlockedNote).
func syncRwlock(p *Point) (*Outcome, error) {
	params, err := teamPoint(p, 1, ParamRule{"lock", []string{"rw_mutex"}}, ParamRule{"writers", []string{"1", "10", "50"}})
	if err != nil {
		return nil, err
	}
	writers, _ := params.Int(p.Spec, "writers", 1)
	var mu sync.RWMutex
	var counter uint64
	// every is 100 / writers (writers divides 100): operation i writes exactly when i % every == 0.
	every := uint64(100 / writers)
	wrote := make([]paddedCounter, len(p.Spec.Cpus))
	test := func(thread int, n uint64) {
		// Operation i writes when (i * writers) % 100 < writers (the rule of crates/runtimes/src/contention.rs's
		// RwLockContention, shared with the Rust side): phase is (i * writers) % 100, kept by an add.
		phase, sum := 0, uint64(0)
		for i := uint64(0); i < n; i++ {
			if phase < writers {
				mu.Lock()
				counter++
				mu.Unlock()
			} else {
				mu.RLock()
				sum += counter
				mu.RUnlock()
			}
			phase += writers
			if phase >= 100 {
				phase -= 100
			}
		}
		teamSinks[thread].v = sum
		wrote[thread].v += int64((n + every - 1) / every)
	}
	out := teamOutcome(p.H.MeasureTeam(p.Spec.Cpus, false, test, emptyTeamLoop))
	out.Notes = append(out.Notes, unlockedNote)
	want := int64(0)
	for _, w := range wrote {
		want += w.v
	}
	if int64(counter) != want {
		return nil, errorf("%s: sync.RWMutex lost updates: the counter is %d after %d writes", p.Spec.Name(), counter, want)
	}
	sink = counter
	return out, nil
}

// cyclicBarrier is a reusable barrier built from sync primitives (Go's standard library has none): a
// mutex, a condition variable and a generation count; the last arrival starts the next generation and
// broadcasts.
type cyclicBarrier struct {
	mu         sync.Mutex
	cond       *sync.Cond
	parties    int
	waiting    int
	generation uint64
}

// newCyclicBarrier makes a barrier for parties goroutines.
func newCyclicBarrier(parties int) *cyclicBarrier {
	b := &cyclicBarrier{parties: parties}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// wait blocks until all parties have called it in this generation.
func (b *cyclicBarrier) wait() {
	b.mu.Lock()
	gen := b.generation
	b.waiting++
	if b.waiting == b.parties {
		b.waiting = 0
		b.generation++
		b.cond.Broadcast()
	} else {
		for gen == b.generation {
			b.cond.Wait()
		}
	}
	b.mu.Unlock()
}

// syncBarrier times Ben-Asher & Feitelson 1991 §8.2's barrier episode, impl:cyclic (cyclicBarrier: sync.Mutex and
// sync.Cond) with T ≥ 2 members; waiters park, so an episode includes waking them (members not
// locked to threads: unlockedNote). Per episode.
func syncBarrier(p *Point) (*Outcome, error) {
	if _, err := teamPoint(p, 2, ParamRule{"impl", []string{"cyclic"}}); err != nil {
		return nil, err
	}
	b := newCyclicBarrier(len(p.Spec.Cpus))
	test := func(_ int, n uint64) {
		for i := uint64(0); i < n; i++ {
			b.wait()
		}
	}
	out := teamOutcome(p.H.MeasureTeam(p.Spec.Cpus, false, test, emptyTeamLoop))
	out.Notes = append(out.Notes, unlockedNote)
	return out, nil
}
