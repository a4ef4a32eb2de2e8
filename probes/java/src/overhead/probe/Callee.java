package overhead.probe;

import java.util.function.LongUnaryOperator;

/**
 * The callees of base.call and msg.call. The JVM must be started with
 * {@code -XX:CompileCommand=dontinline,overhead.probe.Callee*::*} (probes/README.md), so C2 never
 * inlines them, whatever the profile says: a call here is a real call and return, as Rust's
 * {@code #[inline(never)]} and Go's {@code //go:noinline}. {@link Main} checks the flag is there.
 */
public final class Callee {
    private Callee() {
    }

    /** The pattern of methods the JVM must not inline. */
    public static final String DONTINLINE = "dontinline,overhead.probe.Callee*::*";

    /** base.call's callee: one argument in, one result out. */
    public static long call(long x) {
        return x + 1;
    }

    /** msg.call's operation, behind a LongUnaryOperator reference (Rust's {@code &dyn Fn}). */
    public static final class Operation implements LongUnaryOperator {
        @Override
        public long applyAsLong(long x) {
            return x + 1;
        }
    }

    /** msg.call new_task:yes's new activity: computes the operation on its argument. */
    public static final class Answer implements Runnable {
        final long x;
        long result;

        /** The answer to the call with argument x. */
        Answer(long x) {
            this.x = x;
        }

        @Override
        public void run() {
            result = call(x);
        }
    }
}
