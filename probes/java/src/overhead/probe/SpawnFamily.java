package overhead.probe;

/** spawn: creating activities (crates/experiments/src/spawn/). */
final class SpawnFamily {
    private SpawnFamily() {
    }

    /** The body of a spawned activity: nothing. */
    private static final Runnable EMPTY = () -> { };

    /**
     * spawn.create: start a new activity running nothing and join it; per activity. java-platform:
     * {@code kind:thread}, a platform Thread (a kernel thread: clone, a stack, exit); java-virtual:
     * {@code kind:task}, a virtual thread (a continuation scheduled on the carrier; on one carrier the
     * join parks the creator and the new thread runs). Against the control loop.
     */
    static Outcome create(Point p) throws Exception {
        String kind = p.act.virtual ? "task" : "thread";
        Loops.single(p, Params.Rule.of("kind", kind));
        Activities act = p.act;
        act.start(EMPTY).join(); // fails here, not in a timed batch, if no activity can be made
        Harness.Batch test = n -> {
            for (long i = 0; i < n; i++) {
                act.start(EMPTY).join();
            }
        };
        return new Outcome(p.h.measure(test, Loops::emptyLoop), 1);
    }
}
