package overhead.probe;

import java.lang.reflect.Method;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadFactory;

/**
 * The runtime under test: how a Java probe makes its activities. {@code java-platform}: platform
 * (kernel) threads, the measuring loop on the probe's main thread. {@code java-virtual}: virtual
 * threads (JDK ≥ 21, reached through reflection so the sources compile with --release 17), the
 * measuring loop itself inside a virtual thread, so every party of a point is a virtual thread on
 * the scheduler's carriers.
 */
public final class Activities {
    /** The runtime's public name. */
    public final String name;
    /** Makes (unstarted) activities of this runtime. */
    public final ThreadFactory factory;
    /** Whether activities are virtual threads. */
    public final boolean virtual;

    /** Activities of runtime name, made by factory. */
    private Activities(String name, ThreadFactory factory, boolean virtual) {
        this.name = name;
        this.factory = factory;
        this.virtual = virtual;
    }

    /** The JDK's feature release (17, 21, 25…). */
    public static int jdk() {
        return Runtime.version().feature();
    }

    /**
     * The activities of runtime {@code java-platform} or {@code java-virtual}. For virtual threads on
     * a JDK ≥ 21 the scheduler's parallelism is set to {@code carriers} (the point's distinct CPUs)
     * unless the command line set {@code -Djdk.virtualThreadScheduler.parallelism}: the property is
     * read when the first virtual thread is made, which has not happened yet.
     */
    public static Activities of(String runtime, int carriers, Point p) throws ProbeException {
        switch (runtime) {
            case "java-platform":
                return new Activities(runtime, r -> new Thread(r), false);
            case "java-virtual":
                if (jdk() < 21) {
                    throw new ProbeException("virtual threads need JDK ≥ 21; this is JDK " + jdk());
                }
                String key = "jdk.virtualThreadScheduler.parallelism";
                String given = System.getProperty(key);
                if (given == null) {
                    System.setProperty(key, Integer.toString(carriers));
                    p.note("-D" + key + " was not given; set to " + carriers + " (the point's distinct CPUs) before the first virtual thread");
                } else if (!given.equals(Integer.toString(carriers))) {
                    p.note("-D" + key + "=" + given + " but the point has " + carriers + " distinct CPU(s)");
                }
                try {
                    Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
                    Method factory = Class.forName("java.lang.Thread$Builder").getMethod("factory");
                    return new Activities(runtime, (ThreadFactory) factory.invoke(builder), true);
                } catch (ReflectiveOperationException e) {
                    throw new ProbeException("virtual threads unavailable on JDK " + jdk() + ": " + e);
                }
            default:
                throw new ProbeException("runtime \"" + runtime + "\" is not measured by the Java probe (it measures java-platform, java-virtual)");
        }
    }

    /** Starts a new activity running r. */
    public Thread start(Runnable r) {
        Thread t = factory.newThread(r);
        t.start();
        return t;
    }

    /**
     * Runs body where this runtime's activities run and returns its result: on the calling thread for
     * platform threads; in a new virtual thread, joined, for virtual ones (like tokio's block_on).
     */
    public <T> T inContext(Callable<T> body) throws Exception {
        if (!virtual) {
            return body.call();
        }
        Object[] result = new Object[1];
        Throwable[] failure = new Throwable[1];
        Thread t = start(() -> {
            try {
                result[0] = body.call();
            } catch (Throwable e) {
                failure[0] = e;
            }
        });
        t.join();
        if (failure[0] instanceof Exception) {
            throw (Exception) failure[0];
        }
        if (failure[0] != null) {
            throw new RuntimeException(failure[0]);
        }
        @SuppressWarnings("unchecked")
        T r = (T) result[0];
        return r;
    }
}
