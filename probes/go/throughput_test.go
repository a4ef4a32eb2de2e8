package main

import (
	"strconv"
	"strings"
	"testing"
)

// quickPoint is a point of exp on cpus with key, value, … parameters, measured by a real-clock harness
// with a small target (20 µs batches, one warm-up and two kept pairs).
func quickPoint(exp string, cpus []int, params ...string) *Point {
	s := spec(exp, params...)
	s.Cpus = cpus
	cfg := HarnessConfig{TargetBatchNs: 20000, Warmup: 1, Repetitions: 2, MaxBatchOps: 1 << 32, NoisyFraction: 0.05, Mode: "quick"}
	return &Point{Spec: s, H: NewHarness(cfg, nil)}
}

// repeat is n copies of cpu.
func repeat(cpu, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = cpu
	}
	return out
}

// Every pattern and capacity Go has delivers every message exactly once, in order per producer (the
// ledger's check), on one CPU and with producers and consumers on two; the outcome is a team's for
// the teams.
func TestThroughputDeliversEveryMessage(t *testing.T) {
	parties := map[string][2]int{"seq": {1, 0}, "spsc": {1, 1}, "mpsc": {streamProducers, 1}, "mpmc": {streamProducers, streamProducers}}
	for pattern, pc := range parties {
		for _, capacity := range []string{"0", "1", "1024"} {
			if pattern == "seq" && capacity == "0" {
				continue
			}
			placements := map[string][]int{"same_cpu": repeat(0, pc[0]+pc[1])}
			if pc[1] > 0 {
				placements["other_core"] = append(repeat(0, pc[0]), repeat(1, pc[1])...)
			}
			for placement, cpus := range placements {
				p := quickPoint("msg.throughput", cpus, "impl", "chan", "pattern", pattern, "capacity", capacity, "placement", placement)
				shape, _, err := parseStream(p.Spec, []string{"chan"})
				if err != nil {
					t.Fatalf("%s: %v", p.Spec.Name(), err)
				}
				out, ledger := streamChan(p.H, shape, cpus)
				if err := ledger.check("chan"); err != nil {
					t.Fatalf("%s: %v", p.Spec.Name(), err)
				}
				if ledger.sent[0].messages == 0 || len(out.M.TestNs) != 2 || out.Per != 1 {
					t.Fatalf("%s: %+v", p.Spec.Name(), out)
				}
				if !shape.seq && len(out.PerThreadTestNs) != pc[0]+pc[1] {
					t.Fatalf("%s: %d members' rows", p.Spec.Name(), len(out.PerThreadTestNs))
				}
				if out, err := msgThroughput(p); err != nil || out.M.N == 0 {
					t.Fatalf("%s: %v", p.Spec.Name(), err)
				}
			}
		}
	}
}

// The consumers' check catches a message out of order, a duplicate, a loss and a stranger's tag.
func TestThroughputLedgerCatchesFaults(t *testing.T) {
	receive := func(producers int, values ...uint64) streamStats {
		ch := make(chan uint64, len(values))
		for _, v := range values {
			ch <- v
		}
		var st streamStats
		consume(ch, producers, uint64(len(values)), &st)
		return st
	}
	one := uint64(1) << tagShift
	if st := receive(2, 0, one, 1, one|1, 2); st.disorder != 0 || st.messages != 5 || st.sum != 3+2*one+1 {
		t.Fatalf("in order per producer: %+v", st)
	}
	for name, values := range map[string][]uint64{
		"reordered":  {0, 2, 1},
		"duplicated": {0, 1, 1},
		"stranger":   {0, 5 * one},
	} {
		if st := receive(2, values...); st.disorder == 0 {
			t.Errorf("%s: %+v", name, st)
		}
	}
	sent := streamStats{messages: 3, sum: 0 + 1 + 2}
	lost := &streamLedger{sent: []streamStats{sent}, received: []streamStats{receive(1, 0, 1)}}
	if err := lost.check("chan"); err == nil || !strings.Contains(err.Error(), "sent 3") {
		t.Errorf("a lost message: %v", err)
	}
	swapped := &streamLedger{sent: []streamStats{sent}, received: []streamStats{receive(1, 0, 1, 3)}}
	if err := swapped.check("chan"); err == nil {
		t.Error("a message replaced by another passed")
	}
}

// msg.throughput's parameters and CPUs are checked, and a capacity Go does not have is refused by name.
func TestThroughputRefuses(t *testing.T) {
	for _, tc := range []struct {
		cpus   []int
		params []string
		want   string
	}{
		{[]int{0, 0}, []string{"impl", "chan", "pattern", "spsc", "capacity", "unbounded", "placement", "same_cpu"}, "Go has no unbounded channel"},
		{[]int{0}, []string{"impl", "chan", "pattern", "seq", "capacity", "0", "placement", "same_cpu"}, "wait forever"},
		{[]int{0}, []string{"impl", "chan", "pattern", "seq", "capacity", "1", "placement", "other_core"}, "does not apply"},
		{[]int{0, 0}, []string{"impl", "flume", "pattern", "spsc", "capacity", "1", "placement", "same_cpu"}, "impl:flume is not one of chan"},
		{[]int{0, 0}, []string{"impl", "chan", "pattern", "spsc", "capacity", "7", "placement", "same_cpu"}, "capacity:7 is not one of"},
		{[]int{0, 0}, []string{"impl", "chan", "pattern", "mpsc", "capacity", "1", "placement", "same_cpu"}, "need 5 CPUs"},
		{[]int{0, 1}, []string{"impl", "chan", "pattern", "spsc", "capacity", "1", "placement", "same_cpu"}, "one CPU for every party"},
		{[]int{0, 0}, []string{"impl", "chan", "pattern", "spsc", "capacity", "1", "placement", "other_core"}, "consumers on another"},
		{[]int{0, 1, 0, 0, 1}, []string{"impl", "chan", "pattern", "mpsc", "capacity", "1", "placement", "other_core"}, "consumers on another"},
		{[]int{0, 0}, []string{"impl", "chan", "pattern", "spsc", "capacity", "1"}, `needs parameter "placement"`},
	} {
		s := spec("msg.throughput", tc.params...)
		s.Cpus = tc.cpus
		if _, _, err := parseStream(s, []string{"chan"}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: error %v, want %q", s.Name(), tc.cpus, err, tc.want)
		}
	}
}

// sync.rwlock: every writers share runs on a team and loses no update; the write rule's count is the
// closed form the check uses.
func TestRwlock(t *testing.T) {
	for _, w := range []int{1, 10, 50} {
		every := uint64(100 / w)
		for n := uint64(0); n < 1000; n++ {
			writes := uint64(0)
			for i := uint64(0); i < n; i++ {
				if int(i*uint64(w))%100 < w {
					writes++
				}
			}
			if writes != (n+every-1)/every {
				t.Fatalf("writers:%d n=%d: %d writes, closed form %d", w, n, writes, (n+every-1)/every)
			}
		}
		for _, cpus := range [][]int{{0}, {0, 1}} {
			p := quickPoint("sync.rwlock", cpus, "lock", "rw_mutex", "writers", strconv.Itoa(w), "threads", strconv.Itoa(len(cpus)))
			out, err := syncRwlock(p)
			if err != nil || len(out.PerThreadTestNs) != len(cpus) {
				t.Fatalf("%s: %v %+v", p.Spec.Name(), err, out)
			}
		}
	}
	p := quickPoint("sync.rwlock", []int{0}, "lock", "rw_mutex", "writers", "5", "threads", "1")
	if _, err := syncRwlock(p); err == nil || !strings.Contains(err.Error(), "writers:5 is not one of 1, 10, 50") {
		t.Errorf("writers:5: %v", err)
	}
}
