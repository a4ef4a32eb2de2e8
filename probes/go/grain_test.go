package main

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// grainJob is a grain.sweep job on the first allowed CPU with the given parameters.
func grainJob(t *testing.T, params string) string {
	cpu := 0
	if allowed, err := allowedCpus(); err == nil && len(allowed) > 0 {
		cpu = allowed[0]
	}
	return `{"v":2,"spec":{"experiment":"grain.sweep","runtime":"go","params":` + params +
		`,"cpus":[` + itoa(cpu) + `]},"time_source":{},` +
		`"harness":{"target_batch_ns":20000.0,"warmup":1,"repetitions":3,"max_batch_ops":4294967296,"noisy_fraction":0.05,"mode":"quick"}}`
}

// itoa formats a small non-negative int.
func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// converse runs the whole probe on a grain.sweep job with `requests` as its stdin and returns the exit
// status and the lines it wrote.
func converse(t *testing.T, job, requests string) (int, []map[string]interface{}) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0)) // run() sets it to the job's CPU count
	saved := conversationInput
	conversationInput = strings.NewReader(requests)
	defer func() { conversationInput = saved }()
	var out, errOut strings.Builder
	status := run([]string{"--job", job}, &out, &errOut)
	var lines []map[string]interface{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var msg map[string]interface{}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("unreadable line %q: %v", line, err)
		}
		lines = append(lines, msg)
	}
	return status, lines
}

// The conversation: notes, then ready, then one runs line per request with as many runs and controls
// as asked and every task counted once; EOF ends it with status 0 and no further line.
func TestGrainConversationAnswersEveryRequest(t *testing.T) {
	status, lines := converse(t, grainJob(t, `[["threads","1"],["work","1000"]]`),
		"{\"tasks\":10,\"runs\":2}\n\n{\"tasks\":1,\"runs\":3}\n")
	if status != 0 {
		t.Fatalf("status %d: %v", status, lines)
	}
	var rest []map[string]interface{}
	for i, msg := range lines {
		if msg["type"] == "ready" {
			rest = lines[i+1:]
			break
		}
		if msg["type"] != "note" {
			t.Fatalf("line %d before ready: %v", i, msg)
		}
	}
	if len(rest) != 2 {
		t.Fatalf("after ready: %v", rest)
	}
	for i, want := range []struct{ tasks, runs float64 }{{10, 2}, {1, 3}} {
		msg := rest[i]
		if msg["type"] != "runs" || msg["tasks"] != want.tasks ||
			len(msg["test_ns"].([]interface{})) != int(want.runs) || len(msg["control_ns"].([]interface{})) != int(want.runs) {
			t.Fatalf("answer %d: %v", i, msg)
		}
		total := msg["other_count"].(float64)
		for _, pair := range msg["cpu_counts"].([]interface{}) {
			total += pair.([]interface{})[1].(float64)
		}
		if total != want.tasks*want.runs {
			t.Errorf("answer %d counts %v tasks, want %v: %v", i, total, want.tasks*want.runs, msg)
		}
	}
}

// Malformed requests and bad parameters are an error line and status 1.
func TestGrainConversationRefusesBadInput(t *testing.T) {
	good := grainJob(t, `[["threads","1"],["work","1000"]]`)
	for _, request := range []string{
		`{"tasks":0,"runs":1}`, `{"tasks":1,"runs":0}`, `{"tasks":1}`, `{"tasks":1,"runs":1,"x":2}`,
		`{"tasks":-1,"runs":1}`, `{"tasks":1.5,"runs":1}`, `not json`, `{"tasks":1,"runs":1} {}`,
	} {
		status, lines := converse(t, good, request+"\n")
		last := lines[len(lines)-1]
		if status != 1 || last["type"] != "error" {
			t.Errorf("request %s: status %d, last line %v", request, status, last)
		}
	}
	for _, params := range []string{
		`[["threads","2"],["work","1000"]]`, `[["threads","1"],["work","0"]]`, `[["threads","1"]]`,
		`[["threads","1"],["work","x"]]`, `[["threads","1"],["work","10"],["load","1"]]`,
	} {
		status, lines := converse(t, grainJob(t, params), "")
		if status != 1 || lines[0]["type"] != "error" {
			t.Errorf("params %s: status %d, lines %v", params, status, lines)
		}
	}
}

// One run of K tasks counts exactly K tasks, and the counters are zero after they are taken.
func TestGrainRunCountsEveryTask(t *testing.T) {
	g := newGrainWork(1000, 3)
	g.run(7)
	g.run(1)
	cpus, other := g.takeCounts()
	if total := countTotal(cpus, other); total != 8 {
		t.Fatalf("%d tasks counted (%v, other %d), want 8", total, cpus, other)
	}
	if cpus, other := g.takeCounts(); len(cpus) != 0 || other != 0 {
		t.Fatalf("counters not zeroed: %v, other %d", cpus, other)
	}
}

// A goroutine locked to a thread pinned to a CPU reads that CPU (RDTSCP's TSC_AUX), on every allowed
// CPU: the assembly returns the kernel's CPU number, not a constant or another register.
func TestTaskCpuIsThePinnedCpu(t *testing.T) {
	if !canReadCpu {
		t.Skip("no RDTSCP on this CPU: taskCpu reports unknown")
	}
	allowed, err := allowedCpus()
	if err != nil {
		t.Skip("no affinity here:", err)
	}
	for _, cpu := range allowed {
		done := make(chan string)
		go func(cpu int) {
			// pinGoroutine locks the goroutine to its thread for good; the thread ends with it.
			if err := pinGoroutine(cpu); err != nil {
				done <- err.Error()
				return
			}
			got, ok := taskCpu()
			if !ok || got != cpu {
				done <- "pinned to CPU " + itoa(cpu) + ", taskCpu says " + itoa(got)
				return
			}
			done <- ""
		}(cpu)
		if msg := <-done; msg != "" {
			t.Error(msg)
		}
	}
}
