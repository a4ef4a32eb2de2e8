package overhead.probe;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The process's context switches around untimed counted batches, as crates/harness counts them
 * (docs/METHOD.md §18): every thread of the JVM — the measuring thread, its partners, the JIT's and the
 * GC's — voluntary (a thread blocked) and involuntary (preempted, or yielding), summed over
 * /proc/self/task/{tid}/status (no getrusage without JNI), thread by thread. A thread that ends between two
 * readings takes its in-window switches with it; the control subtracts what the JVM's own threads do at a
 * steady rate.
 */
final class ProcessSwitches {
    /** The record's keys of the counts per operation (crates/machine CounterKind names + "_per_op"). */
    static final String VOLUNTARY = "process_voluntary_cs_per_op";
    static final String INVOLUNTARY = "process_involuntary_cs_per_op";

    private ProcessSwitches() {
    }

    /**
     * Each live thread's (voluntary, involuntary) switches now, by thread id, or null where /proc cannot be
     * read. Kept per thread so that a thread ending between two readings takes with it only what it did in
     * the window, not its whole history (a plain sum could fall, and read negative).
     */
    static Map<Long, long[]> read() {
        Map<Long, long[]> byThread = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                long[] counts = new long[2];
                try {
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) {
                            counts[0] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                        } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                            counts[1] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                        }
                    }
                    byThread.put(Long.parseLong(task.getFileName().toString()), counts);
                } catch (IOException | NumberFormatException ended) {
                    // The thread ended while we read: it is absent from this reading.
                }
            }
        } catch (IOException | RuntimeException noProc) {
            return null;
        }
        return byThread;
    }

    /**
     * The (voluntary, involuntary) switches between two readings: each thread alive at the end counts what it
     * did since the start (all of it, if it started in the window); a thread that ended in the window is lost.
     */
    static long[] between(Map<Long, long[]> start, Map<Long, long[]> end) {
        long[] sum = new long[2];
        for (Map.Entry<Long, long[]> e : end.entrySet()) {
            long[] before = start.getOrDefault(e.getKey(), new long[2]);
            sum[0] += e.getValue()[0] - before[0];
            sum[1] += e.getValue()[1] - before[1];
        }
        return sum;
    }

    /** Whether OVERHEAD_COUNTERS=off turned counting off (an A/A pair of counting against not counting). */
    static boolean off() {
        return "off".equals(System.getenv("OVERHEAD_COUNTERS"));
    }

    /**
     * Runs pairs more (control, test) pairs of n operations, untimed, reading the switches just before and
     * after each batch (pre and post run outside the windows), and returns each key's median over the pairs of
     * (test's count − control's) / n; empty with no pair, counting off, or no /proc.
     */
    static Map<String, Double> countedPairs(int pairs, long n, Harness.Batch test, Harness.Batch control,
            Harness.Batch pre, Harness.Batch post) throws Exception {
        Map<String, Double> out = new LinkedHashMap<>();
        if (pairs <= 0 || off()) {
            return out;
        }
        double[] voluntary = new double[pairs];
        double[] involuntary = new double[pairs];
        for (int k = 0; k < pairs; k++) {
            Map<Long, long[]> r0 = read();
            control.run(n);
            Map<Long, long[]> r1 = read();
            pre.run(n);
            Map<Long, long[]> r2 = read();
            test.run(n);
            Map<Long, long[]> r3 = read();
            post.run(n);
            if (r0 == null || r1 == null || r2 == null || r3 == null) {
                return out;
            }
            long[] inTest = between(r2, r3);
            long[] inControl = between(r0, r1);
            voluntary[k] = (double) (inTest[0] - inControl[0]) / n;
            involuntary[k] = (double) (inTest[1] - inControl[1]) / n;
        }
        out.put(VOLUNTARY, Outcome.median(voluntary));
        out.put(INVOLUNTARY, Outcome.median(involuntary));
        return out;
    }
}
