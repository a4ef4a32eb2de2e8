package overhead.probe;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fork-join fan-out (crates/experiments/src/spawn/{forkjoin,bulk}.rs) and the yield round
 * (crates/experiments/src/sched/yield_round.rs). Activities are not pinned (Java cannot): platform threads run
 * where the kernel puts them within the process's CPUs, virtual threads on the scheduler's carriers
 * (parallelism = the point's CPUs).
 */
final class FanOutFamily {
    private FanOutFamily() {
    }

    private static final Runnable EMPTY = () -> { };

    /** The median over kept pairs of (test − control) / N / per. */
    private static double median(Harness.Measurement m, double per) {
        return Outcome.perOpNs(m, 1) / per;
    }

    /**
     * spawn.forkjoin: Ben-Asher & Feitelson 1991 §6.1's fork-join episode of one empty task per CPU (T tasks), against the
     * control loop; per episode, with tasks and per_spawn_ns (episode / T) in extra. mechanism:spawn:
     * start T new activities (platform or virtual threads) and join each. mechanism:pool (java-platform
     * only): a ForkJoinPool of parallelism T (the JDK's fork-join framework, as rayon's pool for Rust),
     * an episode submitting T empty tasks from outside the pool and joining every one. Virtual threads
     * are not pooled (the JDK's own advice), so java-virtual has no pool point.
     */
    static Outcome forkJoin(Point p) throws Exception {
        Params params = ContentionFamily.teamPoint(p, 1, Params.Rule.of("mechanism", "spawn", "pool"));
        int t = p.spec.cpus().size();
        Activities act = p.act;
        Harness.Measurement m;
        if (params.get("mechanism").equals("spawn")) {
            Thread[] threads = new Thread[t];
            Harness.Batch test = n -> {
                for (long i = 0; i < n; i++) {
                    for (int k = 0; k < t; k++) {
                        threads[k] = act.start(EMPTY);
                    }
                    for (int k = 0; k < t; k++) {
                        threads[k].join();
                    }
                }
            };
            m = p.h.measure(test, Loops::emptyLoop);
        } else {
            if (act.virtual) {
                throw p.error("virtual threads are not pooled (one per task is the JDK's advice); mechanism:spawn only");
            }
            ForkJoinPool pool = new ForkJoinPool(t);
            ForkJoinTask<?>[] tasks = new ForkJoinTask<?>[t];
            Harness.Batch test = n -> {
                for (long i = 0; i < n; i++) {
                    for (int k = 0; k < t; k++) {
                        tasks[k] = pool.submit(EMPTY);
                    }
                    for (int k = 0; k < t; k++) {
                        tasks[k].join();
                    }
                }
            };
            try {
                m = p.h.measure(test, Loops::emptyLoop);
            } finally {
                pool.shutdownNow();
            }
        }
        Outcome o = new Outcome(m, 1);
        o.extra.put("tasks", (double) t);
        o.extra.put("per_spawn_ns", median(m, t));
        return o;
    }

    /**
     * spawn.bulk: Ben-Asher & Feitelson 1991 §6.3's construct of tasks:K empty activities at once (K started, then all
     * joined), run on the point's T CPUs; per spawn (per = K), with tasks and construct_ns in extra.
     */
    static Outcome bulk(Point p) throws Exception {
        Params params = ContentionFamily.teamPoint(p, 1, Params.Rule.of("tasks"));
        int k = params.integer("tasks", 1);
        Activities act = p.act;
        Thread[] threads = new Thread[k];
        Harness.Batch test = n -> {
            for (long i = 0; i < n; i++) {
                for (int j = 0; j < k; j++) {
                    threads[j] = act.start(EMPTY);
                }
                for (int j = 0; j < k; j++) {
                    threads[j].join();
                }
            }
        };
        Harness.Measurement m = p.h.measure(test, Loops::emptyLoop);
        Outcome o = new Outcome(m, k);
        o.extra.put("tasks", (double) k);
        o.extra.put("construct_ns", median(m, 1));
        return o;
    }

    /**
     * sched.yield: Ben-Asher & Feitelson 1991 §5.1's yield round. One measuring activity per CPU (cpus:C) calls
     * Thread.yield() in a loop while load:L extra activities per CPU only yield too, started and seen
     * running first. java-platform: Thread.yield is sched_yield, and the kernel places the C·(L+1)
     * threads on the C CPUs; java-virtual: Thread.yield puts the virtual thread back on the scheduler's
     * queue (C carriers) and runs the next. Per iteration (one yield round), against the control loop.
     */
    static Outcome yieldRound(Point p) throws Exception {
        Params params = Params.parse(p.spec, Params.Rule.of("cpus"), Params.Rule.of("load"));
        int c = params.integer("cpus", 1);
        int load = params.integer("load", 0);
        if (c != p.spec.cpus().size() || p.spec.distinctCpus() != c) {
            throw p.error("cpus:" + c + " needs " + c + " distinct CPUs; cpus " + p.spec.cpus());
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger started = new AtomicInteger();
        List<Thread> loaders = new ArrayList<>();
        for (int i = 0; i < c * load; i++) {
            loaders.add(p.act.start(() -> {
                started.incrementAndGet();
                while (!stop.get()) {
                    Thread.yield();
                }
            }));
        }
        while (started.get() < c * load) {
            Thread.yield();
        }
        Team.Body test = (thread, n) -> {
            for (long i = 0; i < n; i++) {
                Thread.yield();
            }
        };
        Team.Result r;
        try {
            r = Team.measure(p.h, p.act, p.spec.cpus(), true, test, Team::emptyLoop);
        } finally {
            stop.set(true);
        }
        for (Thread l : loaders) {
            l.join();
        }
        if (!p.act.virtual) {
            p.note("Java cannot pin platform threads: the " + c * (load + 1) + " threads run where the kernel puts them within CPUs "
                    + p.spec.cpus());
        }
        return r.outcome();
    }
}
