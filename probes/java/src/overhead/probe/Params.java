package overhead.probe;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * A point's parameters checked against what its experiment takes: every key the experiment names
 * present once with an allowed value, optional keys may be absent, no other key. One error text
 * names the point.
 */
public final class Params {
    private final Map<String, String> values;
    private final Job.Spec spec;

    /** The checked values of spec's parameters. */
    private Params(Job.Spec spec, Map<String, String> values) {
        this.spec = spec;
        this.values = values;
    }

    /** One parameter: its key, whether it may be absent, and its allowed values (none given: any). */
    public record Rule(String key, boolean optional, List<String> values) {
        /** A required key with these allowed values (none: any value). */
        public static Rule of(String key, String... values) {
            return new Rule(key, false, values.length == 0 ? null : List.of(values));
        }

        /** A key that may be absent, with these allowed values when present. */
        public static Rule optional(String key, String... values) {
            return new Rule(key, true, values.length == 0 ? null : List.of(values));
        }
    }

    /** Checks spec.params against rules. */
    public static Params parse(Job.Spec spec, Rule... rules) throws ProbeException {
        Map<String, Rule> byKey = new HashMap<>();
        for (Rule r : rules) {
            byKey.put(r.key(), r);
        }
        Map<String, String> out = new HashMap<>();
        for (String[] p : spec.params()) {
            Rule r = byKey.get(p[0]);
            if (r == null) {
                List<String> keys = new ArrayList<>(new TreeSet<>(byKey.keySet()));
                throw new ProbeException(spec.name() + ": unknown parameter \"" + p[0] + "\" for " + spec.experiment() + " ("
                        + (keys.isEmpty() ? "takes no parameters" : "takes " + String.join(", ", keys)) + ")");
            }
            if (out.containsKey(p[0])) {
                throw new ProbeException(spec.name() + ": parameter \"" + p[0] + "\" given twice");
            }
            if (r.values() != null && !r.values().contains(p[1])) {
                throw new ProbeException(spec.name() + ": " + p[0] + ":" + p[1] + " is not one of " + String.join(", ", r.values()));
            }
            out.put(p[0], p[1]);
        }
        for (Rule r : rules) {
            if (!r.optional() && !out.containsKey(r.key())) {
                throw new ProbeException(spec.name() + ": " + spec.experiment() + " needs parameter \"" + r.key() + "\"");
            }
        }
        return new Params(spec, out);
    }

    /** The value of key, or null when absent. */
    public String get(String key) {
        return values.get(key);
    }

    /** The value of key as an integer ≥ min. */
    public int integer(String key, int min) throws ProbeException {
        long v = longInteger(key, min);
        if (v > Integer.MAX_VALUE) {
            throw new ProbeException(
                    spec.name() + ": " + key + ":" + v + " is not an integer from " + min + " to " + Integer.MAX_VALUE);
        }
        return (int) v;
    }

    /** The value of key as a long integer ≥ min (work counts beyond an int). */
    public long longInteger(String key, long min) throws ProbeException {
        try {
            long v = Long.parseLong(values.get(key));
            if (v >= min) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new ProbeException(spec.name() + ": " + key + ":" + values.get(key) + " is not an integer ≥ " + min);
    }
}
