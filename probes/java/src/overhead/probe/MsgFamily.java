package overhead.probe;

import java.util.concurrent.Exchanger;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.function.LongUnaryOperator;

/**
 * msg: Souvatzis's message rows (crates/experiments/src/msg/, crates/runtimes/src/os/primitives.rs). Two-party
 * points run both parties on one CPU: platform threads that the kernel switches, or virtual threads on
 * one carrier that the JDK's scheduler switches. Messages are preallocated objects, so the numbers are
 * the queues' and not autoboxing's.
 */
final class MsgFamily {
    private MsgFamily() {
    }

    /** msg.call's operation behind an interface reference; a non-final field, read every batch. */
    static LongUnaryOperator operation = new Callee.Operation();

    /** The message sent; the sentinel that stops a partner. */
    private static final Object MESSAGE = 42L;
    private static final Object STOP = new Object();

    /**
     * msg.call: new_task:no calls the operation through a LongUnaryOperator reference in the caller's
     * activity (an interface call C2 may devirtualise but never inlines: dontinline); new_task:yes
     * starts a new activity of the runtime (platform or virtual thread) that computes it, and joins it
     * to read the result (start, switch, run, exit, join). Per call, against the control loop.
     */
    static Outcome call(Point p) throws Exception {
        Params params = Loops.single(p, Params.Rule.of("new_task", "no", "yes"));
        Main.requireDontinline(p);
        if (params.get("new_task").equals("no")) {
            Harness.Batch test = n -> {
                LongUnaryOperator op = operation;
                long s = 0;
                for (long i = 0; i < n; i++) {
                    s += op.applyAsLong(i);
                }
                Loops.sink = s;
            };
            return new Outcome(p.h.measure(test, Loops::emptyLoop), 1);
        }
        Activities act = p.act;
        Harness.Batch test = n -> {
            long s = 0;
            for (long i = 0; i < n; i++) {
                Callee.Answer a = new Callee.Answer(i);
                act.start(a).join();
                s += a.result;
            }
            Loops.sink = s;
        };
        return new Outcome(p.h.measure(test, Loops::emptyLoop), 1);
    }

    /**
     * msg.async: a send and its receive by the same activity on a LinkedTransferQueue (the JDK's
     * lock-free unbounded channel; {@code put} never blocks, {@code take} finds the message there), so
     * nothing blocks or switches. Per send + receive.
     */
    static Outcome async(Point p) throws Exception {
        Loops.single(p, Params.Rule.optional("impl", "linked_transfer_queue"));
        LinkedTransferQueue<Object> q = new LinkedTransferQueue<>();
        Harness.Batch test = n -> {
            long s = 0;
            for (long i = 0; i < n; i++) {
                q.put(MESSAGE);
                s += q.take().hashCode();
            }
            Loops.sink = s;
        };
        return new Outcome(p.h.measure(test, Loops::emptyLoop), 1);
    }

    /**
     * msg.switch: a message to a partner blocked in SynchronousQueue.take and its echo back on a second
     * SynchronousQueue: each message hands off to a blocked receiver and switches to it. Reported per
     * message (per = 2). Also, in extra {@code exchanger_ns_per_message}, the same round trip through one
     * {@link Exchanger} (one exchange carries a message each way; per exchange / 2).
     */
    static Outcome messageSwitch(Point p) throws Exception {
        Loops.sameCpuPair(p, Params.Rule.optional("impl", "synchronous_queue"));
        SynchronousQueue<Object> to = new SynchronousQueue<>();
        SynchronousQueue<Object> from = new SynchronousQueue<>();
        Harness.Batch test = n -> {
            long s = 0;
            for (long i = 0; i < n; i++) {
                to.put(MESSAGE);
                s += from.take().hashCode();
            }
            Loops.sink = s;
        };
        Harness.Measurement m = Loops.withPartner(p, () -> {
            for (Object v = to.take(); v != STOP; v = to.take()) {
                from.put(v);
            }
        }, () -> p.h.measure(test, Loops::emptyLoop), () -> to.put(STOP));
        Outcome o = new Outcome(m, 2);

        Exchanger<Object> ex = new Exchanger<>();
        Harness.Batch exchange = n -> {
            long s = 0;
            for (long i = 0; i < n; i++) {
                s += ex.exchange(MESSAGE).hashCode();
            }
            Loops.sink = s;
        };
        Harness.Measurement e = Loops.withPartner(p, () -> {
            while (ex.exchange(MESSAGE) != STOP) {
                // echo: every exchange hands a message back
            }
        }, () -> p.h.measure(exchange, Loops::emptyLoop), () -> ex.exchange(STOP));
        o.extra.put("exchanger_ns_per_message", Outcome.perOpNs(e, 2));
        o.notes.add("extra exchanger_ns_per_message: the round trip through one java.util.concurrent.Exchanger, N = " + e.n()
                + ", per message");
        return o;
    }

    /**
     * msg.rendezvous: the client puts a request into a SynchronousQueue that a server activity is
     * blocked taking from; the server accepts it and puts its reply into a second SynchronousQueue the
     * client is blocked taking from (two zero-capacity handoffs, as the os runtime's sync_channel(0)).
     * Per call.
     */
    static Outcome rendezvous(Point p) throws Exception {
        Loops.sameCpuPair(p, Params.Rule.optional("impl", "synchronous_queue"));
        SynchronousQueue<Object> requests = new SynchronousQueue<>();
        SynchronousQueue<Object> replies = new SynchronousQueue<>();
        Object reply = 43L;
        Harness.Batch test = n -> {
            long s = 0;
            for (long i = 0; i < n; i++) {
                requests.put(MESSAGE);
                s += replies.take().hashCode();
            }
            Loops.sink = s;
        };
        Harness.Measurement m = Loops.withPartner(p, () -> {
            for (Object q = requests.take(); q != STOP; q = requests.take()) {
                replies.put(reply);
            }
        }, () -> p.h.measure(test, Loops::emptyLoop), () -> requests.put(STOP));
        return new Outcome(m, 1);
    }
}
