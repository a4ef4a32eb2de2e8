//! `sync.mutex`: lock, a one-line critical section, unlock, by 1…CPUs threads on one lock.

use crate::experiments::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use crate::harness::Harness;
use crate::record::Metric;
use crate::runtimes::contention::LockImpl;
use crate::runtimes::{Capability, RuntimeUnderTest};

/// `sync.mutex`'s parameters: `lock` is one the runtime offers ([`crate::runtimes::Offers::lock`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Params {
    lock: LockImpl,
    threads: usize,
}

/// Lock/unlock pairs around a shared counter's increment, by T threads (one per CPU, started
/// together) on one lock; `threads:1` is the uncontended cost, more threads the contended one (the
/// slowest thread's time per pair while the others do the same), against the empty loop.
///
/// `lock:std` is `std::sync::Mutex` (a futex lock in the standard library); `lock:spin` our
/// test-and-test-and-set spin lock with exponential backoff ([`SpinLock`]); `lock:futex` our
/// Drepper three-state futex lock ([`FutexLock`]), whose waiters sleep in the kernel. For `openmp`,
/// `lock:omp_lock` is libgomp's `omp_lock_t` (`omp_set_lock`/`omp_unset_lock`) in one region of a pinned
/// team, against the same region with an empty loop (EPCC syncbench LOCK/UNLOCK).
pub struct Mutex;

impl Mutex {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = "sync.mutex";
}

impl Experiment for Mutex {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Mutex::ID,
            summary: "lock + increment + unlock, std Mutex vs. TTAS spin lock vs. Drepper futex lock vs. omp_lock_t, \
                      threads 1…CPUs",
            source: "seed 004 (semaphores as locks); Drepper, \"Futexes Are Tricky\" §6; Anderson 1990 (TTAS, backoff)",
            metric: Metric::PerOp,
            requires: &[Capability::Lock],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn RuntimeUnderTest) -> Vec<Planned> {
        let mut out = Vec::new();
        for &lock in runtime.offers().lock.has().unwrap_or_default() {
            for threads in ctx.thread_counts(1) {
                let params = Params { lock, threads };
                out.push(Planned::Run(ctx.spec_of(self.id(), runtime, &params, ctx.team_cpus(threads))));
            }
        }
        out
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let Params { lock, .. } = point.params()?;
        point.in_process(|r| r.contention())?.lock(lock, &spec.cpus, h)
    }
}
