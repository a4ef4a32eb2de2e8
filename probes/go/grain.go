package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// grain: Ben-Asher & Feitelson 1991 §7's granularity sweep (crates/experiments/src/grain/) as a conversation (probes/README.md
// "grain.sweep"): the search stays in Rust, which asks this probe over stdin for timed runs of the
// point's work split into K goroutines, and the probe answers each request with the runs' times and
// where the tasks ran.

// conversationInput is where grain.sweep's requests come from: the probe's stdin (tests substitute a
// reader).
var conversationInput io.Reader = os.Stdin

// grainShared is the variable every task reads (Ben-Asher & Feitelson's `n = g`). It stays 0.
var grainShared uint64

// grainSink receives a task's sum only if it is impossible (the sum is 0), which the compiler cannot
// know: the reads stay live without a store per task.
var grainSink uint64

// maxRunsPerRequest bounds one request's runs (the Rust sweep asks for at most a few dozen).
const maxRunsPerRequest = 1 << 20

// grainWork is the point's fixed work and the per-CPU task counters of the runs since the last answer.
type grainWork struct {
	reads uint64
	// counts: index = CPU (0..maxCpu); the last slot counts tasks on other CPUs or of unknown CPU. Each
	// alone on 128 bytes (contention.go's paddedCounter), so counting on one CPU leaves another's line.
	counts []paddedCounter
}

// newGrainWork makes the work of `reads` reads with counters for CPUs 0..maxCpu.
func newGrainWork(reads uint64, maxCpu int) *grainWork {
	return &grainWork{reads: reads, counts: make([]paddedCounter, maxCpu+2)}
}

// task is one task: its reads of the shared variable, then one count for the CPU it ran on (read once,
// after the reads, as the study's `res[exp][get_pid()]++`), then its end on wg.
func (g *grainWork) task(reads uint64, wg *sync.WaitGroup) {
	var s uint64
	for i := uint64(0); i < reads; i++ {
		s += atomic.LoadUint64(&grainShared)
	}
	if s != 0 {
		grainSink = s
	}
	slot := len(g.counts) - 1
	if cpu, ok := taskCpu(); ok && cpu < slot {
		slot = cpu
	}
	atomic.AddInt64(&g.counts[slot].v, 1)
	wg.Done()
}

// run is one whole run: the main goroutine `go`es `tasks` goroutines of reads/tasks reads each (the
// remainder dropped, as the Rust side's reads_per_task) and waits for all on one WaitGroup.
func (g *grainWork) run(tasks uint64) {
	reads := g.reads / tasks
	var wg sync.WaitGroup
	wg.Add(int(tasks))
	for k := uint64(0); k < tasks; k++ {
		go g.task(reads, &wg)
	}
	wg.Wait()
}

// takeCounts returns the tasks per CPU since the last call as [cpu, n] pairs (CPUs with none left out)
// and the other count, and zeroes the counters. Call it while no task runs.
func (g *grainWork) takeCounts() ([][2]uint64, uint64) {
	cpus := [][2]uint64{}
	last := len(g.counts) - 1
	for cpu := 0; cpu < last; cpu++ {
		if n := atomic.SwapInt64(&g.counts[cpu].v, 0); n > 0 {
			cpus = append(cpus, [2]uint64{uint64(cpu), uint64(n)})
		}
	}
	return cpus, uint64(atomic.SwapInt64(&g.counts[last].v, 0))
}

// runsRequest is one line of the conversation's input; pointers tell a missing field from a zero.
type runsRequest struct {
	Tasks *uint64 `json:"tasks"`
	Runs  *uint64 `json:"runs"`
}

// readyMessage says the runtime is set up and requests may come.
type readyMessage struct {
	Type string `json:"type"`
	V    int    `json:"v"`
}

// runsMessage answers one request (probes/README.md "grain.sweep").
type runsMessage struct {
	Type       string      `json:"type"`
	V          int         `json:"v"`
	Tasks      uint64      `json:"tasks"`
	TestNs     []int64     `json:"test_ns"`
	ControlNs  []int64     `json:"control_ns"`
	CpuCounts  [][2]uint64 `json:"cpu_counts"`
	OtherCount uint64      `json:"other_count"`
}

// parseRunsRequest reads one request line strictly: a JSON object with exactly the integer fields tasks
// and runs, tasks ≥ 1, 1 ≤ runs ≤ maxRunsPerRequest.
func parseRunsRequest(line string) (uint64, uint64, error) {
	dec := json.NewDecoder(strings.NewReader(line))
	dec.DisallowUnknownFields()
	var req runsRequest
	if err := dec.Decode(&req); err != nil {
		return 0, 0, fmt.Errorf("grain.sweep: request %q: %v", line, err)
	}
	if dec.More() {
		return 0, 0, fmt.Errorf("grain.sweep: request %q: more than one JSON value on the line", line)
	}
	if req.Tasks == nil || req.Runs == nil {
		return 0, 0, fmt.Errorf("grain.sweep: request %q: needs both tasks and runs", line)
	}
	if *req.Tasks < 1 || *req.Runs < 1 || *req.Runs > maxRunsPerRequest {
		return 0, 0, fmt.Errorf("grain.sweep: request %q: tasks must be ≥ 1 and runs from 1 to %d", line, maxRunsPerRequest)
	}
	return *req.Tasks, *req.Runs, nil
}

// grainPoint checks grain.sweep's parameters: threads:T equal to the number of the point's CPUs, and
// work:W reads, W ≥ 1. It returns W.
func grainPoint(p *Point) (uint64, error) {
	params, err := ParseParams(p.Spec, []ParamRule{{"threads", nil}, {"work", nil}})
	if err != nil {
		return 0, err
	}
	threads, err := params.Int(p.Spec, "threads", 1)
	if err != nil {
		return 0, err
	}
	if threads != len(p.Spec.Cpus) {
		return 0, fmt.Errorf("%s: threads:%d but %d CPUs %v", p.Spec.Name(), threads, len(p.Spec.Cpus), p.Spec.Cpus)
	}
	work, err := strconv.ParseUint(params["work"], 10, 64)
	if err != nil || work < 1 {
		return 0, fmt.Errorf("%s: work:%s is not an integer ≥ 1", p.Spec.Name(), params["work"])
	}
	return work, nil
}

// grainConversation answers the Rust sweep: a ready line, then per request line on in, `runs` runs of
// `tasks` tasks, each after an empty control (two clock reads back to back), answered with one runs
// line; it returns nil at EOF. Notes of the point (GOMAXPROCS, affinity) go out before ready.
func grainConversation(p *Point, in io.Reader, out io.Writer) error {
	work, err := grainPoint(p)
	if err != nil {
		return err
	}
	maxCpu := 0
	for _, c := range p.Spec.Cpus {
		if c > maxCpu {
			maxCpu = c
		}
	}
	g := newGrainWork(work, maxCpu)
	for _, n := range p.Notes {
		WriteNote(out, n)
	}
	if !canReadCpu {
		WriteNote(out, "this CPU has no RDTSCP: the probe cannot tell a task's CPU, every task is counted as other")
	}
	writeLine(out, readyMessage{"ready", ProtocolVersion})
	scanner := bufio.NewScanner(in)
	scanner.Buffer(make([]byte, 0, 4096), 1<<20)
	now := p.H.now
	for scanner.Scan() {
		line := strings.TrimSpace(scanner.Text())
		if line == "" {
			continue
		}
		tasks, runs, err := parseRunsRequest(line)
		if err != nil {
			return err
		}
		answer := runsMessage{Type: "runs", V: ProtocolVersion, Tasks: tasks,
			TestNs: make([]int64, runs), ControlNs: make([]int64, runs)}
		for r := uint64(0); r < runs; r++ {
			c0 := now()
			c1 := now()
			t0 := now()
			g.run(tasks)
			t1 := now()
			answer.ControlNs[r], answer.TestNs[r] = c1-c0, t1-t0
		}
		answer.CpuCounts, answer.OtherCount = g.takeCounts()
		if total := countTotal(answer.CpuCounts, answer.OtherCount); total != tasks*runs {
			return fmt.Errorf("grain.sweep: %d tasks counted in %d runs of %d", total, runs, tasks)
		}
		writeLine(out, answer)
	}
	if err := scanner.Err(); err != nil {
		return fmt.Errorf("grain.sweep: reading requests: %v", err)
	}
	return nil
}

// countTotal adds up an answer's task counts.
func countTotal(cpus [][2]uint64, other uint64) uint64 {
	for _, c := range cpus {
		other += c[1]
	}
	return other
}
