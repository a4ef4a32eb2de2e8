package overhead.probe;

import java.util.List;

/** The control loops and shared helpers of the experiments. */
final class Loops {
    private Loops() {
    }

    /**
     * Receives every timed loop's result once per batch, so C2 cannot delete the loop (a volatile
     * write, once a batch, not once an iteration).
     */
    static volatile long sink;

    /**
     * The control of almost every point: a counted loop whose body adds its index to an accumulator
     * published at the end (Rust's {@code empty_loop}). The accumulator's chain of adds keeps each
     * iteration at least a cycle however C2 unrolls the loop. Per iteration: an increment, an add, a
     * compare and a branch.
     */
    static void emptyLoop(long n) {
        long s = 0;
        for (long i = 0; i < n; i++) {
            s += i;
        }
        sink = s;
    }

    /** base.loop's control: nothing, so only the two clock reads cancel. */
    static void noLoop(long n) {
    }

    /**
     * Checks a two-party point whose parties share one CPU: parameters by rules plus an optional
     * placement:same_cpu, and cpus [home] or [home, home].
     */
    static Params sameCpuPair(Point p, Params.Rule... rules) throws ProbeException {
        Params.Rule[] all = java.util.Arrays.copyOf(rules, rules.length + 1);
        all[rules.length] = Params.Rule.optional("placement", "same_cpu");
        Params params = Params.parse(p.spec, all);
        List<Integer> c = p.spec.cpus();
        if (c.size() > 2 || (c.size() == 2 && !c.get(0).equals(c.get(1)))) {
            throw p.error("this point's parties share one CPU; cpus " + c + " must be [home] or [home, home]");
        }
        return params;
    }

    /** Checks a one-party point: parameters by rules and one CPU. */
    static Params single(Point p, Params.Rule... rules) throws ProbeException {
        Params params = Params.parse(p.spec, rules);
        if (p.spec.cpus().size() != 1) {
            throw p.error("runs on one CPU; cpus " + p.spec.cpus());
        }
        return params;
    }

    /** A partner body that may block (take, acquire, park). */
    @FunctionalInterface
    interface PartnerBody {
        void run() throws Exception;
    }

    /**
     * Starts partner as a new activity of the runtime, runs timed on the calling activity, then runs
     * stop (which must make partner return) and joins the partner. A partner's failure is rethrown.
     */
    static <T> T withPartner(Point p, PartnerBody partner, java.util.concurrent.Callable<T> timed, PartnerBody stop)
            throws Exception {
        Throwable[] failure = new Throwable[1];
        Thread t = p.act.start(() -> {
            try {
                partner.run();
            } catch (Throwable e) {
                failure[0] = e;
            }
        });
        // On a failure of timed, the partner is left blocked: Main prints the error and exits the JVM.
        T result = timed.call();
        stop.run();
        t.join();
        if (failure[0] != null) {
            throw new RuntimeException("partner failed", failure[0]);
        }
        return result;
    }
}
