package overhead.probe;

import java.util.concurrent.Semaphore;

/**
 * sync.sem: Souvatzis's semaphore rows on java.util.concurrent.Semaphore (non-fair), mirroring
 * crates/runtimes/src/os/primitives.rs (POSIX sem_t there): P is acquire(), V is release().
 */
final class SemFamily {
    private SemFamily() {
    }

    /** Permits of the P-only semaphore, and the cap on a P-only or V-only batch (Rust's SemOp::PLENTY). */
    static final int PLENTY = 1 << 30;

    /**
     * op:p: acquire() with plenty of permits, never blocks; after each test batch its permits are given
     * back untimed. op:v: release() with no waiter; after each test batch the permits are taken back
     * untimed. op:pair: release() then acquire(), never blocks. op:switch: two activities on one CPU pass
     * a permit back and forth through two semaphores, each handoff a release that wakes a blocked
     * acquire and a switch to it; an iteration is a round trip, reported per handoff (per = 2, as
     * crates/experiments/src/sync/sem.rs). Against the control loop.
     */
    static Outcome sem(Point p) throws Exception {
        Params.Rule rule = Params.Rule.of("op", "p", "v", "pair", "switch");
        Params params = Params.parse(p.spec, rule, Params.Rule.optional("placement", "same_cpu"));
        String op = params.get("op");
        if (op.equals("switch")) {
            Loops.sameCpuPair(p, Params.Rule.of("op"));
            return semSwitch(p);
        }
        Loops.single(p, rule);
        switch (op) {
            case "p": {
                Semaphore sem = new Semaphore(PLENTY);
                Harness.Batch test = n -> {
                    for (long i = 0; i < n; i++) {
                        sem.acquire();
                    }
                };
                return new Outcome(p.h.measure(test, Loops::emptyLoop, null, n -> sem.release((int) n), PLENTY), 1);
            }
            case "v": {
                Semaphore sem = new Semaphore(0);
                Harness.Batch test = n -> {
                    for (long i = 0; i < n; i++) {
                        sem.release();
                    }
                };
                return new Outcome(p.h.measure(test, Loops::emptyLoop, null, n -> sem.acquire((int) n), PLENTY), 1);
            }
            default: {
                Semaphore sem = new Semaphore(0);
                Harness.Batch test = n -> {
                    for (long i = 0; i < n; i++) {
                        sem.release();
                        sem.acquire();
                    }
                };
                return new Outcome(p.h.measure(test, Loops::emptyLoop), 1);
            }
        }
    }

    /** op:switch: ping and pong start empty; the partner blocks in ping.acquire(). */
    private static Outcome semSwitch(Point p) throws Exception {
        Semaphore ping = new Semaphore(0);
        Semaphore pong = new Semaphore(0);
        boolean[] stop = new boolean[1]; // written before the last release, read after the acquire
        Harness.Batch test = n -> {
            for (long i = 0; i < n; i++) {
                ping.release();
                pong.acquire();
            }
        };
        Harness.Measurement m = Loops.withPartner(p, () -> {
            while (true) {
                ping.acquire();
                if (stop[0]) {
                    return;
                }
                pong.release();
            }
        }, () -> p.h.measure(test, Loops::emptyLoop), () -> {
            stop[0] = true;
            ping.release();
        });
        return new Outcome(m, 2);
    }
}
