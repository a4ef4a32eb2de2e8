package overhead.probe;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The Java probe's unit tests, JDK only (no JUnit): the JSON reader and writer, the job and parameter
 * checks, the harness's sizing and order on a scripted clock, the protocol lines, and grain.sweep's
 * conversation. Run:
 *
 * <pre>
 *   javac --release 17 -d OUT $(find probes/java/src probes/java/test -name '*.java')
 *   java -cp OUT overhead.probe.ProbeTests
 * </pre>
 *
 * Prints one line per failed check and exits 1 if any failed.
 */
public final class ProbeTests {
    private static int failures;
    private static int checks;

    /** Runs every check; exit status 1 if any failed. */
    public static void main(String[] args) throws Exception {
        json();
        job();
        params();
        sizing();
        overshoot();
        hint();
        order();
        lines();
        team();
        runErrors();
        grain();
        throughput();
        rwlock();
        counts();
        System.out.println(failures == 0 ? "ok: " + checks + " checks" : failures + " of " + checks + " checks FAILED");
        System.exit(failures == 0 ? 0 : 1);
    }

    /** Counts a check, printing what when it failed. */
    private static void check(boolean ok, String what) {
        checks++;
        if (!ok) {
            failures++;
            System.out.println("FAIL: " + what);
        }
    }

    /** Checks got equals want (arrays by content). */
    private static void eq(Object got, Object want, String what) {
        boolean same = got instanceof long[] && want instanceof long[] ? Arrays.equals((long[]) got, (long[]) want)
                : got == null ? want == null : got.equals(want);
        check(same, what + ": got " + (got instanceof long[] ? Arrays.toString((long[]) got) : got) + ", want "
                + (want instanceof long[] ? Arrays.toString((long[]) want) : want));
    }

    /** Checks the JSON reader refuses text. */
    private static void rejects(String text, String what) {
        try {
            Json.parse(text);
            check(false, what + " accepted: " + text);
        } catch (Json.JsonException e) {
            check(true, what);
        }
    }

    /** The reader is strict; the writer's output reads back to the same value. */
    static void json() throws Exception {
        Object v = Json.parse(" {\"a\":[1,-2.5e1,true,false,null,\"x\\u00e9\\n\\ud83d\\ude00\"],\"b\":{},\"c\":9007199254740993,\"d\":1e400} ");
        Map<?, ?> m = (Map<?, ?>) v;
        List<?> a = (List<?>) m.get("a");
        eq(a.get(0), 1L, "integer is a Long");
        eq(a.get(1), -25.0, "exponent is a Double");
        eq(a.get(5), "xé\n\uD83D\uDE00", "escapes and a surrogate pair");
        eq(m.get("c"), 9007199254740993L, "a long integer stays exact");
        eq(m.get("d"), Double.POSITIVE_INFINITY, "an overflowing double");
        eq(Json.parse("18446744073709551615"), 1.8446744073709552E19, "beyond long reads as a double");
        for (String bad : new String[] {"", "{", "[1,]", "{\"a\":1,}", "01", "1.", "-", "+1", ".5", "1e", "tru", "nul",
                "\"\\x\"", "\"\u0001\"", "\"\\ud83d\"", "\"\\ude00\"", "{\"a\":1,\"a\":2}", "[1] 2", "{a:1}", "'a'", "[1 2]",
                "/*c*/1", "NaN"}) {
            rejects(bad, "malformed JSON " + bad);
        }
        String deep = "[".repeat(100) + "]".repeat(100);
        rejects(deep, "nesting too deep");
        Map<String, Object> out = new java.util.LinkedHashMap<>();
        out.put("s", "q\"\\\n\t\u0002é");
        out.put("l", new long[] {1, -2});
        out.put("d", 1.5);
        out.put("i", 3.0);
        out.put("n", null);
        out.put("b", List.of(true));
        String w = Json.write(out);
        eq(w, "{\"s\":\"q\\\"\\\\\\n\\t\\u0002\\u00e9\",\"l\":[1,-2],\"d\":1.5,\"i\":3,\"n\":null,\"b\":[true]}", "writer");
        Map<?, ?> back = (Map<?, ?>) Json.parse(w);
        eq(back.get("s"), "q\"\\\n\t\u0002é", "string round trip");
        try {
            Json.write(Double.NaN);
            check(false, "NaN written");
        } catch (IllegalArgumentException e) {
            check(true, "NaN refused");
        }
    }

    static final String GOOD = "{\"v\":2,\"spec\":{\"experiment\":\"sync.sem\",\"runtime\":\"java-platform\",\"params\":[[\"op\",\"switch\"]],"
            + "\"cpus\":[0,0],\"placement\":\"same_cpu\"},\"time_source\":{\"clock\":{\"kind\":\"tsc\",\"hz\":2445404139.02},"
            + "\"reason\":\"r\",\"calibration_error_ppm\":1.0,\"read_cost_ns\":23.8,\"resolution_ns\":20.0},\"harness\":"
            + "{\"target_batch_ns\":500000.0,\"warmup\":1,\"repetitions\":3,\"max_batch_ops\":4294967296,\"noisy_fraction\":0.05,"
            + "\"mode\":\"default\"},\"batch_ops_hint\":1234}";

    /** The job reader keeps what the protocol allows and refuses the rest. */
    static void job() throws Exception {
        Job j = Job.parse(GOOD);
        eq(j.spec().name(), "sync.sem/runtime:java-platform/op:switch", "spec name");
        eq(j.batchOpsHint(), 1234L, "hint");
        eq(j.harness().maxBatchOps(), 1L << 32, "max_batch_ops");
        eq(j.spec().distinctCpus(), 1, "distinct CPUs");
        eq(j.spec().placement(), "same_cpu", "placement");
        eq(Job.parse(GOOD.replace(",\"batch_ops_hint\":1234", ",\"batch_ops_hint\":null")).batchOpsHint(), null, "null hint");
        eq(Job.parse(GOOD.replace("\"placement\":\"same_cpu\"", "\"placement\":null")).spec().placement(), null, "null placement");
        eq(Job.parse(GOOD.replace("4294967296", "18446744073709551615")).harness().maxBatchOps(), Long.MAX_VALUE, "u64 max clamps");
        for (String bad : new String[] {GOOD.replace("\"v\":2", "\"v\":1"), GOOD.replace("[\"op\",\"switch\"]", "[\"op\"]"),
                GOOD.replace("\"cpus\":[0,0]", "\"cpus\":[]"), GOOD.replace("\"mode\":\"default\"", "\"mode\":\"fast\""),
                GOOD.replace("\"repetitions\":3", "\"repetitions\":\"3\""), GOOD.replace("\"warmup\":1", "\"warmup\":1.5"),
                "{\"v\":2,\"spec\":{}}", "[]"}) {
            try {
                Job.parse(bad);
                check(false, "bad job accepted: " + bad);
            } catch (Json.JsonException e) {
                check(true, "bad job");
            }
        }
    }

    /** A java-platform point of x.y with key, value, … parameters on CPU 0. */
    private static Job.Spec spec(String... kv) {
        List<String[]> p = new ArrayList<>();
        for (int k = 0; k + 1 < kv.length; k += 2) {
            p.add(new String[] {kv[k], kv[k + 1]});
        }
        return new Job.Spec("x.y", "java-platform", p, List.of(0), null);
    }

    /** Parameters: required keys once, allowed values, optional keys, no strangers. */
    static void params() throws Exception {
        Params.Rule[] rules = {Params.Rule.of("op", "p", "v"), Params.Rule.of("threads"), Params.Rule.optional("placement", "same_cpu")};
        Params ok = Params.parse(spec("op", "v", "threads", "4"), rules);
        eq(ok.get("op"), "v", "op");
        eq(ok.integer("threads", 1), 4, "threads");
        String[][] bad = {{"op", "q", "threads", "4"}, {"op", "p"}, {"op", "p", "threads", "1", "colour", "red"},
                {"op", "p", "op", "v", "threads", "1"}, {"op", "p", "threads", "1", "placement", "other_core"}};
        String[] why = {"op:q is not one of p, v", "needs parameter \"threads\"", "unknown parameter \"colour\"", "given twice",
                "placement:other_core is not one of same_cpu"};
        for (int k = 0; k < bad.length; k++) {
            try {
                Params.parse(spec(bad[k]), rules);
                check(false, "accepted " + Arrays.toString(bad[k]));
            } catch (ProbeException e) {
                check(e.getMessage().contains(why[k]), "error '" + e.getMessage() + "' should say " + why[k]);
            }
        }
        try {
            Params.parse(spec("threads", "0"), Params.Rule.of("threads")).integer("threads", 1);
            check(false, "threads:0 accepted");
        } catch (ProbeException e) {
            check(true, "threads:0");
        }
        try {
            Params.parse(spec("threads", "4294967296"), Params.Rule.of("threads")).integer("threads", 1);
            check(false, "threads:4294967296 accepted as an int");
        } catch (ProbeException e) {
            check(e.getMessage().contains("from 1 to 2147483647"), "error '" + e.getMessage() + "' should give the int range");
        }
    }

    /** A scripted clock: batches advance it by their cost, so the harness's choices have exact answers. */
    static final class Scripted {
        long t;
        final List<Long> sizes = new ArrayList<>();

        /** A batch costing perOp ns an operation, logging its sizes when log. */
        Harness.Batch ops(long perOp, boolean log) {
            return n -> {
                if (log) {
                    sizes.add(n);
                }
                t += perOp * n;
            };
        }

        /** A harness on this clock with no JIT warm-up. */
        Harness harness(double target, int warmup, int reps, Long hint, long maxOps) {
            return new Harness(new Job.HarnessConfig(target, warmup, reps, maxOps, 0.05, "default"), hint, () -> t, 0, null);
        }
    }

    /**
     * Sizing's test batches when doubling reaches half the target at doubled and predicts predicted, which
     * reaches it: 1, 2, 4, … doubled, then predicted twice (the batch and its confirmation).
     */
    private static List<Long> sizingTo(long doubled, long predicted) {
        List<Long> v = new ArrayList<>();
        for (long k = 1; k <= doubled; k *= 2) {
            v.add(k);
        }
        v.add(predicted);
        v.add(predicted);
        return v;
    }

    /**
     * Sizing doubles to half the target, predicts the N for 1.1× it (crates/harness/src/sizing.rs) and confirms
     * it; sizing's last batch is the warm-up's test; a short confirmation keeps growing; the op cap stops it.
     */
    static void sizing() throws Exception {
        Scripted c = new Scripted();
        Harness h = c.harness(1000, 1, 3, null, 1L << 32);
        Harness.Measurement m = h.measure(c.ops(3, true), c.ops(1, false));
        eq(m.n(), 384L, "3 ns an op against 1000 ns: 256 (768 ns) predicts 367, rounded up to 384");
        eq(h.sizedBatchOps(), 384L, "sized");
        List<Long> want = sizingTo(256, 384);
        want.addAll(List.of(384L, 384L, 384L));
        eq(c.sizes, want, "sizing then three kept test batches");
        eq(m.testNs(), new long[] {1152, 1152, 1152}, "test batches");
        eq(m.controlNs(), new long[] {384, 384, 384}, "control batches");
        eq(Harness.nextBatchOps(64, 499, 1000, Long.MAX_VALUE), 128L, "short of half the target: doubles");
        eq(Harness.nextBatchOps(100, 500, 1000, Long.MAX_VALUE), 224L, "from half: at most 2.2×, rounded up");
        eq(Harness.roundUpToBits(17), 18L, "four significant bits");
        eq(Harness.pairsToCount(2, new long[] {1000, 1200, 1900}, 1, 1000), 2, "near the target: every pair");
        eq(Harness.pairsToCount(2, new long[] {3900, 4000, 4000}, 1, 1000), 2, "four times the target is near it");
        eq(Harness.pairsToCount(2, new long[] {4001, 90000, 100000}, 1, 1000), 1, "one long operation: one pair");
        eq(Harness.pairsToCount(2, new long[] {4001, 90000, 100000}, 4, 1000), 2, "several operations: every pair");
        eq(Harness.pairsToCount(0, new long[] {100000}, 1, 1000), 0, "none configured");

        Scripted p = new Scripted();
        int[] batches = {0};
        Harness hp = p.harness(1000, 0, 1, null, 1L << 32);
        eq(hp.measure(n -> {
            batches[0]++;
            p.t += 3 * n + (batches[0] == 3 ? 5000 : 0); // the first batch of N = 4 is preempted
        }, n -> { }).n(), 384L, "a preempted batch is not believed");

        Scripted cap = new Scripted();
        Harness hc = cap.harness(1e12, 0, 2, null, 64);
        eq(hc.measure(cap.ops(1, true), n -> { }).n(), 64L, "op cap");
        eq(cap.sizes, List.of(1L, 2L, 4L, 8L, 16L, 32L, 64L, 64L), "op cap sizes");
        Scripted capWarm = new Scripted();
        capWarm.harness(1e12, 1, 2, null, 64).measure(capWarm.ops(1, true), n -> { });
        eq(capWarm.sizes, List.of(1L, 2L, 4L, 8L, 16L, 32L, 64L, 64L, 64L),
                "op cap with a warm-up: no batch of N in sizing, so the warm-up pair runs whole");
        Scripted cap2 = new Scripted();
        eq(cap2.harness(1e12, 0, 1, null, 1L << 32).measure(cap2.ops(1, false), n -> { }, null, null, 100).n(), 100L,
                "an experiment's own cap below a power of two");
    }

    /** A hint within a quarter to four times the target is kept; otherwise sizing doubles from 1; only the first sizing. */
    static void hint() throws Exception {
        long[][] cases = {{256, 256}, {1024, 1024}, {84, 84}, {1400, 384}, {64, 384}};
        for (long[] tc : cases) {
            Scripted c = new Scripted();
            Harness h = c.harness(1000, 1, 3, tc[0], 1L << 32);
            Harness.Measurement m = h.measure(c.ops(3, true), n -> { });
            eq(m.n(), tc[1], "hint " + tc[0]);
            eq(c.sizes.get(0), tc[0], "hint " + tc[0] + " tried first");
            List<Long> sizing = c.sizes.subList(0, c.sizes.size() - 3);
            if (tc[0] == tc[1]) {
                eq(sizing.size(), 1, "kept hint " + tc[0] + ": no doubling");
            } else {
                eq(sizing.subList(1, sizing.size()), sizingTo(256, 384), "dropped hint " + tc[0] + ": sizing from 1");
            }
            if (tc[0] == 256) {
                eq(h.measure(c.ops(1, false), n -> { }).n(), 1152L, "second sizing takes no hint");
                eq(h.sizedBatchOps(), 256L, "the first N is reported");
            }
        }
    }

    /**
     * crates/harness/src/single.rs's step-back cases: from the tenth batch (N = 384) every operation costs
     * 300 ns, so 384 steps back to 4, which sizing confirms; a regime that passes (only the two batches of 384
     * slow) lets sizing grow back to 384; a second overshoot is kept; one slow confirmation is not a regime;
     * and the team's leader steps back alike.
     */
    static void overshoot() throws Exception {
        java.util.function.Function<java.util.function.IntPredicate, List<Long>> run = slow -> {
            Scripted c = new Scripted();
            try {
                Harness.Measurement m = c.harness(1000, 1, 3, null, 1L << 32).measure(n -> {
                    c.sizes.add(n);
                    c.t += (slow.test(c.sizes.size()) ? 300 : 3) * n;
                }, n -> { });
                List<Long> v = new ArrayList<>(c.sizes);
                v.add(0, m.n());
                return v;
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        };
        List<Long> stepped = run.apply(b -> b >= 10);
        List<Long> want = sizingTo(256, 384);
        want.addAll(List.of(4L, 4L));
        eq(stepped.get(0), 4L, "a lasting regime: N steps back to 4");
        eq(stepped.subList(1, 1 + want.size()), want, "sizing, the step back, its confirmation");
        eq(run.apply(b -> b == 10 || b == 11).get(0), 384L, "a regime that passed: back to 384");
        List<Long> twice = run.apply(b -> b == 10 || b == 11 || b >= 20);
        eq(twice.get(0), 384L, "a second overshoot is kept");
        eq(twice.subList(10, 21), List.of(384L, 384L, 4L, 8L, 16L, 32L, 64L, 128L, 256L, 384L, 384L), "its sizing");
        eq(run.apply(b -> b == 11).get(0), 384L, "one slow confirmation does not step back");
        eq(Harness.shrinkOvershoot(262144, 56000, 1000), 5632L, "sizing.rs's case");
        eq(Harness.shrinkOvershoot(4, Double.NaN, 1000), 0L, "no number, no step");
        eq(Harness.shrinkOvershoot(1, 1e9, 1000), 0L, "one operation is its own batch");

        Scripted c = new Scripted();
        Team.LeaderPlan p = new Team.LeaderPlan(c.harness(1000, 1, 1, null, 1L << 32));
        List<Long> tests = new ArrayList<>();
        long last = -1;
        for (long cmd = p.next(last); cmd != 0; cmd = p.next(last)) {
            if ((cmd & Team.CONTROL) == 0) {
                tests.add(cmd);
                last = (tests.size() >= 10 ? 300 : 3) * cmd;
            }
        }
        List<Long> leader = sizingTo(256, 384);
        leader.addAll(List.of(4L, 4L, 4L));
        eq(tests, leader, "the leader steps back too");

        Scripted l = new Scripted();
        Harness hl = l.harness(1000, 1, 3, 1L, 1L << 32);
        eq(hl.measure(l.ops(50000, true), n -> { }).n(), 1L, "a hint of one long operation is kept");
        eq(l.sizes, List.of(1L, 1L, 1L, 1L), "the hinted batch (the warm-up's test) and three kept");
        Scripted s2 = new Scripted();
        eq(s2.harness(1000, 1, 3, 1L, 1L << 32).measure(s2.ops(200, true), n -> { }).n(), 6L,
                "one operation shorter than the target sizes from 1");
    }

    /** docs/METHOD.md §1's order, hooks untimed. */
    static void order() throws Exception {
        Scripted c = new Scripted();
        List<String> ran = new ArrayList<>();
        java.util.function.BiFunction<String, Long, Harness.Batch> logged = (tag, cost) -> n -> {
            ran.add(tag);
            c.t += cost * n;
        };
        Harness h = c.harness(1000, 2, 3, null, 1L << 32);
        Harness.Measurement m = h.measure(logged.apply("T", 5L), logged.apply("C", 1L), logged.apply("B", 1_000_000L),
                logged.apply("A", 1_000_000L), Long.MAX_VALUE);
        List<String> want = new ArrayList<>();
        for (int k = 0; k < sizingTo(128, 224).size(); k++) {
            want.addAll(List.of("B", "T", "A"));
        }
        want.add("C"); // the first warm-up's control: sizing's last batch was its test
        for (int k = 0; k < 1 + 3; k++) {
            want.addAll(List.of("B", "C", "T", "A"));
        }
        eq(ran, want, "order of hooks, control and test");
        eq(m.testNs(), new long[] {1120, 1120, 1120}, "hooks untimed");

        // The JIT warm-up runs both kernels before sizing and notes it.
        Scripted w = new Scripted();
        Harness hw = new Harness(new Job.HarnessConfig(1000, 0, 1, 1L << 32, 0.05, "default"), null, () -> w.t, 100_000, null);
        List<Long> control = new ArrayList<>();
        hw.measure(w.ops(3, true), n -> {
            control.add(n);
            w.t += n;
        });
        check(control.size() > 3 && hw.notes().size() == 1 && hw.notes().get(0).startsWith("JIT warm-up"),
                "warm-up ran control batches and noted it: " + hw.notes());
    }

    /** The team leader sizes as one thread does, then posts (control, test) pairs; members keep their batches. */
    static void team() throws Exception {
        Scripted c = new Scripted();
        Team.LeaderPlan plan = new Team.LeaderPlan(c.harness(1000, 1, 2, null, 1L << 32));
        List<Long> cmds = new ArrayList<>();
        long last = -1;
        while (true) {
            long cmd = plan.next(last);
            cmds.add(cmd);
            if (cmd == 0) {
                break;
            }
            last = (cmd & Team.CONTROL) != 0 ? 1 : 3 * (cmd & Team.N_MASK);
        }
        List<Long> want = sizingTo(256, 384);
        want.add(384 | Team.CONTROL); // the warm-up's control: sizing's last batch was its test
        for (int k = 0; k < 2; k++) {
            want.addAll(List.of(384 | Team.CONTROL, 384L));
        }
        want.add(0L);
        eq(cmds, want, "leader's commands");

        Scripted h = new Scripted();
        Team.LeaderPlan hinted = new Team.LeaderPlan(h.harness(1000, 0, 1, 300L, 1L << 32));
        eq(hinted.next(-1), 300L, "a hint is tried first");
        eq(hinted.next(900), 300 | Team.CONTROL, "a hint near the target is kept");

        Harness real = new Harness(new Job.HarnessConfig(20_000, 1, 3, 1L << 32, 0.05, "default"), null, System::nanoTime, 0, null);
        java.util.concurrent.atomic.AtomicLongArray ops = new java.util.concurrent.atomic.AtomicLongArray(3);
        Team.Result r = Team.measure(real, Activities.of("java-platform", 1, null), List.of(0, 1, 2), true, (thread, n) -> {
            Team.emptyLoop(thread, n * (thread + 1));
            ops.addAndGet(thread, n);
        }, Team::emptyLoop);
        eq(r.perThreadTestNs().size(), 3, "one row per member");
        eq(real.sizedBatchOps(), r.m().n(), "the team's N is the sized one");
        for (int k = 0; k < 3; k++) {
            long max = 0;
            for (long[] own : r.perThreadTestNs()) {
                max = Math.max(max, own[k]);
            }
            eq(r.m().testNs()[k], max, "the team's batch is the slowest member's");
        }
        eq(ops.get(0), ops.get(2), "every member runs every batch");
    }

    /** The protocol's lines. */
    static void lines() {
        Outcome o = new Outcome(new Harness.Measurement(8, new long[] {10, 11, 12}, new long[] {1, 2, 3}), 2);
        eq(o.batchesLine(8, 20), "{\"type\":\"batches\",\"v\":2,\"batch_ops\":8,\"per\":2,\"test_ns\":[10,11,12],\"control_ns\":[1,2,3],"
                + "\"resolution_ns\":20,\"sized_batch_ops\":8,\"notes\":[],\"extra\":{}}", "batches line");
        o.extra.put("k", 1.5);
        o.perThreadTestNs = List.of(new long[] {1, 2, 3});
        String line = o.batchesLine(0, 20.5);
        check(!line.contains("sized_batch_ops") && line.contains("\"resolution_ns\":20.5")
                && line.endsWith("\"extra\":{\"k\":1.5},\"per_thread_test_ns\":[[1,2,3]]}"), "batches line with extras: " + line);
        eq(Outcome.errorLine("a \"b\""), "{\"type\":\"error\",\"v\":2,\"message\":\"a \\\"b\\\"\"}", "error line");
        eq(Outcome.noteLine("n"), "{\"type\":\"note\",\"v\":2,\"text\":\"n\"}", "note line");
        eq(Outcome.perOpNs(new Harness.Measurement(10, new long[] {100, 300, 200}, new long[] {0, 100, 0}), 2), 10.0, "per-op median");
    }

    /** Errors come back as one error line (status 1); bad arguments give status 2; --version. */
    static void runErrors() {
        String[][] jobs = {
            {GOOD.replace("sync.sem", "no.such"), "unknown experiment \\\"no.such\\\""},
            {GOOD.replace("java-platform", "go"), "not measured by the Java probe"},
            {GOOD.replace("[\"op\",\"switch\"]", "[\"op\",\"q\"]"), "op:q is not one of"},
            {GOOD.replace("\"v\":2", "\"v\":3"), "protocol v3"},
            {"[", "JSON"},
        };
        for (String[] j : jobs) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int st = Main.run(new String[] {"--job", j[0]}, new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
            String s = out.toString(StandardCharsets.UTF_8);
            check(st == 1 && s.startsWith("{\"type\":\"error\",\"v\":2,\"message\":") && s.contains(j[1]), "error line for " + j[1] + ": " + s);
        }
        if (Activities.jdk() < 21) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            Main.run(new String[] {"--job", GOOD.replace("java-platform", "java-virtual")}, new PrintStream(out, true, StandardCharsets.UTF_8),
                    System.err);
            check(out.toString(StandardCharsets.UTF_8).contains("virtual threads need JDK \\u2265 21; this is JDK " + Activities.jdk()),
                    "virtual threads on an old JDK: " + out);
        }
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        eq(Main.run(new String[] {"--bogus"}, new PrintStream(sink), new PrintStream(sink)), 2, "usage error status");
        ByteArrayOutputStream v = new ByteArrayOutputStream();
        eq(Main.run(new String[] {"--version"}, new PrintStream(v, true, StandardCharsets.UTF_8), System.err), 0, "version status");
        eq(v.toString(StandardCharsets.UTF_8).trim(), "overhead-probe-java 1", "version line");
    }

    /** A grain.sweep job for runtime on CPUs [0, 1] with these parameters (a JSON array's inside). */
    static String grainJob(String runtime, String params) {
        return GOOD.replace("sync.sem", GrainSweep.ID).replace("java-platform", runtime).replace("[[\"op\",\"switch\"]]", "[" + params + "]")
                .replace("\"cpus\":[0,0],\"placement\":\"same_cpu\"", "\"cpus\":[0,1],\"placement\":null");
    }

    /** The two-CPU sweep's parameters, work:1000. */
    static final String GRAIN_PARAMS = "[\"threads\",\"2\"],[\"work\",\"1000\"]";

    /**
     * Holds a conversation of job with input on stdin, a 20 ms JIT warm-up; checks the exit status
     * and returns the lines written.
     */
    private static List<String> converse(String job, String input, int wantStatus) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int st = Main.answer(job, j -> new Harness(j.harness(), null, System::nanoTime, 20_000_000L, null), new java.io.StringReader(input),
                new PrintStream(out, true, StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8);
        check(st == wantStatus, "grain.sweep status " + st + ", want " + wantStatus + ": " + text);
        check(text.isEmpty() || text.endsWith("\n"), "every line ends: " + text);
        List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
        lines.remove(lines.size() - 1); // the empty rest after the last newline
        return lines;
    }

    /** Checks line is a runs line answering tasks:k, runs:r. */
    private static void runsLine(String line, long k, int r) {
        try {
            Map<?, ?> m = (Map<?, ?>) Json.parse(line);
            check(line.startsWith("{\"type\":\"runs\",\"v\":2,\"tasks\":" + k + ",\"test_ns\":["), "runs line's head: " + line);
            eq(List.copyOf(m.keySet()), List.of("type", "v", "tasks", "test_ns", "control_ns", "cpu_counts", "other_count"), "runs line's fields");
            eq(((List<?>) m.get("test_ns")).size(), r, "one test_ns a run: " + line);
            eq(((List<?>) m.get("control_ns")).size(), r, "one control_ns a run: " + line);
            for (String key : new String[] {"test_ns", "control_ns"}) {
                for (Object t : (List<?>) m.get(key)) {
                    check(t instanceof Long && (Long) t >= 0, key + " holds ns: " + line);
                }
            }
            eq(m.get("cpu_counts"), List.of(), "the JDK cannot tell a task's CPU");
            eq(m.get("other_count"), r * k, "other_count counts every task");
        } catch (Json.JsonException | ClassCastException e) {
            check(false, "runs line " + line + ": " + e);
        }
    }

    /** grain.sweep's conversation on java-platform and java-virtual: ready, runs lines, EOF; errors for bad requests and parameters. */
    static void grain() throws Exception {
        String ready = "{\"type\":\"ready\",\"v\":2}";
        for (String runtime : new String[] {"java-platform", "java-virtual"}) {
            String job = grainJob(runtime, GRAIN_PARAMS);
            if (runtime.equals("java-virtual") && Activities.jdk() < 21) {
                List<String> lines = converse(job, "{\"tasks\":1,\"runs\":1}\n", 1);
                check(lines.size() == 1 && lines.get(0).startsWith("{\"type\":\"error\",\"v\":2,\"message\":")
                        && lines.get(0).contains("virtual threads need JDK \\u2265 21; this is JDK " + Activities.jdk()),
                        "grain.sweep on virtual threads on an old JDK: " + lines);
                continue;
            }
            List<String> lines = converse(job, "{\"tasks\":10,\"runs\":3}\n{\"runs\":2, \"tasks\":1}\n{\"tasks\":2000,\"runs\":1}\n", 0);
            eq(lines.size(), 4, runtime + ": ready and three runs lines: " + lines);
            if (lines.size() == 4) {
                eq(lines.get(0), ready, runtime + ": ready first");
                runsLine(lines.get(1), 10, 3);
                runsLine(lines.get(2), 1, 2);
                runsLine(lines.get(3), 2000, 1); // more tasks than reads: none reads, every one counts
            }
            eq(converse(job, "", 0), List.of(ready), runtime + ": EOF at once, ready only");
        }

        String job = grainJob("java-platform", GRAIN_PARAMS);
        String[][] badRequests = {{"{\"tasks\":0,\"runs\":1}", "tasks must be an integer from 1"},
            {"{\"tasks\":1,\"runs\":1,\"cpu\":0}", "unknown field \\\"cpu\\\""},
            {"tasks=1", "JSON"}, {"{\"tasks\":1}", "has no \\\"runs\\\""},
            {"{\"tasks\":1.5,\"runs\":1}", "tasks must be an integer"}, {"{\"tasks\":2,\"runs\":-1}", "runs must be an integer"},
            {"{\"tasks\":\"2\",\"runs\":1}", "tasks must be an integer"}, {"[2,1]", "must be a JSON object"}, {"", "JSON"}};
        for (String[] bad : badRequests) {
            List<String> lines = converse(job, "{\"tasks\":3,\"runs\":1}\n" + bad[0] + "\n{\"tasks\":3,\"runs\":1}\n", 1);
            check(lines.size() == 3 && lines.get(0).equals(ready) && lines.get(1).startsWith("{\"type\":\"runs\"")
                    && lines.get(2).startsWith("{\"type\":\"error\",\"v\":2,\"message\":") && lines.get(2).contains(bad[1]),
                    "request " + bad[0] + ": a runs line, then an error saying " + bad[1] + ", then nothing: " + lines);
        }

        String[][] badParams = {{"[\"threads\",\"3\"],[\"work\",\"1000\"]", "threads:3 needs 3 CPUs"},
            {"[\"threads\",\"2\"],[\"work\",\"0\"]", "work:0 is not an integer"},
            {"[\"threads\",\"2\"]", "needs parameter \\\"work\\\""},
            {"[\"threads\",\"0\"],[\"work\",\"10\"]", "threads:0 is not an integer"},
            {"[\"threads\",\"2\"],[\"work\",\"10\"],[\"tasks\",\"1\"]", "unknown parameter \\\"tasks\\\""}};
        for (String[] bad : badParams) {
            List<String> lines = converse(grainJob("java-platform", bad[0]), "{\"tasks\":1,\"runs\":1}\n", 1);
            check(lines.size() == 1 && lines.get(0).startsWith("{\"type\":\"error\",\"v\":2,\"message\":") && lines.get(0).contains(bad[1]),
                    "parameters " + bad[0] + ": an error saying " + bad[1] + ": " + lines);
        }
        eq(GrainSweep.request("{\"tasks\":10000000,\"runs\":7}")[0], 10_000_000L, "a large task count");

        // Through Main.run, the harness's own warm-up shortened by overhead.jitWarmupMs.
        String before = System.getProperty("overhead.jitWarmupMs");
        System.setProperty("overhead.jitWarmupMs", "20");
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int st = Main.run(new String[] {"--job", job}, new java.io.StringReader("{\"tasks\":4,\"runs\":2}\n"),
                    new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
            String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
            check(st == 0 && lines.length == 2 && lines[0].equals(ready), "Main.run holds the conversation: " + Arrays.toString(lines));
            if (lines.length == 2) {
                runsLine(lines[1], 4, 2);
            }
        } finally {
            if (before == null) {
                System.clearProperty("overhead.jitWarmupMs");
            } else {
                System.setProperty("overhead.jitWarmupMs", before);
            }
        }
    }

    /** A point of experiment on runtime and cpus with key, value, … parameters, on a 20 µs harness with no JIT warm-up. */
    static Point point(String experiment, String runtime, List<Integer> cpus, String... kv) throws ProbeException {
        List<String[]> params = new ArrayList<>();
        for (int k = 0; k + 1 < kv.length; k += 2) {
            params.add(new String[] {kv[k], kv[k + 1]});
        }
        Job.Spec spec = new Job.Spec(experiment, runtime, params, cpus, null);
        Point p = new Point(spec, new Harness(new Job.HarnessConfig(20_000, 1, 2, 1L << 32, 0.05, "quick"), null, System::nanoTime, 0, null));
        p.act = Activities.of(runtime, spec.distinctCpus(), p);
        return p;
    }

    /** n copies of cpu, then m copies of cpu2. */
    static List<Integer> cpus(int cpu, int n, int cpu2, int m) {
        List<Integer> out = new ArrayList<>();
        for (int k = 0; k < n + m; k++) {
            out.add(k < n ? cpu : cpu2);
        }
        return out;
    }

    /**
     * msg.throughput: every queue, at every capacity it has, in every pattern and placement, delivers every
     * message exactly once and in order per producer (the ledger); the ledger catches faults; parameters a
     * queue does not have are refused by name.
     */
    static void throughput() throws Exception {
        List<String> runtimes = new ArrayList<>(List.of("java-platform"));
        if (Activities.jdk() >= 21) {
            runtimes.add("java-virtual");
        }
        int[][] parties = {{1, 0}, {1, 1}, {ThroughputFamily.PRODUCERS, 1}, {ThroughputFamily.PRODUCERS, ThroughputFamily.PRODUCERS}};
        String[] patterns = {"seq", "spsc", "mpsc", "mpmc"};
        for (String runtime : runtimes) {
            for (String impl : ThroughputFamily.IMPLS) {
                for (String capacity : ThroughputFamily.capacities(impl)) {
                    for (int k = 0; k < patterns.length; k++) {
                        if (patterns[k].equals("seq") && capacity.equals("0")) {
                            continue;
                        }
                        int np = parties[k][0];
                        int nc = parties[k][1];
                        for (String placement : nc == 0 ? List.of("same_cpu") : List.of("same_cpu", "other_core")) {
                            List<Integer> cpus = placement.equals("same_cpu") ? cpus(0, np + nc, 0, 0) : cpus(0, np, 1, nc);
                            Point p = point("msg.throughput", runtime, cpus, "impl", impl, "pattern", patterns[k], "capacity", capacity,
                                    "placement", placement);
                            String name = p.spec.name();
                            ThroughputFamily.Stream st = p.act.inContext(
                                    () -> ThroughputFamily.stream(p.h, p.act, ThroughputFamily.parse(p.spec), cpus));
                            eq(st.ledger().problem(impl), null, name + ": every message once, in order");
                            check(st.ledger().stats[ThroughputFamily.Ledger.MESSAGES] > 0, name + ": producer 0 sent");
                            eq(st.outcome().m.testNs().length, 2, name + ": kept pairs");
                            eq(st.outcome().perThreadTestNs == null ? 0 : st.outcome().perThreadTestNs.size(), nc == 0 ? 0 : np + nc,
                                    name + ": one row per party");
                            Outcome o = p.act.inContext(() -> ThroughputFamily.throughput(p));
                            check(o.m.n() > 0 && o.per == 1, name + ": the point measures");
                        }
                    }
                }
            }
        }

        java.util.function.BiFunction<Integer, long[], ThroughputFamily.Ledger> receive = (producers, values) -> {
            java.util.concurrent.LinkedBlockingQueue<Long> q = new java.util.concurrent.LinkedBlockingQueue<>();
            for (long v : values) {
                q.add(v);
            }
            ThroughputFamily.Ledger l = new ThroughputFamily.Ledger(1, 1);
            try {
                ThroughputFamily.consume(q, producers, values.length, l, 0);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return l;
        };
        long one = 1L << ThroughputFamily.TAG_SHIFT;
        int disorder = ThroughputFamily.Ledger.DISORDER;
        int off = ThroughputFamily.STRIDE; // consumer 0's slot in a ledger of one producer
        eq(receive.apply(2, new long[] {0, one, 1, one | 1, 2}).stats[off + disorder], 0L, "in order per producer");
        eq(receive.apply(2, new long[] {0, 2, 1}).stats[off + disorder], 1L, "reordered");
        eq(receive.apply(2, new long[] {0, 1, 1}).stats[off + disorder], 1L, "duplicated");
        eq(receive.apply(2, new long[] {0, 5 * one}).stats[off + disorder], 1L, "a stranger's tag");
        ThroughputFamily.Ledger lost = receive.apply(1, new long[] {0, 1});
        lost.stats[ThroughputFamily.Ledger.MESSAGES] = 3;
        lost.stats[ThroughputFamily.Ledger.SUM] = 3;
        String why = lost.problem("q");
        check(why != null && why.contains("sent 3"), "a lost message: " + why);
        ThroughputFamily.Ledger swapped = receive.apply(1, new long[] {0, 1, 3});
        swapped.stats[ThroughputFamily.Ledger.MESSAGES] = 3;
        swapped.stats[ThroughputFamily.Ledger.SUM] = 3;
        check(swapped.problem("q") != null, "a message replaced by another");

        String[][] refused = {
            {"linked_transfer_queue", "spsc", "1", "same_cpu", "0,0", "linked_transfer_queue has no capacity:1 (it has capacity:unbounded)"},
            {"synchronous_queue", "spsc", "1024", "same_cpu", "0,0", "has no capacity:1024 (it has capacity:0)"},
            {"array_blocking_queue", "spsc", "unbounded", "same_cpu", "0,0", "has no capacity:unbounded (it has capacity:1, 1024)"},
            {"chan", "spsc", "1", "same_cpu", "0,0", "impl:chan is not one of"},
            {"linked_blocking_queue", "seq", "1", "other_core", "0", "does not apply"},
            {"linked_blocking_queue", "mpsc", "1", "same_cpu", "0,0", "need 5 CPUs"},
            {"linked_blocking_queue", "spsc", "1", "same_cpu", "0,1", "one CPU for every party"},
            {"linked_blocking_queue", "spsc", "1", "other_core", "1,1", "consumers on another"},
        };
        for (String[] r : refused) {
            List<Integer> cpus = new ArrayList<>();
            for (String c : r[4].split(",")) {
                cpus.add(Integer.parseInt(c));
            }
            Point p = point("msg.throughput", "java-platform", cpus, "impl", r[0], "pattern", r[1], "capacity", r[2], "placement", r[3]);
            try {
                ThroughputFamily.parse(p.spec);
                check(false, "accepted " + p.spec.name());
            } catch (ProbeException e) {
                check(e.getMessage().contains(r[5]), "error '" + e.getMessage() + "' should say " + r[5]);
            }
        }
    }

    /** sync.rwlock: both locks at every writers share on one and two members; updates are not lost; writers:5 refused. */
    static void rwlock() throws Exception {
        for (String lock : List.of("reentrant_rw", "stamped")) {
            for (String writers : List.of("1", "10", "50")) {
                for (List<Integer> cpus : List.of(List.of(0), List.of(0, 1))) {
                    Point p = point("sync.rwlock", "java-platform", cpus, "lock", lock, "writers", writers, "threads", "" + cpus.size());
                    Outcome o = ContentionFamily.rwlock(p);
                    eq(o.perThreadTestNs.size(), cpus.size(), p.spec.name() + ": one row per member");
                }
            }
        }
        try {
            ContentionFamily.rwlock(point("sync.rwlock", "java-platform", List.of(0), "lock", "stamped", "writers", "5", "threads", "1"));
            check(false, "writers:5 accepted");
        } catch (ProbeException e) {
            check(e.getMessage().contains("writers:5 is not one of 1, 10, 50"), "writers:5: " + e.getMessage());
        }
    }

    /**
     * The counted pairs count the process's context switches per operation, control subtracted: a batch that
     * parks once an operation counts about one voluntary switch per operation, its empty control none; the
     * batches line divides by per; a job's counted_pairs reaches the harness, an older job's means none.
     */
    static void counts() throws Exception {
        // 500 parks a batch: the JVM's compiler threads switch 10-20 times in a window while it compiles
        // (seen here), which 20 sleeps a batch could not outweigh (a CI run read 0.1 voluntary per sleep).
        Harness.Batch sleep = n -> {
            for (long i = 0; i < n; i++) {
                java.util.concurrent.locks.LockSupport.parkNanos(20_000);
            }
        };
        Harness.Batch nothing = n -> { };
        java.util.Map<String, Double> c = ProcessSwitches.countedPairs(5, 500, sleep, nothing, nothing, nothing);
        if (ProcessSwitches.off() || ProcessSwitches.read() == null) {
            check(c.isEmpty(), "counting off or no /proc: nothing counted");
            return;
        }
        check(c.get(ProcessSwitches.VOLUNTARY) >= 0.9 && c.get(ProcessSwitches.VOLUNTARY) <= 1.5, "about one voluntary switch per park: " + c);
        Outcome o = new Outcome(new Harness.Measurement(500, new long[] {1}, new long[] {1}, c), 2);
        @SuppressWarnings("unchecked")
        java.util.Map<String, Object> line = (java.util.Map<String, Object>) Json.parse(o.batchesLine(0, 1));
        double halved = Json.number(Json.object(line, "extra", "batches"), ProcessSwitches.VOLUNTARY, "extra");
        check(Math.abs(halved - c.get(ProcessSwitches.VOLUNTARY) / 2) < 1e-9, "per 2 halves the count: " + o.batchesLine(0, 1));
        check(ProcessSwitches.countedPairs(0, 20, sleep, nothing, nothing, nothing).isEmpty(), "no counted pair, no count");
        // Kept per thread: a thread that ends in the window loses only what it did in it (its 500 earlier
        // switches do not read as −500), and one born in it counts all of its own.
        java.util.Map<Long, long[]> start = java.util.Map.of(1L, new long[] {10, 3}, 2L, new long[] {500, 40});
        java.util.Map<Long, long[]> end = java.util.Map.of(1L, new long[] {30, 4}, 3L, new long[] {2, 1});
        long[] window = ProcessSwitches.between(start, end);
        eq(window[0], 22L, "voluntary: 20 by the thread that stayed, 2 by the one born");
        eq(window[1], 2L, "involuntary: 1 + 1");
        String job = "{\"v\":2,\"spec\":{\"experiment\":\"x\",\"runtime\":\"java-platform\",\"params\":[],\"cpus\":[0]},"
                + "\"harness\":{\"target_batch_ns\":1000.0,\"warmup\":1,\"repetitions\":3,\"max_batch_ops\":100,"
                + "\"noisy_fraction\":0.05,\"mode\":\"quick\"%s}}";
        eq(Job.parse(String.format(job, ",\"counted_pairs\":2")).harness().countedPairs(), 2, "counted_pairs read");
        eq(Job.parse(String.format(job, "")).harness().countedPairs(), 0, "no counted_pairs: none");
    }
}
