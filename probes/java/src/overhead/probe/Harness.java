package overhead.probe;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Times batches as crates/harness/src/single.rs does: after a JIT warm-up, N is sized by doubling to the
 * target (a hint tried first), warm-up pairs are dropped, then kept pairs of a control batch and the
 * test batch just after it, each of exactly N iterations. It reports raw batch times in ns; the Rust
 * side subtracts the control.
 */
public final class Harness {

    /** Runs its operation n times. Experiments hand the harness a test and a control batch. */
    @FunctionalInterface
    public interface Batch {
        void run(long n) throws Exception;
    }

    /**
     * A measured kernel: N and the kept pairs' total batch times in ns, in order, and the process's context
     * switches per iteration from the counted pairs after them (keyed as the record's extra; empty where
     * nothing was counted).
     */
    public record Measurement(long n, long[] testNs, long[] controlNs, java.util.Map<String, Double> counts) {
        /** A measurement without counts. */
        public Measurement(long n, long[] testNs, long[] controlNs) {
            this(n, testNs, controlNs, java.util.Map.of());
        }
    }

    /** Bounds, as fractions of the target, on the batch a hinted N may take to be kept (crates/harness/src/lib.rs). */
    static final double HINT_LOW = 0.25;
    static final double HINT_HIGH = 4.0;

    /**
     * crates/harness/src/lib.rs's hint_kept: a hinted batch of hint operations that took t ns is kept within a
     * quarter to four times the target, or when it is one operation at least as long as the target (the first
     * process confirmed it; sizing again would run it twice more).
     */
    static boolean hintKept(long hint, double t, double target) {
        return (t >= target * HINT_LOW && t <= target * HINT_HIGH) || (hint == 1 && t >= target);
    }

    /**
     * crates/harness/src/sizing.rs's OVERSHOOT: a confirmed sizing batch longer than this many targets overshot
     * it (the operation changed regime between two sizes; docs/METHOD.md §1).
     */
    static final double OVERSHOOT = 8.0;

    /**
     * crates/harness/src/sizing.rs's shrink_overshoot: after a batch of n operations that took t ns, more than
     * {@link #OVERSHOOT} targets, the N for 1.1× the target (rounded up to 4 significant bits, below n); 0 when
     * it did not overshoot, t is not a number, or n is 1.
     */
    static long shrinkOvershoot(long n, double t, double target) {
        if (n <= 1 || Double.isNaN(t) || t <= OVERSHOOT * target) {
            return 0;
        }
        long aimed = (long) Math.max(Math.ceil(n * 1.1 * target / t), 1);
        return Math.min(roundUpToBits(aimed), n - 1);
    }

    private static final Batch NOTHING = n -> { };

    final Job.HarnessConfig cfg;
    /** The clock in ns; {@link System#nanoTime()} unless a test scripts it. */
    private final LongSupplier clock;
    /** JIT warm-up time before each sizing (ns); 0 skips it. */
    final long jitWarmupNs;
    /** Total JIT compilation time so far (ms), or null where it cannot be read (and in tests). */
    private final LongSupplier compileMs;
    private long hint;
    private long sized;
    private final List<String> notes = new ArrayList<>();

    /** A harness with these settings, batch-size hint (null: none), clock, JIT warm-up and JIT time source (null: none). */
    Harness(Job.HarnessConfig cfg, Long hint, LongSupplier clock, long jitWarmupNs, LongSupplier compileMs) {
        this.cfg = cfg;
        this.hint = hint == null ? 0 : hint;
        this.clock = clock;
        this.jitWarmupNs = jitWarmupNs;
        this.compileMs = compileMs;
    }

    /**
     * A harness on {@link System#nanoTime()} with JMH-style JIT warm-up: 1 s in full mode, 300 ms
     * otherwise (the system property {@code overhead.jitWarmupMs} overrides it, for tests).
     */
    public static Harness forJob(Job job) {
        long ms = "full".equals(job.harness().mode()) ? 1000 : 300;
        ms = Long.getLong("overhead.jitWarmupMs", ms);
        java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        LongSupplier compileMs = jit != null && jit.isCompilationTimeMonitoringSupported() ? jit::getTotalCompilationTime : null;
        return new Harness(job.harness(), job.batchOpsHint(), System::nanoTime, ms * 1_000_000L, compileMs);
    }

    /** The N of the first sizing (0: nothing sized). */
    public long sizedBatchOps() {
        return sized;
    }

    /** Notes the harness made (JIT warm-up), for the result. */
    public List<String> notes() {
        return notes;
    }

    /** Times test against control, no state to restore between batches. */
    public Measurement measure(Batch test, Batch control) throws Exception {
        return measure(test, control, null, null, cfg.maxBatchOps());
    }

    /**
     * Times test against control with untimed hooks around every test batch of n operations:
     * before(n) just before it (a V-only batch needs n permits to hand out), after(n) just after it (a
     * P-only batch's permits are given back), so the state never drains. Either may be null. N never
     * exceeds maxOps (nor harness.max_batch_ops).
     *
     * <p>Order (docs/METHOD.md §1): JIT warm-up, the sizing test batches, the first warm-up's control alone
     * (sizing's last test batch, of N operations, was its test), then for each other warm-up and each kept
     * pair: before, control, test, after.
     */
    public Measurement measure(Batch test, Batch control, Batch before, Batch after, long maxOps) throws Exception {
        Batch pre = before == null ? NOTHING : before;
        Batch post = after == null ? NOTHING : after;
        long cap = Math.max(1, Math.min(maxOps, cfg.maxBatchOps()));
        jitWarmup(test, control, pre, post, cap);
        long n = size(test, pre, post, cap);
        int reps = cfg.repetitions();
        long[] t = new long[reps];
        long[] c = new long[reps];
        int warmup = cfg.warmup();
        // Sizing stopped by the op cap ran no batch of N to be the warm-up's test: the warm-up pair runs whole.
        if (warmup > 0 && sizingEndedAtN) {
            time(control, n);
            warmup--;
        }
        for (int k = 0; k < warmup + reps; k++) {
            pre.run(n);
            long ct = time(control, n);
            long tt = time(test, n);
            post.run(n);
            if (k >= warmup) {
                c[k - warmup] = ct;
                t[k - warmup] = tt;
            }
        }
        int pairs = pairsToCount(cfg.countedPairs(), t, n, cfg.targetBatchNs());
        return new Measurement(n, t, c, ProcessSwitches.countedPairs(pairs, n, test, control, pre, post));
    }

    /** The clock, in ns. */
    long now() {
        return clock.getAsLong();
    }

    /** Takes the batch-size hint (0: none); only the first sizing gets it. */
    long takeHint() {
        long h = hint;
        hint = 0;
        return h;
    }

    /** Runs body(n) between two clock reads; the elapsed ns. */
    private long time(Batch body, long n) throws Exception {
        long t0 = clock.getAsLong();
        body.run(n);
        return clock.getAsLong() - t0;
    }

    /**
     * JMH-style warm-up: runs test and control batches (with their hooks) while {@link JitWarmup} says
     * so, N doubling from 1 while a test batch is under an eighth of the target, so both kernels run
     * often enough for C2 to compile them before anything is sized or kept.
     */
    private void jitWarmup(Batch test, Batch control, Batch pre, Batch post, long cap) throws Exception {
        if (jitWarmupNs <= 0) {
            return;
        }
        JitWarmup w = new JitWarmup();
        long n = 1;
        while (w.goOn()) {
            pre.run(n);
            long t = time(test, n);
            post.run(n);
            control.run(n);
            n = w.ran(n, t, cap);
        }
        notes.add(w.note());
    }

    /**
     * When a JIT warm-up ends: after jitWarmupNs, once the JIT has compiled nothing for
     * {@link #QUIET_NS} (on a point's few CPUs a compiler thread still busy would share them with the
     * kept batches), and at most after three times jitWarmupNs. It also keeps the warm-up's N.
     */
    final class JitWarmup {
        private final long start = clock.getAsLong();
        private long lastCompileMs = compileMs == null ? 0 : compileMs.getAsLong();
        private long quietSince = start;
        private boolean quiet = compileMs == null;
        private long pairs;
        private long maxN = 1;

        /** Whether to run another warm-up pair. */
        boolean goOn() {
            long now = clock.getAsLong();
            if (compileMs != null) {
                long c = compileMs.getAsLong();
                if (c != lastCompileMs) {
                    lastCompileMs = c;
                    quietSince = now;
                }
                quiet = now - quietSince >= QUIET_NS;
            }
            return !(now - start >= 3 * jitWarmupNs || (now - start >= jitWarmupNs && quiet));
        }

        /** Records a warm-up pair whose test batch of n took testNs; the next pair's N. */
        long ran(long n, long testNs, long cap) {
            pairs++;
            maxN = Math.max(maxN, n);
            return testNs < cfg.targetBatchNs() / 8 && n < cap ? Math.min(cap, n * 2) : n;
        }

        /** The note saying what the warm-up did. */
        String note() {
            return String.format("JIT warm-up: %d ms of test and control batches (%d pairs, N up to %d) before sizing%s",
                    (clock.getAsLong() - start) / 1_000_000, pairs, maxN,
                    compileMs == null ? "" : quiet ? ", the JIT quiet for the last " + QUIET_NS / 1_000_000 + " ms"
                            : ", the JIT still compiling at its end");
        }
    }

    /** How long the JIT must have compiled nothing for the warm-up to end. */
    static final long QUIET_NS = 100_000_000L;

    /**
     * Finds N (crates/harness/src/single.rs size_batch): a hint is timed once and kept when its batch lasts a
     * quarter to four times the target, or is one operation that outlasts it ({@link #hintKept}); otherwise N
     * grows from 1 ({@link #nextBatchOps}) until a batch and a second batch of the same N both reach the target
     * (a confirmation that falls short predicts again from its own time), or until the cap. Where both were far
     * past the target, sizing steps back once ({@link #shrinkOvershoot}) and goes on from there. Only the first
     * sizing takes the hint.
     */
    private long size(Batch test, Batch pre, Batch post, long cap) throws Exception {
        double target = cfg.targetBatchNs();
        if (hint > 0) {
            long h = Math.min(hint, cap);
            hint = 0;
            double t = timed(test, pre, post, h);
            if (hintKept(h, t, target)) {
                sizingEndedAtN = true;
                return noteSized(h);
            }
        }
        long n = 1;
        boolean steppedBack = false;
        sizingEndedAtN = false;
        while (n < cap) {
            double first = timed(test, pre, post, n);
            double shortest = first;
            if (first >= target) {
                shortest = timed(test, pre, post, n);
            }
            if (shortest >= target) {
                // Both far past the target: one step back, and sizing goes on from there.
                long smaller = steppedBack ? 0 : shrinkOvershoot(n, Math.min(first, shortest), target);
                if (smaller > 0) {
                    n = smaller;
                    steppedBack = true;
                    continue;
                }
                sizingEndedAtN = true;
                break;
            }
            n = nextBatchOps(n, shortest, target, cap);
        }
        return noteSized(Math.min(n, cap));
    }

    /**
     * crates/harness/src/lib.rs's Harness::pairs_to_count (docs/METHOD.md §18): every configured counted pair,
     * but one when a batch is a single operation whose median kept test batch lasts more than four times the
     * target (such an operation counts as well in one pair).
     */
    static int pairsToCount(int configured, long[] testNs, long ops, double targetNs) {
        if (configured <= 1 || ops != 1 || testNs.length == 0) {
            return configured;
        }
        long[] sorted = testNs.clone();
        java.util.Arrays.sort(sorted);
        return sorted[sorted.length / 2] > 4 * targetNs ? 1 : configured;
    }

    /**
     * crates/harness/src/sizing.rs's next_batch_ops: after a batch of n operations took t ns, short of target,
     * n doubled while the batch was shorter than half the target, else n scaled to 1.1× the target and rounded
     * up to 4 significant bits (at most 2.2× n); always more than n and at most cap.
     */
    static long nextBatchOps(long n, double t, double target, long cap) {
        long next = n > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : n * 2;
        if (t >= target * 0.5 && t > 0) {
            next = roundUpToBits((long) Math.ceil(n * 1.1 * target / t));
        }
        return Math.min(Math.max(next, n + 1), cap);
    }

    /** n rounded up so that only its 4 highest bits may be set (sizing.rs's round_up_to_bits). */
    static long roundUpToBits(long n) {
        int width = 64 - Long.numberOfLeadingZeros(n);
        if (width <= 4) {
            return n;
        }
        long step = 1L << (width - 4);
        return (n + step - 1) / step * step;
    }

    /** Whether the last sizing's last test batch ran N operations (not when the op cap stopped it first). */
    private boolean sizingEndedAtN;

    /** One sizing batch of n with its untimed hooks; its ns. */
    private double timed(Batch test, Batch pre, Batch post, long n) throws Exception {
        pre.run(n);
        long t = time(test, n);
        post.run(n);
        return t;
    }

    /** Keeps n as the process's first sized N (reported as sized_batch_ops) unless one is kept; returns n. */
    long noteSized(long n) {
        if (sized == 0) {
            sized = n;
        }
        return n;
    }

    /**
     * The smallest non-zero difference between two back-to-back clock reads (it includes a read's cost,
     * as the Rust harness's floor of step and read cost does). Measured once at start, in a loop long
     * enough for nanoTime to be compiled.
     */
    public double clockResolutionNs() {
        long best = Long.MAX_VALUE;
        for (int k = 0; k < 50_000; k++) {
            long a = clock.getAsLong();
            long b = clock.getAsLong();
            if (b > a && b - a < best) {
                best = b - a;
            }
        }
        return best == Long.MAX_VALUE ? 1 : best;
    }
}
