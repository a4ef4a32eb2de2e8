package overhead.probe;

/** base: the costs every other number sits on (Souvatzis's first rows; crates/experiments/src/base/). */
final class BaseFamily {
    private BaseFamily() {
    }

    /** base.loop: one iteration of the control loop ({@link Loops#emptyLoop}) against no loop; per iteration. */
    static Outcome loop(Point p) throws Exception {
        Loops.single(p);
        return new Outcome(p.h.measure(Loops::emptyLoop, Loops::noLoop), 1);
    }

    /**
     * base.call: a static call of {@link Callee#call}, never inlined (CompileCommand dontinline), and its
     * return inside the control loop, against the control loop; per call.
     */
    static Outcome call(Point p) throws Exception {
        Loops.single(p);
        Main.requireDontinline(p);
        Harness.Batch test = n -> {
            long s = 0;
            for (long i = 0; i < n; i++) {
                s += Callee.call(i);
            }
            Loops.sink = s;
        };
        return new Outcome(p.h.measure(test, Loops::emptyLoop), 1);
    }
}
