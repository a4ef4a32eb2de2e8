package overhead.probe;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The job the orchestrator hands a probe (crates/protocol/src/lib.rs {@code ProbeJob}): the point
 * to measure, the harness settings and an optional batch-size hint. The job's {@code time_source} is
 * ignored: the probe times with {@link System#nanoTime()}.
 */
public record Job(int v, Spec spec, HarnessConfig harness, Long batchOpsHint) {

    /** The protocol version this probe speaks. */
    public static final int VERSION = 2;

    /** The point: experiment, runtime, parameters in the experiment's key order, CPUs, placement. */
    public record Spec(String experiment, String runtime, List<String[]> params, List<Integer> cpus, String placement) {
        /** The Google Benchmark-style name, {@code experiment/runtime:R/key:value/...}, for messages. */
        public String name() {
            StringBuilder b = new StringBuilder(experiment + "/runtime:" + runtime);
            for (String[] p : params) {
                b.append('/').append(p[0]).append(':').append(p[1]);
            }
            return b.toString();
        }

        /** How many different CPUs the point's activities run on. */
        public int distinctCpus() {
            return new HashSet<>(cpus).size();
        }
    }

    /** crates/harness/src/config.rs {@code HarnessConfig}. {@code mode} is quick, default or full. */
    public record HarnessConfig(double targetBatchNs, int warmup, int repetitions, long maxBatchOps, double noisyFraction,
            String mode, int countedPairs) {
        /** Settings without counted pairs (nothing counted), as a job of an older orchestrator says. */
        public HarnessConfig(double targetBatchNs, int warmup, int repetitions, long maxBatchOps, double noisyFraction,
                String mode) {
            this(targetBatchNs, warmup, repetitions, maxBatchOps, noisyFraction, mode, 0);
        }
    }

    /** Reads and checks a job; a wrong shape or a protocol version other than 2 is an error. */
    public static Job parse(String text) throws Json.JsonException {
        Object root = Json.parse(text);
        if (!(root instanceof Map)) {
            throw new Json.JsonException("job must be a JSON object");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) root;
        long v = Json.integer(m, "v", "job");
        if (v != VERSION) {
            throw new Json.JsonException("job speaks protocol v" + v + "; this probe speaks v" + VERSION);
        }
        Map<String, Object> s = Json.object(m, "spec", "job");
        List<String[]> params = new ArrayList<>();
        for (Object p : Json.list(s, "params", "spec")) {
            if (!(p instanceof List) || ((List<?>) p).size() != 2 || !(((List<?>) p).get(0) instanceof String)
                    || !(((List<?>) p).get(1) instanceof String)) {
                throw new Json.JsonException("spec.params must hold [key, value] string pairs");
            }
            params.add(new String[] {(String) ((List<?>) p).get(0), (String) ((List<?>) p).get(1)});
        }
        List<Integer> cpus = new ArrayList<>();
        for (Object c : Json.list(s, "cpus", "spec")) {
            if (!(c instanceof Long) || (Long) c < 0 || (Long) c > 1 << 20) {
                throw new Json.JsonException("spec.cpus must hold CPU numbers");
            }
            cpus.add((int) (long) (Long) c);
        }
        if (cpus.isEmpty()) {
            throw new Json.JsonException("spec.cpus is empty");
        }
        Object placement = s.get("placement");
        if (placement != null && !(placement instanceof String)) {
            throw new Json.JsonException("spec.placement must be a string or null");
        }
        Spec spec = new Spec(Json.string(s, "experiment", "spec"), Json.string(s, "runtime", "spec"), List.copyOf(params),
                List.copyOf(cpus), (String) placement);

        Map<String, Object> h = Json.object(m, "harness", "job");
        double maxOps = Json.number(h, "max_batch_ops", "harness");
        String mode = h.containsKey("mode") ? Json.string(h, "mode", "harness") : "default";
        if (!Set.of("quick", "default", "full").contains(mode)) {
            throw new Json.JsonException("harness.mode \"" + mode + "\" is not quick, default or full");
        }
        HarnessConfig harness = new HarnessConfig(Json.number(h, "target_batch_ns", "harness"),
                (int) Json.integer(h, "warmup", "harness"), (int) Json.integer(h, "repetitions", "harness"),
                maxOps >= 9.2e18 ? Long.MAX_VALUE : Json.integer(h, "max_batch_ops", "harness"),
                Json.number(h, "noisy_fraction", "harness"), mode,
                h.get("counted_pairs") == null ? 0 : (int) Json.integer(h, "counted_pairs", "harness"));
        if (!(harness.targetBatchNs() > 0) || harness.warmup() < 0 || harness.repetitions() < 1 || harness.maxBatchOps() < 1) {
            throw new Json.JsonException("harness settings out of range: " + harness);
        }
        Long hint = null;
        if (m.get("batch_ops_hint") != null) {
            hint = Json.integer(m, "batch_ops_hint", "job");
            if (hint < 1) {
                throw new Json.JsonException("batch_ops_hint must be positive");
            }
        }
        return new Job((int) v, spec, harness, hint);
    }
}
