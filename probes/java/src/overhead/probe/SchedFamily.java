package overhead.probe;

import java.util.List;
import java.util.concurrent.locks.LockSupport;

/** sched: switching and yielding (crates/experiments/src/sched/). */
final class SchedFamily {
    private SchedFamily() {
    }

    /** Placements a two-CPU point may name (crates/machine/src/topology Placement). */
    static final String[] PLACEMENTS = {"same_cpu", "smt_sibling", "other_core", "other_numa_node", "other_package"};

    /**
     * sched.switch, one switch round trip between two activities, against the control loop; per round
     * trip. java-platform, mechanism:park: two platform threads hand control back and forth with
     * LockSupport.unpark/park on a volatile turn word (the os runtime's futex handoff: each round trip
     * two wake-ups and, on one CPU, two kernel context switches), at placement:same_cpu and on two CPUs.
     * java-virtual, mechanism:yield: two virtual threads on a one-carrier scheduler, each Thread.yield()
     * runs the other, which yields straight back (tokio's yield round trip), placement:same_cpu only.
     */
    static Outcome switchRoundTrip(Point p) throws Exception {
        if (p.act.virtual) {
            Loops.sameCpuPair(p, Params.Rule.of("mechanism", "yield"));
            String parallelism = System.getProperty("jdk.virtualThreadScheduler.parallelism");
            if (!"1".equals(parallelism)) {
                throw p.error("needs one carrier (-Djdk.virtualThreadScheduler.parallelism=1); it is " + parallelism);
            }
            return yieldRoundTrip(p);
        }
        Params params = Params.parse(p.spec, Params.Rule.of("mechanism", "park"), Params.Rule.optional("placement", PLACEMENTS));
        List<Integer> c = p.spec.cpus();
        String placement = params.get("placement") == null ? "same_cpu" : params.get("placement");
        boolean same = c.size() == 1 || (c.size() == 2 && c.get(0).equals(c.get(1)));
        if (c.size() > 2 || same != placement.equals("same_cpu")) {
            throw p.error("cpus " + c + " do not fit placement:" + placement);
        }
        if (!same) {
            p.note("Java cannot pin a platform thread (no JDK API): both threads may run on either of CPUs " + c
                    + ", where the orchestrator's process affinity put them; the kernel places each");
        }
        return parkRoundTrip(p);
    }

    /** The state two platform threads hand back and forth: whose turn it is (0 home, 1 partner). */
    private static final class Handoff {
        volatile int turn;
        volatile boolean stop;
        volatile Thread home;
        volatile Thread partner;
    }

    /** mechanism:park: home and partner hand the turn back and forth with unpark and park; per round trip. */
    private static Outcome parkRoundTrip(Point p) throws Exception {
        Handoff h = new Handoff();
        h.home = Thread.currentThread();
        Harness.Batch test = n -> {
            Thread partner = h.partner;
            for (long i = 0; i < n; i++) {
                h.turn = 1;
                LockSupport.unpark(partner);
                while (h.turn != 0) {
                    LockSupport.park(h);
                }
            }
        };
        java.util.concurrent.CountDownLatch ready = new java.util.concurrent.CountDownLatch(1);
        Harness.Measurement m = Loops.withPartner(p, () -> {
            h.partner = Thread.currentThread();
            ready.countDown();
            Thread home = h.home;
            while (true) {
                while (h.turn != 1) {
                    LockSupport.park(h);
                }
                if (h.stop) {
                    return;
                }
                h.turn = 0;
                LockSupport.unpark(home);
            }
        }, () -> {
            ready.await();
            return p.h.measure(test, Loops::emptyLoop);
        }, () -> {
            h.stop = true;
            h.turn = 1;
            LockSupport.unpark(h.partner);
        });
        return new Outcome(m, 1);
    }

    /** mechanism:yield: the timed virtual thread yields to a partner that only yields; per round trip. */
    private static Outcome yieldRoundTrip(Point p) throws Exception {
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean();
        Harness.Batch test = n -> {
            for (long i = 0; i < n; i++) {
                Thread.yield();
            }
        };
        Harness.Measurement m = Loops.withPartner(p, () -> {
            running.set(true);
            while (!stop.get()) {
                Thread.yield();
            }
        }, () -> {
            while (!running.get()) {
                Thread.yield();
            }
            return p.h.measure(test, Loops::emptyLoop);
        }, () -> stop.set(true));
        return new Outcome(m, 1);
    }
}
