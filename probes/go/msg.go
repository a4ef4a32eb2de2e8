package main

// msg: Souvatzis's message rows on goroutines (crates/experiments/src/msg/, crates/runtimes/src/os/primitives.rs).
// All two-party points run both goroutines on one P (GOMAXPROCS=1, placement:same_cpu): a switch
// between them is the Go scheduler's, not the kernel's.

// operation is what msg.call calls: one argument in, one result out.
func operation(x uint64) uint64 {
	return x + 1
}

// operationRef is operation behind a function value (Rust's `&dyn Fn`): a package-level variable, so
// the compiler cannot prove its value and calls it indirectly, never inlined.
var operationRef = operation

// answer is msg.call's new activity: it computes the operation and sends the result to its caller.
func answer(x uint64, out chan<- uint64) {
	out <- operation(x)
}

// implChan is the message rows' `impl:` key: Go's one channel implementation (optional: older jobs
// have no impl key).
var implChan = ParamRule{"impl", []string{"chan"}}

// init registers the family's experiments.
func init() {
	register("msg.call", msgCall)
	register("msg.async", msgAsync)
	register("msg.switch", msgSwitch)
	register("msg.rendezvous", msgRendezvous)
}

// sameCpuPair checks the parameters of a two-party point whose parties share one P: only
// placement:same_cpu (when the placement is given) and two equal CPUs.
func sameCpuPair(p *Point, rules ...ParamRule) (Params, error) {
	rules = append(rules, ParamRule{"placement", []string{"same_cpu"}})
	params, err := ParseParams(p.Spec, rules, "placement", "impl")
	if err != nil {
		return nil, err
	}
	if c := p.Spec.Cpus; len(c) > 2 || (len(c) == 2 && c[0] != c[1]) {
		return nil, errorf("%s: goroutines of this point share one P; cpus %v must be [home] or [home, home]", p.Spec.Name(), c)
	}
	return params, nil
}

// msgCall times Souvatzis's inter-task call: new_task:no calls operation through a function value in
// the caller's goroutine; new_task:yes starts a goroutine that computes it and sends the result on an
// unbuffered channel the caller receives from (spawn, switch, result, exit). Per call, against the
// control loop.
func msgCall(p *Point) (*Outcome, error) {
	params, err := ParseParams(p.Spec, []ParamRule{{"new_task", []string{"no", "yes"}}})
	if err != nil {
		return nil, err
	}
	if params["new_task"] == "no" {
		test := func(n uint64) {
			op := operationRef
			for i := uint64(0); i < n; i++ {
				sink = op(i)
			}
		}
		return &Outcome{M: p.H.Measure(test, emptyLoop), Per: 1}, nil
	}
	results := make(chan uint64)
	test := func(n uint64) {
		for i := uint64(0); i < n; i++ {
			go answer(i, results)
			sink = <-results
		}
	}
	return &Outcome{M: p.H.Measure(test, emptyLoop), Per: 1}, nil
}

// msgAsync times an asynchronous send and its receive by the same goroutine on a buffered channel
// (capacity 1): the receive never blocks and nothing switches. Per send + receive.
func msgAsync(p *Point) (*Outcome, error) {
	if _, err := ParseParams(p.Spec, []ParamRule{implChan}, "impl"); err != nil {
		return nil, err
	}
	ch := make(chan uint64, 1)
	test := func(n uint64) {
		for i := uint64(0); i < n; i++ {
			ch <- i
			sink = <-ch
		}
	}
	return &Outcome{M: p.H.Measure(test, emptyLoop), Per: 1}, nil
}

// msgSwitch times a message to a partner goroutine blocked receiving on an unbuffered channel, and its
// echo back on a second one: each message readies a blocked receiver and switches to it. Reported per
// message (per = 2: an iteration is a round trip).
func msgSwitch(p *Point) (*Outcome, error) {
	if _, err := sameCpuPair(p, implChan); err != nil {
		return nil, err
	}
	to, from := make(chan uint64), make(chan uint64)
	done := make(chan struct{})
	go func() {
		for v := range to {
			from <- v
		}
		close(done)
	}()
	test := func(n uint64) {
		for i := uint64(0); i < n; i++ {
			to <- i
			sink = <-from
		}
	}
	m := p.H.Measure(test, emptyLoop)
	close(to)
	<-done
	return &Outcome{M: m, Per: 2}, nil
}

// request is a call to the rendezvous server: its argument and the channel its reply goes to.
type request struct {
	x     uint64
	reply chan<- uint64
}

// msgRendezvous times Souvatzis's rendezvous: the client sends a request, carrying its reply channel,
// on an unbuffered channel to a server goroutine, which accepts it and sends x+1 back on the
// (unbuffered) reply channel; the client blocks until then. Per call.
func msgRendezvous(p *Point) (*Outcome, error) {
	if _, err := sameCpuPair(p, implChan); err != nil {
		return nil, err
	}
	requests := make(chan request)
	done := make(chan struct{})
	go func() {
		for r := range requests {
			r.reply <- r.x + 1
		}
		close(done)
	}()
	reply := make(chan uint64)
	test := func(n uint64) {
		for i := uint64(0); i < n; i++ {
			requests <- request{i, reply}
			sink = <-reply
		}
	}
	m := p.H.Measure(test, emptyLoop)
	close(requests)
	<-done
	return &Outcome{M: m, Per: 1}, nil
}
