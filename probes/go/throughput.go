package main

import (
	"fmt"
	"strconv"
)

// msg.throughput (crates/runtimes/src/channel_throughput.rs), in the shape of crossbeam-channel's
// benchmark suite: producers stream a batch's n messages through one Go channel to consumers, per message
// delivered. pattern:seq is one goroutine that sends up to the channel's capacity and then receives what it
// sent; spsc, mpsc and mpmc are a team (team.go) of streamProducers or 1 producers and as many or 1
// consumers, members 0… the producers, then the consumers. A batch's n messages are split evenly over the
// producers (the remainder to the first) and received in fixed quotas split the same way over the consumers
// (as the suite's MESSAGES / THREADS), so every batch empties the channel. Members block, so they are not
// locked to threads (unlockedNote). Values are uint64s tagged (producer << tagShift | sequence), checked by
// the consumers: every message exactly once, in order per producer, or the point is an error.

// init registers the experiment.
func init() {
	register("msg.throughput", msgThroughput)
}

// streamProducers is the producers of mpsc and mpmc and the consumers of mpmc: crossbeam-channel's
// suite's THREADS (Pattern::PRODUCERS in crates/runtimes/src/channel_throughput.rs).
const streamProducers = 4

// tagShift places the producer's index above a message's sequence number (below 2^48 in any batch).
const tagShift = 48

// streamShape is a msg.throughput point's parties and channel.
type streamShape struct {
	// seq: one goroutine sends, then receives (producers 1, consumers 0).
	seq bool
	// producers and consumers of a team; consumers is 0 for seq.
	producers, consumers int
	// capacity is the channel's buffer in messages (0: unbuffered, every send waits for its receive).
	capacity int
}

// throughputCapacities are the capacity values of the contract, Go's and not.
var throughputCapacities = []string{"0", "1", "1024", "unbounded"}

// parseStream checks a msg.throughput point: impl (one of impls), pattern, capacity (one of capacities;
// unbounded refused for impl:chan with the reason) and placement, and spec.cpus: one CPU per party,
// producers first (seq: one CPU); same_cpu all equal, other_core the producers on one CPU and the
// consumers on another. It returns the parties and capacity and the params.
func parseStream(spec *Spec, impls []string) (streamShape, Params, error) {
	params, err := ParseParams(spec, []ParamRule{
		{"impl", impls},
		{"pattern", []string{"seq", "spsc", "mpsc", "mpmc"}},
		{"capacity", throughputCapacities},
		{"placement", []string{"same_cpu", "other_core"}},
	})
	if err != nil {
		return streamShape{}, nil, err
	}
	var s streamShape
	switch params["pattern"] {
	case "seq":
		s = streamShape{seq: true, producers: 1}
	case "spsc":
		s = streamShape{producers: 1, consumers: 1}
	case "mpsc":
		s = streamShape{producers: streamProducers, consumers: 1}
	default:
		s = streamShape{producers: streamProducers, consumers: streamProducers}
	}
	switch c := params["capacity"]; c {
	case "unbounded":
		return s, nil, errorf("%s: Go has no unbounded channel: a chan's capacity is fixed at make (capacity:0, 1 or 1024)", spec.Name())
	case "0":
		if s.seq {
			return s, nil, errorf("%s: pattern:seq needs a channel that holds messages: its one goroutine would wait forever on capacity:0", spec.Name())
		}
	default:
		s.capacity, _ = strconv.Atoi(c) // one of throughputCapacities' numbers
	}
	cpus := spec.Cpus
	if len(cpus) != s.producers+s.consumers {
		return s, nil, errorf("%s: %d producer(s) and %d consumer(s) need %d CPUs, one per party; cpus %v", spec.Name(),
			s.producers, s.consumers, s.producers+s.consumers, cpus)
	}
	sameAs := func(list []int, c int) bool {
		for _, x := range list {
			if x != c {
				return false
			}
		}
		return true
	}
	switch {
	case params["placement"] == "same_cpu" && !sameAs(cpus, cpus[0]):
		return s, nil, errorf("%s: placement:same_cpu needs one CPU for every party; cpus %v", spec.Name(), cpus)
	case params["placement"] == "other_core" && s.seq:
		return s, nil, errorf("%s: pattern:seq is one goroutine: placement:other_core does not apply", spec.Name())
	case params["placement"] == "other_core" && (!sameAs(cpus[:s.producers], cpus[0]) ||
		!sameAs(cpus[s.producers:], cpus[s.producers]) || cpus[0] == cpus[s.producers]):
		return s, nil, errorf("%s: placement:other_core needs the producers on one CPU and the consumers on another; cpus %v",
			spec.Name(), cpus)
	}
	return s, params, nil
}

// share is party index's part of n split over parties: n / parties, the remainder to the first.
func share(n uint64, index, parties int) uint64 {
	s := n / uint64(parties)
	if index == 0 {
		s += n % uint64(parties)
	}
	return s
}

// streamStats is what one party sent or received over all its batches, alone on 128 bytes: messages,
// the sum of their values (mod 2^64), and receipts out of order (a producer's sequence not above the
// last one this consumer had from that producer, or a producer index that does not exist).
type streamStats struct {
	messages uint64
	sum      uint64
	disorder uint64
	_        [104]byte
}

// streamLedger is every party's stats: producers' sends and consumers' receipts (seq: one of each).
type streamLedger struct {
	sent, received []streamStats
}

// check says whether every message sent was received exactly once and in order per producer: as many
// receipts as sends, the same sum of tagged values (a duplicate and a loss would differ), none out of
// order. what names the channel.
func (l *streamLedger) check(what string) error {
	var s, r streamStats
	for _, x := range l.sent {
		s.messages += x.messages
		s.sum += x.sum
	}
	for _, x := range l.received {
		r.messages += x.messages
		r.sum += x.sum
		r.disorder += x.disorder
	}
	if s.messages != r.messages || s.sum != r.sum || r.disorder != 0 {
		return fmt.Errorf("%s lost, duplicated or reordered messages: sent %d (sum %#x), received %d (sum %#x), %d out of order",
			what, s.messages, s.sum, r.messages, r.sum, r.disorder)
	}
	return nil
}

// produce sends count messages tagged with producer, sequences 0…count-1, on ch; st counts them.
func produce(ch chan<- uint64, producer int, count uint64, st *streamStats) {
	base := uint64(producer) << tagShift
	sum := uint64(0)
	for s := uint64(0); s < count; s++ {
		v := base | s
		ch <- v
		sum += v
	}
	st.messages += count
	st.sum += sum
}

// consume receives count messages from ch sent by producers producers, checking each producer's
// sequence rises; st counts them.
func consume(ch <-chan uint64, producers int, count uint64, st *streamStats) {
	var next [streamProducers]uint64 // per producer: the least sequence this consumer may still receive
	sum, disorder := uint64(0), uint64(0)
	for i := uint64(0); i < count; i++ {
		v := <-ch
		sum += v
		p, s := v>>tagShift, v&(1<<tagShift-1)
		if p >= uint64(producers) || s < next[p] {
			disorder++
			continue
		}
		next[p] = s + 1
	}
	st.messages += count
	st.sum += sum
	st.disorder += disorder
}

// msgThroughput times a stream of messages through a Go channel (impl:chan) of capacity 0, 1 or 1024
// (Go has no unbounded channel), in parseStream's shape. Per message delivered (per = 1): a seq batch
// from its first send to its last receive; a team batch is the stream's span, from the first party's start
// to the last party's end (the last receive, or a producer woken after it; MeasureStreamTeam), against the
// control loop on every party.
func msgThroughput(p *Point) (*Outcome, error) {
	shape, params, err := parseStream(p.Spec, []string{"chan"})
	if err != nil {
		return nil, err
	}
	out, ledger := streamChan(p.H, shape, p.Spec.Cpus)
	if err := ledger.check(fmt.Sprintf("chan (capacity %d)", shape.capacity)); err != nil {
		return nil, errorf("%s: %v", p.Spec.Name(), err)
	}
	if !shape.seq {
		out.Notes = append(out.Notes, unlockedNote)
		if params["placement"] == "other_core" {
			out.Notes = append(out.Notes, "placement:other_core gives Go two Ps (GOMAXPROCS=2) on the two CPUs; Go's "+
				"scheduler, not the probe, decides which P runs each producer and consumer")
		}
	}
	return out, nil
}

// streamChan measures shape on a channel of shape.capacity and returns the outcome and every party's stats.
func streamChan(h *Harness, shape streamShape, cpus []int) (*Outcome, *streamLedger) {
	ch := make(chan uint64, shape.capacity)
	if shape.seq {
		ledger := &streamLedger{sent: make([]streamStats, 1), received: make([]streamStats, 1)}
		chunk := uint64(shape.capacity)
		test := func(n uint64) {
			for done := uint64(0); done < n; {
				k := chunk
				if n-done < k {
					k = n - done
				}
				// One goroutine: send what the channel holds, then take it back (crossbeam-channel's seq).
				produceFrom(ch, done, k, &ledger.sent[0])
				consume(ch, 1, k, &ledger.received[0])
				done += k
			}
		}
		return &Outcome{M: h.Measure(test, emptyLoop), Per: 1}, ledger
	}
	ledger := &streamLedger{sent: make([]streamStats, shape.producers), received: make([]streamStats, shape.consumers)}
	test := func(member int, n uint64) {
		if member < shape.producers {
			produce(ch, member, share(n, member, shape.producers), &ledger.sent[member])
			return
		}
		c := member - shape.producers
		consume(ch, shape.producers, share(n, c, shape.consumers), &ledger.received[c])
	}
	return teamOutcome(h.MeasureStreamTeam(cpus, test, emptyTeamLoop)), ledger
}

// produceFrom is produce for seq's chunks: sequences from…from+count-1 of producer 0.
func produceFrom(ch chan<- uint64, from, count uint64, st *streamStats) {
	sum := uint64(0)
	for s := from; s < from+count; s++ {
		ch <- s
		sum += s
	}
	st.messages += count
	st.sum += sum
}
