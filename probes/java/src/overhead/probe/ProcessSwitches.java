package overhead.probe;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The process's context switches around untimed counted batches, as crates/harness counts them
 * (docs/METHOD.md §18): every thread of the JVM — the measuring thread, its partners, the JIT's and the
 * GC's — voluntary (a thread blocked) and involuntary (preempted, or yielding), summed over
 * /proc/self/task/{tid}/status (no getrusage without JNI). A thread that ends between two readings takes its
 * switches with it; the control subtracts what the JVM's own threads do at a steady rate.
 */
final class ProcessSwitches {
    /** The record's keys of the counts per operation (crates/machine CounterKind names + "_per_op"). */
    static final String VOLUNTARY = "process_voluntary_cs_per_op";
    static final String INVOLUNTARY = "process_involuntary_cs_per_op";

    private ProcessSwitches() {
    }

    /** The process's (voluntary, involuntary) switches now, or null where /proc cannot be read. */
    static long[] read() {
        long[] sum = new long[2];
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) {
                            sum[0] += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                        } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                            sum[1] += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                        }
                    }
                } catch (IOException | NumberFormatException ended) {
                    // The thread ended while we read: its switches are gone from the sum either way.
                }
            }
        } catch (IOException | RuntimeException noProc) {
            return null;
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
            long[] r0 = read();
            control.run(n);
            long[] r1 = read();
            pre.run(n);
            long[] r2 = read();
            test.run(n);
            long[] r3 = read();
            post.run(n);
            if (r0 == null || r1 == null || r2 == null || r3 == null) {
                return out;
            }
            voluntary[k] = (double) ((r3[0] - r2[0]) - (r1[0] - r0[0])) / n;
            involuntary[k] = (double) ((r3[1] - r2[1]) - (r1[1] - r0[1])) / n;
        }
        out.put(VOLUNTARY, Outcome.median(voluntary));
        out.put(INVOLUNTARY, Outcome.median(involuntary));
        return out;
    }
}
