package overhead.probe;

import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.SynchronousQueue;

/**
 * msg.throughput (crates/runtimes/src/channel_throughput.rs), in the shape of crossbeam-channel's
 * benchmark suite: producers stream a batch's n messages through one java.util.concurrent queue to
 * consumers, per message delivered. {@code pattern:seq} is one activity that puts up to the queue's
 * capacity (all n when unbounded) and then takes what it put; spsc, mpsc and mpmc are a team ({@link Team})
 * of {@link #PRODUCERS} or 1 producers and as many or 1 consumers, members 0… the producers, then the
 * consumers, all platform or all virtual threads. A batch's n messages are split evenly over the producers
 * (the remainder to the first) and taken in fixed quotas split the same way over the consumers (the suite's
 * MESSAGES / THREADS), so every batch empties the queue. Messages are {@code Long}s tagged
 * {@code producer << TAG_SHIFT | sequence}, made before they are timed (each producer's row grows with the
 * batch while the harness sizes it, never in a kept batch), so the numbers are the queues' and not boxing's;
 * the consumers check every message arrives exactly once and in order per producer, or the point is an error.
 */
final class ThroughputFamily {
    private ThroughputFamily() {
    }

    /** Producers of mpsc and mpmc, consumers of mpmc: crossbeam-channel's suite's THREADS (Pattern::PRODUCERS). */
    static final int PRODUCERS = 4;
    /** The producer's index sits above a message's sequence number (below 2^48 in any batch). */
    static final int TAG_SHIFT = 48;
    /** Longs between two parties' stats: 128 bytes, two cache lines. */
    static final int STRIDE = 16;

    /** The queues (impl: values) and the capacities each has, in the Rust side's ChannelImpl::has_capacity. */
    static final List<String> IMPLS = List.of("synchronous_queue", "array_blocking_queue", "linked_blocking_queue",
            "linked_transfer_queue");

    /** The capacities impl has ("0", "1", "1024", "unbounded"). */
    static List<String> capacities(String impl) {
        switch (impl) {
            case "synchronous_queue":
                return List.of("0");
            case "array_blocking_queue":
                return List.of("1", "1024");
            case "linked_blocking_queue":
                return List.of("1", "1024", "unbounded");
            default:
                return List.of("unbounded");
        }
    }

    /**
     * A point's parties and queue: seq (one activity, producers 1, consumers 0), or a team; the queue's
     * impl and capacity (-1: unbounded).
     */
    record Shape(String impl, boolean seq, int producers, int consumers, int capacity) {
        /** A new, empty queue of this shape. */
        BlockingQueue<Long> queue() {
            switch (impl) {
                case "synchronous_queue":
                    return new SynchronousQueue<>();
                case "array_blocking_queue":
                    return new ArrayBlockingQueue<>(capacity);
                case "linked_blocking_queue":
                    return capacity < 0 ? new LinkedBlockingQueue<>() : new LinkedBlockingQueue<>(capacity);
                default:
                    return new LinkedTransferQueue<>();
            }
        }
    }

    /**
     * Checks a msg.throughput point: impl, pattern, capacity (one impl has; others refused with the ones it
     * has), placement, and spec.cpus: one CPU per party, producers first (seq: one CPU); same_cpu all equal,
     * other_core the producers on one CPU and the consumers on another.
     */
    static Shape parse(Job.Spec spec) throws ProbeException {
        Params params = Params.parse(spec, Params.Rule.of("impl", IMPLS.toArray(new String[0])),
                Params.Rule.of("pattern", "seq", "spsc", "mpsc", "mpmc"), Params.Rule.of("capacity", "0", "1", "1024", "unbounded"),
                Params.Rule.of("placement", "same_cpu", "other_core"));
        String impl = params.get("impl");
        String capacity = params.get("capacity");
        if (!capacities(impl).contains(capacity)) {
            throw new ProbeException(spec.name() + ": " + impl + " has no capacity:" + capacity + " (it has capacity:"
                    + String.join(", ", capacities(impl)) + ")");
        }
        int cap = capacity.equals("unbounded") ? -1 : Integer.parseInt(capacity);
        String pattern = params.get("pattern");
        int producers = pattern.equals("seq") || pattern.equals("spsc") ? 1 : PRODUCERS;
        int consumers = pattern.equals("seq") ? 0 : pattern.equals("mpmc") ? PRODUCERS : 1;
        boolean seq = pattern.equals("seq");
        if (seq && cap == 0) {
            throw new ProbeException(spec.name() + ": pattern:seq needs a queue that holds messages: its one activity would wait forever on capacity:0");
        }
        List<Integer> cpus = spec.cpus();
        if (cpus.size() != producers + consumers) {
            throw new ProbeException(spec.name() + ": " + producers + " producer(s) and " + consumers + " consumer(s) need "
                    + (producers + consumers) + " CPUs, one per party; cpus " + cpus);
        }
        boolean sameCpu = params.get("placement").equals("same_cpu");
        if (sameCpu && !allEqual(cpus, cpus.get(0))) {
            throw new ProbeException(spec.name() + ": placement:same_cpu needs one CPU for every party; cpus " + cpus);
        }
        if (!sameCpu && seq) {
            throw new ProbeException(spec.name() + ": pattern:seq is one activity: placement:other_core does not apply");
        }
        if (!sameCpu && (!allEqual(cpus.subList(0, producers), cpus.get(0)) || !allEqual(cpus.subList(producers, cpus.size()), cpus.get(producers))
                || cpus.get(0).equals(cpus.get(producers)))) {
            throw new ProbeException(spec.name() + ": placement:other_core needs the producers on one CPU and the consumers on another; cpus " + cpus);
        }
        return new Shape(impl, seq, producers, consumers, cap);
    }

    /** Whether every CPU of list is c. */
    private static boolean allEqual(List<Integer> list, int c) {
        for (int x : list) {
            if (x != c) {
                return false;
            }
        }
        return true;
    }

    /** Party index's part of n split over parties: n / parties, the remainder to the first. */
    static long share(long n, int index, int parties) {
        return n / parties + (index == 0 ? n % parties : 0);
    }

    /**
     * What every party sent or received over all its batches, one 128-byte slot each (producers' slots
     * first, then consumers'): [MESSAGES] count, [SUM] the values' sum (mod 2^64), [DISORDER] receipts out of
     * order (a sequence not above the last this consumer had from that producer, or no such producer).
     */
    static final class Ledger {
        static final int MESSAGES = 0;
        static final int SUM = 1;
        static final int DISORDER = 2;
        final int producers;
        final long[] stats;
        /** Per consumer, per producer: the least sequence the consumer may still take in this batch. */
        final long[][] next;

        /** An empty ledger for producers and consumers (seq: one producer and one consumer, the same activity). */
        Ledger(int producers, int consumers) {
            this.producers = producers;
            this.stats = new long[STRIDE * (producers + consumers)];
            this.next = new long[Math.max(consumers, 1)][PRODUCERS];
        }

        /** The offset of producer index's slot. */
        int sent(int index) {
            return STRIDE * index;
        }

        /** The offset of consumer index's slot. */
        int received(int index) {
            return STRIDE * (producers + index);
        }

        /**
         * Null when every message sent was received exactly once and in order per producer (as many receipts
         * as sends, the same sum of tagged values, none out of order), else what went wrong; what names the queue.
         */
        String problem(String what) {
            long sent = 0, sentSum = 0, got = 0, gotSum = 0, disorder = 0;
            for (int i = 0; i < producers; i++) {
                sent += stats[sent(i) + MESSAGES];
                sentSum += stats[sent(i) + SUM];
            }
            for (int off = received(0); off < stats.length; off += STRIDE) {
                got += stats[off + MESSAGES];
                gotSum += stats[off + SUM];
                disorder += stats[off + DISORDER];
            }
            if (sent == got && sentSum == gotSum && disorder == 0) {
                return null;
            }
            return what + " lost, duplicated or reordered messages: sent " + sent + " (sum " + Long.toHexString(sentSum) + "), received "
                    + got + " (sum " + Long.toHexString(gotSum) + "), " + disorder + " out of order";
        }
    }

    /** Each producer's messages, {@code rows[p][s] = p << TAG_SHIFT | s}, grown to the largest share asked. */
    static final class Messages {
        private final Long[][] rows;

        /** No messages yet for producers producers. */
        Messages(int producers) {
            rows = new Long[producers][0];
        }

        /** Producer p's row, holding at least count messages (grown, and so allocated, only when short). */
        Long[] row(int p, long count) {
            Long[] row = rows[p];
            if (row.length < count) {
                if (count > Integer.MAX_VALUE - 8) {
                    throw new IllegalStateException("a batch of " + count + " messages a producer is beyond a Java array");
                }
                Long[] grown = java.util.Arrays.copyOf(row, (int) count);
                for (int s = row.length; s < grown.length; s++) {
                    grown[s] = ((long) p << TAG_SHIFT) | s;
                }
                rows[p] = grown;
                row = grown;
            }
            return row;
        }
    }

    /** Puts row[from…from+count-1] on q; producer p's slot in ledger counts them. */
    static void produce(BlockingQueue<Long> q, Long[] row, int from, long count, Ledger ledger, int p) throws InterruptedException {
        long sum = 0;
        int end = (int) (from + count);
        for (int s = from; s < end; s++) {
            Long v = row[s];
            q.put(v);
            sum += v;
        }
        int off = ledger.sent(p);
        ledger.stats[off + Ledger.MESSAGES] += count;
        ledger.stats[off + Ledger.SUM] += sum;
    }

    /** Takes count messages from q, checking each producer's sequence rises; consumer c's slot counts them. */
    static void consume(BlockingQueue<Long> q, int producers, long count, Ledger ledger, int c) throws InterruptedException {
        long[] next = ledger.next[c];
        java.util.Arrays.fill(next, 0);
        long sum = 0, disorder = 0;
        for (long i = 0; i < count; i++) {
            long v = q.take();
            sum += v;
            int p = (int) (v >>> TAG_SHIFT);
            long s = v & ((1L << TAG_SHIFT) - 1);
            if (p >= producers || s < next[p]) {
                disorder++;
                continue;
            }
            next[p] = s + 1;
        }
        int off = ledger.received(c);
        ledger.stats[off + Ledger.MESSAGES] += count;
        ledger.stats[off + Ledger.SUM] += sum;
        ledger.stats[off + Ledger.DISORDER] += disorder;
    }

    /** A measured stream: the outcome and every party's ledger. */
    record Stream(Outcome outcome, Ledger ledger) {
    }

    /**
     * Measures shape on one new queue with act's activities on cpus (one per party): seq in the calling
     * activity, a team otherwise (members yield at the barrier when CPUs repeat). Per message delivered.
     */
    static Stream stream(Harness h, Activities act, Shape shape, List<Integer> cpus) throws Exception {
        BlockingQueue<Long> q = shape.queue();
        Ledger ledger = new Ledger(shape.producers(), Math.max(shape.consumers(), 1));
        Messages messages = new Messages(shape.producers());
        if (shape.seq()) {
            long chunk = shape.capacity() < 0 ? Long.MAX_VALUE : shape.capacity();
            Harness.Batch test = n -> {
                Long[] row = messages.row(0, n);
                for (long done = 0; done < n;) {
                    long k = Math.min(chunk, n - done);
                    // One activity: put what the queue holds, then take it back (crossbeam-channel's seq).
                    produce(q, row, (int) done, k, ledger, 0);
                    consume(q, 1, k, ledger, 0);
                    done += k;
                }
            };
            return new Stream(new Outcome(h.measure(test, Loops::emptyLoop), 1), ledger);
        }
        int producers = shape.producers();
        int consumers = shape.consumers();
        Team.Body test = (member, n) -> {
            if (member < producers) {
                long count = share(n, member, producers);
                produce(q, messages.row(member, count), 0, count, ledger, member);
            } else {
                int c = member - producers;
                consume(q, producers, share(n, c, consumers), ledger, c);
            }
        };
        boolean shares = new java.util.HashSet<>(cpus).size() < cpus.size();
        return new Stream(Team.measure(h, act, cpus, shares, test, Team::emptyLoop).outcome(), ledger);
    }

    /**
     * msg.throughput: a stream through impl's queue (synchronous_queue: capacity 0; array_blocking_queue: 1,
     * 1024; linked_blocking_queue: 1, 1024, unbounded; linked_transfer_queue: unbounded), put and take, in
     * {@link #parse}'s shape. Per message delivered (per = 1): a seq batch from its first put to its last
     * take; a team batch from the start barrier to the slowest party's end, against the control loop on
     * every party.
     */
    static Outcome throughput(Point p) throws Exception {
        Shape shape = parse(p.spec);
        Stream s = stream(p.h, p.act, shape, p.spec.cpus());
        String problem = s.ledger().problem(shape.impl() + " (capacity " + (shape.capacity() < 0 ? "unbounded" : shape.capacity()) + ")");
        if (problem != null) {
            throw p.error(problem);
        }
        if (!shape.seq()) {
            p.note(p.act.virtual
                    ? "virtual threads on " + p.spec.distinctCpus() + " carrier(s): the scheduler, not the probe, decides which carrier runs each producer and consumer"
                    : "Java cannot pin platform threads: the " + p.spec.cpus().size() + " parties run where the kernel puts them within CPUs "
                            + new java.util.TreeSet<>(p.spec.cpus()));
        }
        return s.outcome();
    }
}
