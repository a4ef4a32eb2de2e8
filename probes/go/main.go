// Command probe is the Go external probe of overhead: it measures one point (an experiment on the
// `go` runtime) given as a JSON job and prints JSON lines, as probes/README.md describes.
//
//	probe --job '<JSON>'    measure the point; one final `batches` or `error` line on stdout
//	                        (grain.sweep: a conversation over stdin, probes/README.md)
//	probe --version         print "overhead-probe-go 1"
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
)

// Version is the probe's own version, printed by --version.
const Version = "overhead-probe-go 1"

// Point is what an experiment gets: the job's spec, the harness, and notes to attach to the result.
type Point struct {
	Spec  *Spec
	H     *Harness
	Notes []string
}

// Note adds a free-text note to the point's result.
func (p *Point) Note(format string, args ...interface{}) {
	p.Notes = append(p.Notes, fmt.Sprintf(format, args...))
}

// Experiment measures one point of one experiment.
type Experiment func(p *Point) (*Outcome, error)

// experiments is the registry: public experiment ID to its measurement on goroutines.
var experiments = map[string]Experiment{}

// register adds an experiment; each family's file calls it from init.
func register(id string, e Experiment) {
	if _, dup := experiments[id]; dup {
		panic("experiment registered twice: " + id)
	}
	experiments[id] = e
}

// main runs the probe and exits with run's status.
func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses the command line and measures the job; it returns the exit status (0, 1 for a job that
// ended in an error line, 2 for a usage error).
func run(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 1 && args[0] == "--version":
		fmt.Fprintln(stdout, Version)
		return 0
	case len(args) == 2 && args[0] == "--job":
		return runJob(args[1], stdout)
	case len(args) == 1 && strings.HasPrefix(args[0], "--job="):
		return runJob(strings.TrimPrefix(args[0], "--job="), stdout)
	default:
		fmt.Fprintf(stderr, "usage: probe --job '<JSON>' | --version (got %q)\n", args)
		return 2
	}
}

// runJob measures one job and writes its lines; a failure is an error line and status 1.
func runJob(text string, stdout io.Writer) (status int) {
	defer func() {
		if r := recover(); r != nil {
			WriteError(stdout, fmt.Sprintf("probe panicked: %v\n%s", r, debug.Stack()))
			status = 1
		}
	}()
	job, err := ParseJob(text)
	if err != nil {
		WriteError(stdout, err.Error())
		return 1
	}
	if job.Spec.Runtime != "go" {
		WriteError(stdout, fmt.Sprintf("runtime %q is not measured by the Go probe (it measures go)", job.Spec.Runtime))
		return 1
	}
	if job.Spec.Experiment == "grain.sweep" {
		p := &Point{Spec: &job.Spec, H: NewHarness(job.Harness, nil)}
		setUpProcess(p)
		if err := grainConversation(p, conversationInput, stdout); err != nil {
			WriteError(stdout, err.Error())
			return 1
		}
		return 0
	}
	exp, ok := experiments[job.Spec.Experiment]
	if !ok {
		WriteError(stdout, fmt.Sprintf("unknown experiment %q for runtime go (known: %s)", job.Spec.Experiment, knownExperiments()))
		return 1
	}
	p := &Point{Spec: &job.Spec, H: NewHarness(job.Harness, job.BatchOpsHint)}
	setUpProcess(p)
	resolution := p.H.ClockResolutionNs()
	out, err := exp(p)
	if err != nil {
		WriteError(stdout, err.Error())
		return 1
	}
	out.Notes = append(p.Notes, out.Notes...)
	line, err := BatchesLine(out, p.H.sized, resolution)
	if err != nil {
		WriteError(stdout, err.Error())
		return 1
	}
	fmt.Fprintf(stdout, "%s\n", line)
	return 0
}

// setUpProcess checks what the orchestrator promised: GOMAXPROCS equal to the number of distinct CPUs
// of the point (set here, with a note, when it is not), and a process affinity inside spec.cpus (a
// note when it is not: same-CPU points then run wherever the kernel puts the one P's thread). It
// then collects garbage once so no cycle left over from start-up lands in a batch, and settles (settle.go)
// so the runtime's monitor thread no longer wakes every 20 µs on the CPU being measured.
func setUpProcess(p *Point) {
	want := p.Spec.DistinctCpus()
	if got := runtime.GOMAXPROCS(0); got != want {
		runtime.GOMAXPROCS(want)
		p.Note("GOMAXPROCS was %d; set to %d, the point's distinct CPUs", got, want)
	}
	if allowed, err := allowedCpus(); err == nil {
		for _, c := range allowed {
			if !containsInt(p.Spec.Cpus, c) {
				p.Note("process may run on CPUs %v, not only the point's %v", allowed, p.Spec.Cpus)
				break
			}
		}
	}
	runtime.GC()
	settle(settleTime)
}

// knownExperiments lists the registry's IDs, sorted, for the unknown-experiment error.
func knownExperiments() string {
	ids := []string{"grain.sweep"}
	for id := range experiments {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return strings.Join(ids, ", ")
}

// containsInt reports whether list holds x.
func containsInt(list []int, x int) bool {
	for _, v := range list {
		if v == x {
			return true
		}
	}
	return false
}
