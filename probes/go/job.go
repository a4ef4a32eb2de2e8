package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ProtocolVersion is the probe protocol version this probe speaks (crates/protocol/src/lib.rs).
const ProtocolVersion = 2

// Job is what the orchestrator asks for: measure one point with these harness settings. The job's
// time_source is ignored: the probe times with Go's monotonic clock.
type Job struct {
	V            int           `json:"v"`
	Spec         Spec          `json:"spec"`
	Harness      HarnessConfig `json:"harness"`
	BatchOpsHint *uint64       `json:"batch_ops_hint"`
}

// Spec names the point: experiment, runtime, parameters in the experiment's key order, the CPUs its
// activities run on (activity 0 first) and, for two-party points, how the first two CPUs relate.
type Spec struct {
	Experiment string     `json:"experiment"`
	Runtime    string     `json:"runtime"`
	Params     [][]string `json:"params"`
	Cpus       []int      `json:"cpus"`
	Placement  *string    `json:"placement"`
}

// HarnessConfig mirrors crates/harness/src/config.rs: batch target, warm-up and kept pairs, the op cap.
type HarnessConfig struct {
	TargetBatchNs float64 `json:"target_batch_ns"`
	Warmup        int     `json:"warmup"`
	Repetitions   int     `json:"repetitions"`
	MaxBatchOps   uint64  `json:"max_batch_ops"`
	NoisyFraction float64 `json:"noisy_fraction"`
	Mode          string  `json:"mode"`
	// CountedPairs is how many untimed pairs count the process's context switches after the kept ones
	// (0 in a job of an older orchestrator: nothing counted).
	CountedPairs int `json:"counted_pairs"`
}

// ParseJob decodes and checks a job. Unknown fields are allowed (time_source, later additions); a
// wrong type, a missing spec or harness field, or a protocol version other than 2 is an error.
func ParseJob(text string) (*Job, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &raw); err != nil {
		return nil, fmt.Errorf("job is not a JSON object: %v", err)
	}
	for _, key := range []string{"v", "spec", "harness"} {
		if _, ok := raw[key]; !ok {
			return nil, fmt.Errorf("job has no %q", key)
		}
	}
	var job Job
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	if err := dec.Decode(&job); err != nil {
		return nil, fmt.Errorf("job: %v", err)
	}
	if job.V != ProtocolVersion {
		return nil, fmt.Errorf("job speaks protocol v%d; this probe speaks v%d", job.V, ProtocolVersion)
	}
	for i, p := range job.Spec.Params {
		if len(p) != 2 {
			return nil, fmt.Errorf("spec.params[%d] is not a [key, value] pair", i)
		}
	}
	if len(job.Spec.Cpus) == 0 {
		return nil, fmt.Errorf("spec.cpus is empty")
	}
	h := job.Harness
	if h.TargetBatchNs <= 0 || h.Repetitions < 1 || h.Warmup < 0 || h.MaxBatchOps < 1 {
		return nil, fmt.Errorf("harness settings out of range: %+v", h)
	}
	switch h.Mode {
	case "quick", "default", "full":
	case "":
		job.Harness.Mode = "default"
	default:
		return nil, fmt.Errorf("harness.mode %q is not quick, default or full", h.Mode)
	}
	return &job, nil
}

// Name is the point's Google Benchmark-style name, experiment/runtime:R/key:value/…, for messages.
func (s *Spec) Name() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/runtime:%s", s.Experiment, s.Runtime)
	for _, p := range s.Params {
		fmt.Fprintf(&b, "/%s:%s", p[0], p[1])
	}
	return b.String()
}

// DistinctCpus is the number of different CPUs among spec.cpus: the GOMAXPROCS the point runs with.
func (s *Spec) DistinctCpus() int {
	seen := map[int]bool{}
	for _, c := range s.Cpus {
		seen[c] = true
	}
	return len(seen)
}

// Params checks a point's parameters against what its experiment takes: every key the experiment
// names must be present exactly once with one of its allowed values (nil allows any value), and no
// other key may appear. It returns the values by key. One error text names the point.
type Params map[string]string

// ParamRule is one parameter an experiment takes: its key and, when not nil, its allowed values.
type ParamRule struct {
	Key    string
	Values []string
}

// ParseParams decodes spec.params by rules (see Params); a key in optional may be absent.
func ParseParams(spec *Spec, rules []ParamRule, optional ...string) (Params, error) {
	out := Params{}
	allowed := map[string]ParamRule{}
	for _, r := range rules {
		allowed[r.Key] = r
	}
	for _, p := range spec.Params {
		k, v := p[0], p[1]
		rule, ok := allowed[k]
		if !ok {
			return nil, fmt.Errorf("%s: unknown parameter %q for %s (%s)", spec.Name(), k, spec.Experiment, ruleKeys(rules))
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("%s: parameter %q given twice", spec.Name(), k)
		}
		if rule.Values != nil && !contains(rule.Values, v) {
			return nil, fmt.Errorf("%s: %s:%s is not one of %s", spec.Name(), k, v, strings.Join(rule.Values, ", "))
		}
		out[k] = v
	}
	for _, r := range rules {
		if _, ok := out[r.Key]; !ok && !contains(optional, r.Key) {
			return nil, fmt.Errorf("%s: %s needs parameter %q", spec.Name(), spec.Experiment, r.Key)
		}
	}
	return out, nil
}

// Int reads parameter key as a positive integer (thread counts, loads, work units).
func (p Params) Int(spec *Spec, key string, min int) (int, error) {
	v, err := strconv.Atoi(p[key])
	if err != nil || v < min {
		return 0, fmt.Errorf("%s: %s:%s is not an integer ≥ %d", spec.Name(), key, p[key], min)
	}
	return v, nil
}

// ruleKeys says which keys rules take, for error messages.
func ruleKeys(rules []ParamRule) string {
	if len(rules) == 0 {
		return "takes no parameters"
	}
	keys := make([]string, 0, len(rules))
	for _, r := range rules {
		keys = append(keys, r.Key)
	}
	sort.Strings(keys)
	return "takes " + strings.Join(keys, ", ")
}

// contains reports whether list holds s.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// errorf is fmt.Errorf, short for the experiments' parameter and placement errors.
func errorf(format string, args ...interface{}) error {
	return fmt.Errorf(format, args...)
}
