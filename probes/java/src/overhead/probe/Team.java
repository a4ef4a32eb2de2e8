package overhead.probe;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Teams of activities started together on a spin barrier, every member timing its own batches, as
 * crates/harness/src/team.rs does: member 0 leads (after a JIT warm-up it sizes N on its own batch times and
 * posts each batch's size and kind), a barrier starts every batch and a second one ends it. A
 * repetition's team batch is the slowest member's; each member's own test batches are kept too.
 * Java cannot pin a thread to a CPU: members run where the process's affinity lets the kernel (or,
 * for virtual threads, the scheduler's carriers) put them.
 */
final class Team {
    private Team() {
    }

    /** Runs member thread's operation n times. */
    @FunctionalInterface
    interface Body {
        void run(int thread, long n) throws Exception;
    }

    /** The control bit of a posted command; the rest is N (0: stop). */
    static final long CONTROL = 1L << 62;
    /** The warm-up bit: a JIT warm-up batch, never kept. */
    static final long WARM = 1L << 61;
    static final long N_MASK = WARM - 1;

    /** Members' sinks, 128 bytes apart, so members' control loops do not share a line. */
    static final int MAX_TEAM = 1024;
    static final long[] SINKS = new long[16 * (MAX_TEAM + 1)];

    /** A team's control: the control loop, its result stored in the member's own sink. */
    static void emptyLoop(int thread, long n) {
        long s = 0;
        for (long i = 0; i < n; i++) {
            s += i;
        }
        SINKS[16 * (thread + 1)] = s;
    }

    /** A team's measurement: the team's batches and each member's own kept test batches. */
    record Result(Harness.Measurement m, List<long[]> perThreadTestNs) {
        /** The outcome, per = 1, with the per-member test batches. */
        Outcome outcome() {
            Outcome o = new Outcome(m, 1);
            o.perThreadTestNs = perThreadTestNs;
            return o;
        }
    }

    /**
     * A sense-reversing barrier; waiters spin with onSpinWait, or yield when yielding is set. Virtual
     * threads (parks) also park for 10 µs every {@link #PARK_EVERY} yields: a virtual thread that only
     * yields can starve others on its carrier. JDK 25's scheduler puts a yielding virtual thread back on
     * its carrier's local queue while that queue holds tasks, and takes from the external queue only when
     * the local one is empty; in msg.throughput on one carrier a producer and a consumer kept yielding to
     * each other at the end barrier while the three members that had yielded to the external queue never
     * ran again. A timed park takes the waiter off every queue, so the carrier reaches the rest.
     */
    static final class SpinBarrier {
        /** Yields between two timed parks of a virtual thread waiting at the barrier. */
        static final int PARK_EVERY = 64;
        private final int parties;
        private final AtomicInteger count;
        private volatile boolean sense;
        private final boolean yielding;
        private final boolean parks;

        /** A barrier for parties members, spinning or yielding. */
        SpinBarrier(int parties, boolean yielding) {
            this(parties, yielding, false);
        }

        /** A barrier for parties members, spinning or yielding; parks: the members are virtual threads. */
        SpinBarrier(int parties, boolean yielding, boolean parks) {
            this.parties = parties;
            this.count = new AtomicInteger(parties);
            this.yielding = yielding;
            this.parks = parks;
        }

        /** Waits until every party has arrived; returns the caller's new sense. */
        boolean await(boolean local) {
            local = !local;
            if (count.decrementAndGet() == 0) {
                count.set(parties);
                sense = local;
                return local;
            }
            int spins = 0;
            while (sense != local) {
                if (parks && ++spins % PARK_EVERY == 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(10_000);
                } else if (yielding) {
                    Thread.yield();
                } else {
                    Thread.onSpinWait();
                }
            }
            return local;
        }
    }

    /**
     * The leader's schedule (crates/harness/src/team.rs LeaderPlan) after a JIT warm-up: the hint's batch, or
     * test batches growing ({@link Harness#nextBatchOps}) until one and a confirming one reach the target (one
     * step back where both were far past it, {@link Harness#shrinkOvershoot}); then
     * the first warm-up's control alone (sizing's last batch was its test), the other warm-up and the kept
     * pairs of (control, test); then stop.
     */
    static final class LeaderPlan {
        private final Harness h;
        private final double target;
        private final long maxOps;
        long n = 1;
        private boolean sizing = true;
        private boolean tryingHint;
        private boolean confirming;
        private boolean steppedBack;
        private long firstHit;
        private boolean warmupControl;
        private int pairsLeft;
        private boolean nextIsControl = true;
        private Harness.JitWarmup warm;
        private long warmN = 1;
        private boolean warmControlNext;
        private boolean started;

        /** The schedule for h's settings; the hint is taken when sizing starts. */
        LeaderPlan(Harness h) {
            this.h = h;
            this.target = h.cfg.targetBatchNs();
            this.maxOps = h.cfg.maxBatchOps();
            this.warmupControl = h.cfg.warmup() > 0;
            this.pairsLeft = Math.max(0, h.cfg.warmup() - 1) + h.cfg.repetitions();
            this.warm = h.jitWarmupNs > 0 ? h.new JitWarmup() : null;
        }

        /** The command after the leader's last batch (lastNs: its ns, -1 before the first). */
        long next(long lastNs) {
            if (warm != null) {
                if (warmControlNext) {
                    warmN = warm.ran(warmN, lastNs, maxOps);
                    warmControlNext = false;
                    return warmN | WARM | CONTROL;
                }
                if (warm.goOn()) {
                    warmControlNext = true;
                    return warmN | WARM;
                }
                h.notes().add(warm.note());
                warm = null;
            }
            if (!started) {
                started = true;
                long hint = h.takeHint();
                if (hint > 0) {
                    n = Math.min(hint, maxOps);
                    tryingHint = true;
                }
                return n;
            }
            if (sizing && tryingHint) {
                tryingHint = false;
                if (Harness.hintKept(n, lastNs, target)) {
                    sizing = false;
                } else {
                    n = 1;
                    return n;
                }
            }
            if (sizing) {
                if (lastNs < target && n < maxOps) {
                    confirming = false;
                    n = Harness.nextBatchOps(n, lastNs, target, maxOps);
                    return n;
                } else if (!confirming && n < maxOps) {
                    confirming = true;
                    firstHit = lastNs;
                    return n;
                } else if (confirming && !steppedBack) {
                    // Both far past the target: one step back, and sizing goes on from there.
                    long smaller = Harness.shrinkOvershoot(n, Math.min(lastNs, firstHit), target);
                    if (smaller > 0) {
                        n = smaller;
                        steppedBack = true;
                        confirming = false;
                        return n;
                    }
                }
                sizing = false;
            }
            if (warmupControl) {
                warmupControl = false;
                return n | CONTROL;
            }
            if (nextIsControl) {
                if (pairsLeft == 0) {
                    return 0;
                }
                pairsLeft--;
                nextIsControl = false;
                return n | CONTROL;
            }
            nextIsControl = true;
            return n;
        }
    }

    /**
     * Measures test against control run by one member per entry of cpus, made by act (platform or
     * virtual threads). yielding: members yield instead of spinning at the barrier (virtual threads,
     * members sharing CPUs, or members that must let other activities run).
     */
    static Result measure(Harness h, Activities act, List<Integer> cpus, boolean yielding, Body test, Body control)
            throws Exception {
        int t = cpus.size();
        if (t < 1 || t > MAX_TEAM) {
            throw new IllegalArgumentException("a team of " + t + " members");
        }
        SpinBarrier barrier = new SpinBarrier(t, yielding || act.virtual, act.virtual);
        AtomicLong command = new AtomicLong();
        List<List<Long>> logs = new ArrayList<>();
        Throwable[] failure = new Throwable[t];
        LeaderPlan plan = new LeaderPlan(h);
        List<Thread> members = new ArrayList<>();
        for (int i = 0; i < t; i++) {
            List<Long> log = new ArrayList<>();
            logs.add(log);
            int index = i;
            members.add(act.start(() -> {
                boolean sense = false;
                long last = -1;
                try {
                    while (true) {
                        if (index == 0) {
                            command.set(plan.next(last));
                        }
                        sense = barrier.await(sense);
                        long cmd = command.get();
                        if (cmd == 0) {
                            return;
                        }
                        long n = cmd & N_MASK;
                        long t0 = h.now();
                        if ((cmd & CONTROL) != 0) {
                            control.run(index, n);
                        } else {
                            test.run(index, n);
                        }
                        last = h.now() - t0;
                        if ((cmd & WARM) == 0) {
                            log.add(last);
                        }
                        sense = barrier.await(sense);
                    }
                } catch (Throwable e) {
                    failure[index] = e;
                    // A failed member leaves the others at the barrier; Main ends the JVM after its error line.
                }
            }));
        }
        for (int i = 0; i < t; i++) {
            members.get(i).join();
            if (failure[i] != null) {
                throw new RuntimeException("team member " + i + " failed", failure[i]);
            }
        }
        long n = plan.n;
        h.noteSized(n);
        int reps = h.cfg.repetitions();
        long[] teamTest = new long[reps];
        long[] teamControl = new long[reps];
        List<long[]> perThread = new ArrayList<>();
        for (List<Long> log : logs) {
            List<Long> tail = log.subList(log.size() - 2 * reps, log.size());
            long[] own = new long[reps];
            for (int r = 0; r < reps; r++) {
                long c = tail.get(2 * r);
                long tt = tail.get(2 * r + 1);
                own[r] = tt;
                teamControl[r] = Math.max(teamControl[r], c);
                teamTest[r] = Math.max(teamTest[r], tt);
            }
            perThread.add(own);
        }
        return new Result(new Harness.Measurement(n, teamTest, teamControl), perThread);
    }
}
