package overhead.probe;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * grain.sweep (Ben-Asher & Feitelson 1991 §7, crates/experiments/src/grain/): a conversation, the search in Rust
 * (probes/README.md). The probe sets its runtime up, warms the JIT, writes {@code {"type":"ready","v":2}},
 * then answers each request {@code {"tasks":K,"runs":R}} on stdin with one {@code runs} line: R runs,
 * each an empty control (two clock reads back to back) and one timed run of the work:W reads of one
 * shared volatile variable split into K tasks of W / K reads (integer division, as
 * {@code reads_per_task}). {@code java-platform}: K {@link RecursiveAction}s submitted from outside
 * into a {@link ForkJoinPool} of parallelism T and every one joined; {@code java-virtual}: K virtual
 * threads started from one virtual thread and every one joined. The JDK cannot tell the CPU a task
 * ran on, so {@code cpu_counts} is empty and {@code other_count} carries every task. EOF ends the
 * conversation (status 0, no further line).
 */
final class GrainSweep {
    /** The experiment's public ID. */
    static final String ID = "grain.sweep";

    /** The warm-up's task counts, taken in turn. */
    private static final int[] WARM_TASKS = {1, 10, 100, 1000};
    /** The warm-up's work at most (reads in all per run), so a run of many tasks stays short. */
    private static final long WARM_WORK = 100_000;
    /** The largest task count a request may ask for (a Java array's bound). */
    static final long MAX_TASKS = Integer.MAX_VALUE - 8;
    /** The most runs a request may ask for. */
    static final long MAX_RUNS = 1 << 24;

    /**
     * The variable every task reads: volatile, so the JIT may neither hoist a read out of the loop nor
     * drop one (a volatile load is a synchronization action).
     */
    static volatile long shared;
    /** Receives the tasks' sums once per run (untimed), so no task's sum is dead. */
    static volatile long sink;

    private final Activities act;
    private final long work;
    /** java-platform's pool (parallelism T); null for virtual threads. */
    private final ForkJoinPool pool;
    /** Each task counts itself once, after its reads (Ben-Asher & Feitelson's {@code res[exp][get_pid()]++}). */
    private final LongAdder tasksRun = new LongAdder();

    /** A sweep of work reads on act's activities; java-platform gets a ForkJoinPool of parallelism threads. */
    GrainSweep(Activities act, int threads, long work) {
        this.act = act;
        this.work = work;
        this.pool = act.virtual ? null : new ForkJoinPool(threads);
    }

    /** The R runs of one request: each run's elapsed ns, the control before it, and the tasks that ran. */
    record Runs(int tasks, long[] testNs, long[] controlNs, long tasksRun) {
        /** The protocol's runs line (no newline). */
        String line() {
            Map<String, Object> msg = new LinkedHashMap<>();
            msg.put("type", "runs");
            msg.put("v", Job.VERSION);
            msg.put("tasks", (long) tasks);
            msg.put("test_ns", testNs);
            msg.put("control_ns", controlNs);
            msg.put("cpu_counts", List.of());
            msg.put("other_count", tasksRun);
            return Json.write(msg);
        }
    }

    /**
     * Holds the conversation of job (whose experiment is grain.sweep) with harness h's JIT warm-up:
     * checks the parameters (threads:T = the number of CPUs, work:W ≥ 1), sets the runtime up, warms
     * up, writes the ready line, then answers every request line of in with a runs line on out, each
     * flushed at once, until EOF. Throws on a bad job, a malformed request or a failed run (Main
     * writes the error line).
     */
    static void converse(Job job, Harness h, Reader in, PrintStream out) throws Exception {
        Point p = new Point(job.spec(), h);
        p.act = Activities.of(job.spec().runtime(), job.spec().distinctCpus(), p);
        Params params = Params.parse(p.spec, Params.Rule.of("threads"), Params.Rule.of("work"));
        int t = params.integer("threads", 1);
        long work = params.longInteger("work", 1);
        if (t != p.spec.cpus().size()) {
            throw p.error("threads:" + t + " needs " + t + " CPUs; cpus " + p.spec.cpus());
        }
        GrainSweep sweep = new GrainSweep(p.act, t, work);
        try {
            p.act.inContext(() -> {
                sweep.warmUp(h);
                return null;
            });
            send(out, "{\"type\":\"ready\",\"v\":" + Job.VERSION + "}");
            BufferedReader lines = in instanceof BufferedReader ? (BufferedReader) in : new BufferedReader(in);
            String line;
            while ((line = readLine(lines)) != null) {
                long[] req = request(line);
                int k = (int) req[0];
                int r = (int) req[1];
                Runs runs = p.act.inContext(() -> sweep.runs(k, r));
                if (runs.tasksRun() != (long) r * k) {
                    throw p.error(runs.tasksRun() + " tasks ran in " + r + " runs of " + k + " tasks; expected " + (long) r * k);
                }
                send(out, runs.line());
            }
        } finally {
            sweep.close();
        }
    }

    /** The next line of in, or null at EOF; a read failure is an error. */
    private static String readLine(BufferedReader in) throws ProbeException {
        try {
            return in.readLine();
        } catch (IOException e) {
            throw new ProbeException("grain.sweep: reading a request from stdin failed: " + e);
        }
    }

    /** Writes one line and flushes it (the Rust side waits for it); a closed stdout is an error. */
    private static void send(PrintStream out, String line) throws ProbeException {
        out.println(line);
        out.flush();
        if (out.checkError()) {
            throw new ProbeException("grain.sweep: writing to stdout failed (closed?)");
        }
    }

    /**
     * Reads one request, {@code {"tasks":K,"runs":R}}: exactly those two fields, integers with
     * 1 ≤ K ≤ {@link #MAX_TASKS} and 1 ≤ R ≤ {@link #MAX_RUNS}; returns {K, R}.
     */
    static long[] request(String line) throws Json.JsonException, ProbeException {
        Object v = Json.parse(line);
        if (!(v instanceof Map)) {
            throw new ProbeException("grain.sweep: a request must be a JSON object {\"tasks\":K,\"runs\":R}; got " + line);
        }
        Map<?, ?> m = (Map<?, ?>) v;
        for (Object key : m.keySet()) {
            if (!key.equals("tasks") && !key.equals("runs")) {
                throw new ProbeException("grain.sweep: unknown field \"" + key + "\" in request " + line + " (takes tasks, runs)");
            }
        }
        return new long[] {field(m, "tasks", MAX_TASKS, line), field(m, "runs", MAX_RUNS, line)};
    }

    /** A request's field key: an integer literal from 1 to max. */
    private static long field(Map<?, ?> m, String key, long max, String line) throws ProbeException {
        Object v = m.get(key);
        if (v == null) {
            throw new ProbeException("grain.sweep: request " + line + " has no \"" + key + "\"");
        }
        if (!(v instanceof Long) || (Long) v < 1 || (Long) v > max) {
            throw new ProbeException("grain.sweep: request " + line + ": " + key + " must be an integer from 1 to " + max);
        }
        return (Long) v;
    }

    /**
     * The JIT warm-up (as every point's, {@link Harness}'s JitWarmup: its time, overhead.jitWarmupMs,
     * then until the JIT has been quiet, at most three times as long): runs with 1, 10, 100 and 1000
     * tasks in turn over at most {@link #WARM_WORK} reads, each after its control, so the read loop,
     * the task body and the runtime's fork and join paths are compiled before the first request.
     * The task counter is zeroed at its end.
     */
    void warmUp(Harness h) throws Exception {
        if (h.jitWarmupNs > 0) {
            Harness.JitWarmup w = h.new JitWarmup();
            long warmWork = Math.min(work, WARM_WORK);
            for (int i = 0; w.goOn(); i++) {
                int k = WARM_TASKS[i % WARM_TASKS.length];
                control();
                w.ran(k, run(k, warmWork / k), k);
            }
        }
        tasksRun.reset();
    }

    /** R runs of k tasks (must run where act's activities run: inside a virtual thread for java-virtual). */
    Runs runs(int k, int r) throws Exception {
        long reads = work / k;
        long[] test = new long[r];
        long[] control = new long[r];
        tasksRun.reset();
        for (int i = 0; i < r; i++) {
            control[i] = control();
            test[i] = run(k, reads);
        }
        return new Runs(k, test, control, tasksRun.sumThenReset());
    }

    /** The empty control: two clock reads back to back; their difference. */
    static long control() {
        long t0 = System.nanoTime();
        return System.nanoTime() - t0;
    }

    /** One task: reads reads of the shared variable, summed; then it counts itself. */
    long task(long reads) {
        long s = 0;
        for (long i = 0; i < reads; i++) {
            s += shared;
        }
        tasksRun.increment();
        return s;
    }

    /** One timed run of k tasks of reads reads each; its elapsed ns (the task sums go to the sink, untimed). */
    long run(int k, long reads) throws Exception {
        return pool != null ? runPool(k, reads) : runVirtual(k, reads);
    }

    /** A task of the pool: one {@link #task}, its sum kept in the task. */
    private final class Part extends RecursiveAction {
        private static final long serialVersionUID = 1L;
        private final long reads;
        long sum;

        /** A task of reads reads. */
        Part(long reads) {
            this.reads = reads;
        }

        /** Runs the task. */
        @Override
        protected void compute() {
            sum = task(reads);
        }
    }

    /**
     * java-platform: from the calling thread (outside the pool), k tasks made and submitted to the
     * pool, then every one joined; the clock runs from before the first submission to after the last
     * join.
     */
    private long runPool(int k, long reads) {
        Part[] parts = new Part[k];
        long t0 = System.nanoTime();
        for (int i = 0; i < k; i++) {
            Part part = new Part(reads);
            parts[i] = part;
            pool.execute(part);
        }
        for (int i = 0; i < k; i++) {
            parts[i].join();
        }
        long elapsed = System.nanoTime() - t0;
        long s = 0;
        for (Part part : parts) {
            s += part.sum;
        }
        sink = s;
        return elapsed;
    }

    /**
     * java-virtual: from the calling virtual thread, k virtual threads started, then every one joined;
     * the clock runs from before the first start to after the last join.
     */
    private long runVirtual(int k, long reads) throws InterruptedException {
        Thread[] threads = new Thread[k];
        long[] sums = new long[k];
        long t0 = System.nanoTime();
        for (int i = 0; i < k; i++) {
            int j = i;
            threads[i] = act.start(() -> sums[j] = task(reads));
        }
        for (int i = 0; i < k; i++) {
            threads[i].join();
        }
        long elapsed = System.nanoTime() - t0;
        long s = 0;
        for (long v : sums) {
            s += v;
        }
        sink = s;
        return elapsed;
    }

    /** Shuts the pool down (java-platform). */
    void close() throws InterruptedException {
        if (pool != null) {
            pool.shutdownNow();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
    }
}
