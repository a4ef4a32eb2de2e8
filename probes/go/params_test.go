package main

import (
	"strings"
	"testing"
)

// spec is a go point of experiment exp with key, value, … parameters on CPU 0.
func spec(exp string, params ...string) *Spec {
	s := &Spec{Experiment: exp, Runtime: "go", Cpus: []int{0}}
	for i := 0; i+1 < len(params); i += 2 {
		s.Params = append(s.Params, []string{params[i], params[i+1]})
	}
	return s
}

// Parameters are checked strictly: every required key once, allowed values only, no stranger.
func TestParseParams(t *testing.T) {
	rules := []ParamRule{{"op", []string{"p", "v"}}, {"threads", nil}, {"placement", []string{"same_cpu"}}}
	got, err := ParseParams(spec("x.y", "op", "v", "threads", "4"), rules, "placement")
	if err != nil || got["op"] != "v" || got["threads"] != "4" {
		t.Fatalf("%v %v", got, err)
	}
	if n, err := got.Int(spec("x.y"), "threads", 1); err != nil || n != 4 {
		t.Fatalf("Int: %d %v", n, err)
	}
	for _, tc := range []struct {
		s    *Spec
		want string
	}{
		{spec("x.y", "op", "q", "threads", "4"), "op:q is not one of p, v"},
		{spec("x.y", "op", "p"), `needs parameter "threads"`},
		{spec("x.y", "op", "p", "threads", "1", "colour", "red"), `unknown parameter "colour"`},
		{spec("x.y", "op", "p", "op", "v", "threads", "1"), `"op" given twice`},
		{spec("x.y", "op", "p", "threads", "1", "placement", "other_core"), "placement:other_core is not one of same_cpu"},
	} {
		if _, err := ParseParams(tc.s, rules, "placement"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.s.Name(), err, tc.want)
		}
	}
	if _, err := (Params{"threads": "0"}).Int(spec("x.y"), "threads", 1); err == nil {
		t.Error("threads:0 accepted")
	}
	if _, err := ParseParams(spec("base.loop", "k", "v"), nil); err == nil || !strings.Contains(err.Error(), "takes no parameters") {
		t.Errorf("base.loop with a parameter: %v", err)
	}
}

// The job reader rejects what the protocol does not allow and keeps what it does.
func TestParseJob(t *testing.T) {
	good := `{"v":2,"spec":{"experiment":"sync.sem","runtime":"go","params":[["op","switch"]],"cpus":[0,0],"placement":"same_cpu"},` +
		`"time_source":{"clock":{"kind":"tsc","hz":2445404139.02},"reason":"r","calibration_error_ppm":1.0,"read_cost_ns":23.8,"resolution_ns":20.0},` +
		`"harness":{"target_batch_ns":500000.0,"warmup":1,"repetitions":3,"max_batch_ops":4294967296,"noisy_fraction":0.05,"mode":"default"},"batch_ops_hint":1234}`
	job, err := ParseJob(good)
	if err != nil {
		t.Fatal(err)
	}
	if job.Spec.Name() != "sync.sem/runtime:go/op:switch" || *job.BatchOpsHint != 1234 || job.Spec.DistinctCpus() != 1 ||
		job.Harness.MaxBatchOps != 1<<32 || *job.Spec.Placement != "same_cpu" {
		t.Fatalf("%+v", job)
	}
	for _, bad := range []string{
		strings.Replace(good, `"v":2`, `"v":1`, 1),
		strings.Replace(good, `["op","switch"]`, `["op"]`, 1),
		strings.Replace(good, `"cpus":[0,0]`, `"cpus":[]`, 1),
		strings.Replace(good, `"mode":"default"`, `"mode":"fast"`, 1),
		strings.Replace(good, `"repetitions":3`, `"repetitions":"3"`, 1),
		`{"v":2,"spec":{}}`,
	} {
		if _, err := ParseJob(bad); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}
