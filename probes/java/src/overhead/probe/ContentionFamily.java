package overhead.probe;

import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.concurrent.locks.StampedLock;

/**
 * Contention between CPUs (crates/experiments/src/sync/{faa,mutex,barrier}.rs, crates/runtimes/src/os/contention.rs):
 * a team of T activities (threads:T, one per CPU of the point), started together; the time per
 * operation is the slowest member's, against the control loop. Members are not pinned (Java cannot);
 * the process's affinity holds them to the point's CPUs.
 */
final class ContentionFamily {
    private ContentionFamily() {
    }

    /** Checks a team point's parameters, and that threads:T matches its T distinct CPUs; returns T. */
    static Params teamPoint(Point p, int min, Params.Rule... rules) throws ProbeException {
        Params.Rule[] all = java.util.Arrays.copyOf(rules, rules.length + 1);
        all[rules.length] = Params.Rule.of("threads");
        Params params = Params.parse(p.spec, all);
        int t = params.integer("threads", min);
        if (t != p.spec.cpus().size() || p.spec.distinctCpus() != t) {
            throw p.error("threads:" + t + " needs " + t + " distinct CPUs; cpus " + p.spec.cpus());
        }
        if (!p.act.virtual) {
            p.note("Java cannot pin platform threads: the " + t + " members run where the kernel puts them within CPUs "
                    + p.spec.cpus());
        }
        return params;
    }

    /** Longs between two counters: 128 bytes, two cache lines (the os runtime's CachePadded). */
    static final int STRIDE = 16;

    /**
     * sync.faa, impl:hw: AtomicLongArray.getAndIncrement (lock xadd on x86-64) by every member on one
     * shared counter (variable:shared) or on its own counter 128 bytes from the others'
     * (variable:distinct). Per add of one member while the others add.
     */
    static Outcome faa(Point p) throws Exception {
        Params params = teamPoint(p, 1, Params.Rule.of("impl", "hw"), Params.Rule.of("variable", "shared", "distinct"));
        boolean shared = params.get("variable").equals("shared");
        int t = p.spec.cpus().size();
        AtomicLongArray counters = new AtomicLongArray(STRIDE * (t + 2));
        Team.Body test = (thread, n) -> {
            int index = STRIDE * (shared ? 1 : thread + 1);
            for (long i = 0; i < n; i++) {
                counters.getAndIncrement(index);
            }
        };
        return Team.measure(p.h, p.act, p.spec.cpus(), false, test, Team::emptyLoop).outcome();
    }

    /** The lock of lock:synchronized, and the counter every lock protects. */
    private static final Object MONITOR = new Object();
    private static long counter;

    /**
     * sync.mutex: a lock around a shared counter's increment, by T members on one lock; threads:1 is the
     * uncontended cost. lock:synchronized is a monitor (thin lock, inflated under contention; on JDK
     * 21–23 a virtual thread blocking on one pins its carrier), lock:reentrant a non-fair ReentrantLock
     * (AQS: spins briefly, then parks). Per lock/unlock pair of one member.
     */
    static Outcome mutex(Point p) throws Exception {
        Params params = teamPoint(p, 1, Params.Rule.of("lock", "synchronized", "reentrant"));
        Team.Body test;
        if (params.get("lock").equals("synchronized")) {
            test = (thread, n) -> {
                for (long i = 0; i < n; i++) {
                    synchronized (MONITOR) {
                        counter++;
                    }
                }
            };
        } else {
            ReentrantLock lock = new ReentrantLock();
            test = (thread, n) -> {
                for (long i = 0; i < n; i++) {
                    lock.lock();
                    try {
                        counter++;
                    } finally {
                        lock.unlock();
                    }
                }
            };
        }
        Outcome o = Team.measure(p.h, p.act, p.spec.cpus(), false, test, Team::emptyLoop).outcome();
        synchronized (MONITOR) {
            Loops.sink = counter;
        }
        return o;
    }

    /** The counter a reader-writer lock protects, alone in its object. */
    static final class Guarded {
        long value;
    }

    /**
     * sync.rwlock: T members on one reader-writer lock, writers:W percent of each member's
     * operations write (write lock, increment a shared counter, unlock), the rest read (read lock, load it,
     * unlock). lock:reentrant_rw is a non-fair ReentrantReadWriteLock (AQS: readers share a count, waiters
     * park), lock:stamped a StampedLock's pessimistic readLock/writeLock (its optimistic reads are not a
     * reader-writer lock's read and are not measured). Per operation of one member.
     */
    static Outcome rwlock(Point p) throws Exception {
        Params params = teamPoint(p, 1, Params.Rule.of("lock", "reentrant_rw", "stamped"), Params.Rule.of("writers", "1", "10", "50"));
        int writers = params.integer("writers", 1);
        // every is 100 / writers (writers divides 100): operation i writes exactly when i % every == 0.
        long every = 100 / writers;
        long[] wrote = new long[STRIDE * (p.spec.cpus().size() + 1)];
        Guarded cell = new Guarded();
        Team.Body test;
        // In both: operation i writes when (i * writers) % 100 < writers (the rule of crates/runtimes/src/contention.rs's
        // RwLockContention, shared with the Rust side); phase is (i * writers) % 100, kept by an add.
        if (params.get("lock").equals("reentrant_rw")) {
            ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
            Lock read = rw.readLock();
            Lock write = rw.writeLock();
            test = (thread, n) -> {
                int phase = 0;
                long s = 0;
                for (long i = 0; i < n; i++) {
                    if (phase < writers) {
                        write.lock();
                        try {
                            cell.value++;
                        } finally {
                            write.unlock();
                        }
                    } else {
                        read.lock();
                        try {
                            s += cell.value;
                        } finally {
                            read.unlock();
                        }
                    }
                    phase += writers;
                    if (phase >= 100) {
                        phase -= 100;
                    }
                }
                Team.SINKS[16 * (thread + 1)] = s;
                wrote[STRIDE * (thread + 1)] += (n + every - 1) / every;
            };
        } else {
            StampedLock lock = new StampedLock();
            test = (thread, n) -> {
                int phase = 0;
                long s = 0;
                for (long i = 0; i < n; i++) {
                    if (phase < writers) {
                        long stamp = lock.writeLock();
                        try {
                            cell.value++;
                        } finally {
                            lock.unlockWrite(stamp);
                        }
                    } else {
                        long stamp = lock.readLock();
                        try {
                            s += cell.value;
                        } finally {
                            lock.unlockRead(stamp);
                        }
                    }
                    phase += writers;
                    if (phase >= 100) {
                        phase -= 100;
                    }
                }
                Team.SINKS[16 * (thread + 1)] = s;
                wrote[STRIDE * (thread + 1)] += (n + every - 1) / every;
            };
        }
        Outcome o = Team.measure(p.h, p.act, p.spec.cpus(), false, test, Team::emptyLoop).outcome();
        long want = 0;
        for (int k = STRIDE; k < wrote.length; k += STRIDE) {
            want += wrote[k];
        }
        // The members are joined: their writes are visible here.
        if (cell.value != want) {
            throw p.error(params.get("lock") + " lost updates: the counter is " + cell.value + " after " + want + " writes");
        }
        Loops.sink = cell.value;
        return o;
    }

    /**
     * sync.barrier, impl:cyclic: java.util.concurrent.CyclicBarrier.await by T ≥ 2 members (a
     * ReentrantLock and a Condition; waiters park). Per episode.
     */
    static Outcome barrier(Point p) throws Exception {
        teamPoint(p, 2, Params.Rule.of("impl", "cyclic"));
        CyclicBarrier b = new CyclicBarrier(p.spec.cpus().size());
        Team.Body test = (thread, n) -> {
            for (long i = 0; i < n; i++) {
                b.await();
            }
        };
        return Team.measure(p.h, p.act, p.spec.cpus(), false, test, Team::emptyLoop).outcome();
    }
}
