//! Waking every waiter at once, as a runtime implements it: Ben-Asher & Feitelson 1991 §5 (and §8.2's barrier release),
//! written once as `sched.broadcast` against [`WakeAll`] (docs/ARCHITECTURE.md "Runtimes under test"),
//! with the broadcast episode that the kernel-thread and tokio mechanisms share.

use std::cell::Cell;
use std::hint::spin_loop;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crossbeam_utils::CachePadded;

use overhead_clock::Clock;
use overhead_harness::{Harness, Measurement};
use overhead_record::Outcome;

/// Where a runtime's waiters run, which decides the CPUs of a `sched.broadcast` point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaiterCpus {
    /// One kernel thread per waiter, pinned round-robin on the CPUs other than the waker's: the point's
    /// CPUs are the waker's, then one per waiter.
    OnePerWaiter,
    /// The waiters are tasks of a pool with one pinned worker per CPU other than the waker's: the
    /// point's CPUs are the waker's, then the workers'.
    Pool,
    /// The waiters share the waker's kernel thread: the point's one CPU is the waker's.
    WakersThread,
}

/// `sched.broadcast`'s mechanisms (its `mechanism:` parameter), across runtimes ([`super::Offers::wake_all`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WakeMechanism {
    /// A generation word and `FUTEX_WAKE` of all sleepers.
    Futex,
    /// std's `Condvar::notify_all`.
    Condvar,
    /// An async runtime's notify-all to waiting tasks: tokio's `Notify::notify_waiters`, smol's (event-listener's)
    /// `Event::notify(usize::MAX)`.
    Notify,
    /// N V's on a semaphore N fibers are blocked in P on.
    Semaphore,
}

/// What a runtime offers of [`super::Capability::WakeAll`]: its mechanisms, in plan order, and where its
/// waiters run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WakeAllOffer {
    /// The `mechanism:` values of `sched.broadcast`.
    pub mechanisms: &'static [WakeMechanism],
    /// Where its waiters run, which decides a point's CPUs.
    pub waiter_cpus: WaiterCpus,
}

/// [`super::Capability::WakeAll`]: one activity wakes `waiters` activities blocked on one condition and
/// waits until the last of them has run, one broadcast episode per operation, against a control that
/// only waits the same settle time (`settle_ticks` of the harness clock, so that the waiters are asleep
/// when woken).
pub trait WakeAll: Sync {
    /// Measures broadcast episodes of `mechanism` with `waiters` waiters; `cpus` as the runtime's
    /// [`WakeAllOffer::waiter_cpus`] says, the waker's first.
    ///
    /// Errors: a `mechanism` the runtime does not offer; the runtime could not start its threads or pool.
    fn wake_all(
        &self,
        mechanism: WakeMechanism,
        waiters: usize,
        cpus: &[usize],
        settle_ticks: u64,
        h: &Harness,
    ) -> anyhow::Result<Outcome>;
}

/// Spins on a condition before the waiter also yields its CPU (when it shares one with those it waits for).
const SPINS_BEFORE_YIELD: u32 = 1 << 12;

/// Spins until `done()`, yielding the CPU now and then in case those it waits for share it.
#[inline]
pub fn spin_until(done: impl Fn() -> bool) {
    let mut spins = 0u32;
    while !done() {
        spin_loop();
        spins += 1;
        if spins >= SPINS_BEFORE_YIELD {
            spins = 0;
            std::thread::yield_now();
        }
    }
}

/// Busy-waits `ticks` of the harness clock (the settle time; the same in test and control batches).
#[inline]
pub fn settle(clock: &Clock, ticks: u64) {
    let t0 = clock.stop();
    while clock.stop().wrapping_sub(t0) < ticks {
        spin_loop();
    }
}

/// Counters shared by the waker and its waiters, each on its own line.
#[derive(Default)]
pub struct Progress {
    /// Times any waiter announced it is about to block (each waiter once per episode, plus once at start).
    pub announced: CachePadded<AtomicU64>,
    /// Times any waiter ran after a wake-up.
    pub arrived: CachePadded<AtomicU64>,
    /// Raised before the last wake-up: the waiters then end instead of counting an arrival.
    pub stop: CachePadded<AtomicBool>,
}

/// Measures broadcast episodes of `waiters` waiters that report to `progress`, `wake()` waking them all,
/// against the settle time alone; then stops the waiters (raises `stop`, waits for every announcement,
/// wakes once more), so the caller only joins them. Per episode: wait until every waiter has announced,
/// settle, wake, wait until every waiter has arrived.
pub fn measure_episodes(
    h: &Harness,
    progress: &Progress,
    waiters: u64,
    settle_ticks: u64,
    wake: impl Fn(),
) -> Measurement {
    let episodes = Cell::new(0u64);
    let episode = || {
        let e = episodes.get() + 1;
        episodes.set(e);
        spin_until(|| progress.announced.load(Ordering::Acquire) >= waiters * e);
        settle(&h.clock, settle_ticks);
        wake();
        spin_until(|| progress.arrived.load(Ordering::Acquire) >= waiters * e);
    };
    let m =
        h.measure(|ops| (0..ops).for_each(|_| episode()), |ops| (0..ops).for_each(|_| settle(&h.clock, settle_ticks)));
    progress.stop.store(true, Ordering::Release);
    spin_until(|| progress.announced.load(Ordering::Acquire) >= waiters * (episodes.get() + 1));
    wake();
    m
}
