package overhead.probe;

import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Reader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeSet;

/**
 * The Java external probe of overhead: measures one point (an experiment on {@code java-platform} or
 * {@code java-virtual}) given as a JSON job and prints JSON lines (probes/README.md).
 *
 * <pre>
 *   java [flags] -cp CLASSES overhead.probe.Main --job '&lt;JSON&gt;'   one final batches or error line
 *                                          (grain.sweep: ready, then a runs line per request on stdin)
 *   java -cp CLASSES overhead.probe.Main --version                   overhead-probe-java 1
 * </pre>
 */
public final class Main {
    /** The probe's own version line. */
    public static final String VERSION = "overhead-probe-java 1";

    /** Measures one point of one experiment. */
    @FunctionalInterface
    public interface Experiment {
        Outcome run(Point p) throws Exception;
    }

    /** The registry: public experiment ID to its measurement. */
    static final Map<String, Experiment> EXPERIMENTS = Map.ofEntries(
            Map.entry("base.loop", BaseFamily::loop),
            Map.entry("base.call", BaseFamily::call),
            Map.entry("msg.call", MsgFamily::call),
            Map.entry("msg.async", MsgFamily::async),
            Map.entry("msg.switch", MsgFamily::messageSwitch),
            Map.entry("msg.rendezvous", MsgFamily::rendezvous),
            Map.entry("spawn.create", SpawnFamily::create),
            Map.entry("sync.sem", SemFamily::sem),
            Map.entry("sched.switch", SchedFamily::switchRoundTrip),
            Map.entry("sched.yield", FanOutFamily::yieldRound),
            Map.entry("spawn.forkjoin", FanOutFamily::forkJoin),
            Map.entry("spawn.bulk", FanOutFamily::bulk),
            Map.entry("sync.faa", ContentionFamily::faa),
            Map.entry("sync.mutex", ContentionFamily::mutex),
            Map.entry("sync.barrier", ContentionFamily::barrier),
            Map.entry("sync.rwlock", ContentionFamily::rwlock),
            Map.entry("msg.throughput", ThroughputFamily::throughput));

    private Main() {
    }

    /** Runs the probe and exits the JVM with run's status. */
    public static void main(String[] args) {
        int status = run(args, System.out, System.err);
        System.out.flush();
        // System.exit: a partner activity left blocked by a failed point must not keep the JVM alive.
        System.exit(status);
    }

    /** {@link #run(String[], Reader, PrintStream, PrintStream)} with grain.sweep's requests read from stdin (UTF-8). */
    static int run(String[] args, PrintStream out, PrintStream err) {
        return run(args, new InputStreamReader(System.in, StandardCharsets.UTF_8), out, err);
    }

    /**
     * Parses the command line and measures the job, or holds grain.sweep's conversation with requests
     * read from in; returns 0, 1 (an error line) or 2 (usage).
     */
    static int run(String[] args, Reader in, PrintStream out, PrintStream err) {
        if (args.length == 1 && args[0].equals("--version")) {
            out.println(VERSION);
            return 0;
        }
        String job;
        if (args.length == 2 && args[0].equals("--job")) {
            job = args[1];
        } else if (args.length == 1 && args[0].startsWith("--job=")) {
            job = args[0].substring("--job=".length());
        } else {
            err.println("usage: overhead.probe.Main --job '<JSON>' | --version (got " + String.join(" ", args) + ")");
            return 2;
        }
        return answer(job, Harness::forJob, in, out);
    }

    /**
     * Answers a job on out: one batches line, or for grain.sweep the conversation with requests read
     * from in ({@link GrainSweep}); harnessFor makes the harness (tests script it). Returns 0, or 1
     * after writing the error line.
     */
    static int answer(String job, java.util.function.Function<Job, Harness> harnessFor, Reader in, PrintStream out) {
        try {
            Job parsed = Job.parse(job);
            if (parsed.spec().experiment().equals(GrainSweep.ID)) {
                GrainSweep.converse(parsed, harnessFor.apply(parsed), in, out);
            } else {
                out.println(runJob(parsed, harnessFor));
            }
            return 0;
        } catch (ProbeException | Json.JsonException e) {
            out.println(Outcome.errorLine(e.getMessage()));
        } catch (Throwable e) {
            java.io.StringWriter trace = new java.io.StringWriter();
            e.printStackTrace(new java.io.PrintWriter(trace));
            out.println(Outcome.errorLine("probe failed: " + trace));
        }
        return 1;
    }

    /** Measures a job and returns its batches line; harnessFor makes the harness (tests script it). */
    static String runJob(String text, java.util.function.Function<Job, Harness> harnessFor) throws Exception {
        return runJob(Job.parse(text), harnessFor);
    }

    /** Measures a parsed job and returns its batches line; harnessFor makes the harness. */
    static String runJob(Job job, java.util.function.Function<Job, Harness> harnessFor) throws Exception {
        Point p = new Point(job.spec(), harnessFor.apply(job));
        p.act = Activities.of(job.spec().runtime(), job.spec().distinctCpus(), p);
        Experiment e = EXPERIMENTS.get(job.spec().experiment());
        if (e == null) {
            throw new ProbeException("unknown experiment \"" + job.spec().experiment() + "\" for runtime " + job.spec().runtime()
                    + " (known: " + String.join(", ", known()) + ")");
        }
        double resolution = p.h.clockResolutionNs();
        Outcome o = p.act.inContext(() -> e.run(p));
        o.notes.addAll(0, p.h.notes());
        o.notes.addAll(0, p.notes);
        return o.batchesLine(p.h.sizedBatchOps(), resolution);
    }

    /** Every experiment the probe answers: the registry's and grain.sweep (a conversation), sorted. */
    static TreeSet<String> known() {
        TreeSet<String> ids = new TreeSet<>(EXPERIMENTS.keySet());
        ids.add(GrainSweep.ID);
        return ids;
    }

    /**
     * Refuses a point whose callee C2 could inline: the JVM must have been started with
     * {@code -XX:CompileCommand=dontinline,overhead.probe.Callee*::*}.
     */
    static void requireDontinline(Point p) throws ProbeException {
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.equals("-XX:CompileCommand=" + Callee.DONTINLINE)) {
                return;
            }
        }
        throw p.error("the JVM must be started with -XX:CompileCommand=" + Callee.DONTINLINE
                + " (and -XX:CompileCommand=quiet), or C2 inlines the callee (probes/README.md)");
    }
}
