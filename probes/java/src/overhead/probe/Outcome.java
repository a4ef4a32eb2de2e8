package overhead.probe;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What an experiment hands back: its measurement, the operations per iteration the result is
 * reported per, notes, extra values, and for team experiments each thread's own test batch times.
 */
public final class Outcome {
    public final Harness.Measurement m;
    public final int per;
    public final List<String> notes = new ArrayList<>();
    public final Map<String, Object> extra = new LinkedHashMap<>();
    public List<long[]> perThreadTestNs;

    /** An outcome of measurement m reported per per operations an iteration. */
    public Outcome(Harness.Measurement m, int per) {
        this.m = m;
        this.per = per;
    }

    /** The protocol's batches line (no newline): sized is the first sizing's N (0: none). */
    public String batchesLine(long sized, double resolutionNs) {
        if (m.testNs().length == 0 || m.testNs().length != m.controlNs().length) {
            throw new IllegalStateException("internal: " + m.testNs().length + " test and " + m.controlNs().length + " control batches");
        }
        Map<String, Object> msg = new LinkedHashMap<>();
        msg.put("type", "batches");
        msg.put("v", Job.VERSION);
        msg.put("batch_ops", m.n());
        msg.put("per", Math.max(1, per));
        msg.put("test_ns", m.testNs());
        msg.put("control_ns", m.controlNs());
        msg.put("resolution_ns", resolutionNs);
        if (sized > 0) {
            msg.put("sized_batch_ops", sized);
        }
        msg.put("notes", notes);
        // The counts are per iteration of the batch, as the times are: per reported operation they divide by per.
        Map<String, Object> withCounts = new LinkedHashMap<>(extra);
        m.counts().forEach((key, perIteration) -> withCounts.put(key, perIteration / Math.max(1, per)));
        msg.put("extra", withCounts);
        if (perThreadTestNs != null) {
            msg.put("per_thread_test_ns", perThreadTestNs);
        }
        return Json.write(msg);
    }

    /** The protocol's error line. */
    public static String errorLine(String message) {
        return textLine("error", "message", message);
    }

    /** A note line. */
    public static String noteLine(String text) {
        return textLine("note", "text", text);
    }

    /** A protocol line of the given type carrying one text field. */
    private static String textLine(String type, String key, String text) {
        Map<String, Object> msg = new LinkedHashMap<>();
        msg.put("type", type);
        msg.put("v", Job.VERSION);
        msg.put(key, text);
        return Json.write(msg);
    }

    /**
     * The per-operation value of a measurement as the Rust side computes it, the median over kept pairs
     * of (test − control) / N / per, for values kept in extra.
     */
    public static double perOpNs(Harness.Measurement m, int per) {
        double[] d = new double[m.testNs().length];
        for (int k = 0; k < d.length; k++) {
            d[k] = (double) (m.testNs()[k] - m.controlNs()[k]) / m.n() / per;
        }
        return median(d);
    }

    /** The median of values (the mean of the middle two for an even count, as crates/stats's percentile at 0.5). */
    static double median(double[] values) {
        double[] d = values.clone();
        java.util.Arrays.sort(d);
        int mid = d.length / 2;
        return d.length % 2 == 1 ? d[mid] : (d[mid - 1] + d[mid]) / 2;
    }
}
