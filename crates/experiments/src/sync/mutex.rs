//! `sync.mutex`: lock, a one-line critical section, unlock, by 1…CPUs threads on one lock.

use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use overhead_harness::Harness;
use overhead_record::Metric;
use overhead_runtime_api::contention::LockImpl;
use overhead_runtime_api::{Capability, RuntimeUnderTest};

/// `sync.mutex`'s parameters: `lock` is one the runtime offers ([`overhead_runtime_api::Offers::lock`]).
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
/// Drepper three-state futex lock ([`FutexLock`]), whose waiters sleep in the kernel; `lock:parking_lot`
/// `parking_lot::Mutex` (spins a little, then parks in its own queue; the lock of parking_lot's own
/// benchmark) and `lock:spin_crate` the `spin` crate's `spin::Mutex` (spins on a read, no backoff, never
/// sleeps), the crates a Rust programmer chooses between (`spin_crate`, not `spin`,
/// because `lock:spin` is our own lock and point names are public). For `openmp`,
/// `lock:omp_lock` is libgomp's `omp_lock_t` (`omp_set_lock`/`omp_unset_lock`) in one region of a pinned
/// team, against the same region with an empty loop (EPCC syncbench LOCK/UNLOCK).
pub struct Mutex;

impl Mutex {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::sync::MUTEX;
}

impl Experiment for Mutex {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Mutex::ID,
            summary: "lock + increment + unlock, std Mutex vs. TTAS spin lock vs. Drepper futex lock vs. parking_lot \
                      vs. spin crate vs. omp_lock_t, threads 1…CPUs",
            source:
                "Souvatzis (semaphores as locks); Drepper, \"Futexes Are Tricky\" §6; Anderson 1990 (TTAS, backoff); \
                     parking_lot's lock benchmark (parking_lot, spin)",
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::tests::two_cpu_context;
    use overhead_harness::Mode;

    /// The crate locks by name: `parking_lot` and `spin_crate` are their own values (`spin` stays our TTAS
    /// lock), `os` plans and measures them, and a runtime that does not offer them refuses them by name.
    #[test]
    fn crate_locks_are_accepted_by_os_and_refused_elsewhere() {
        for (name, lock) in [("parking_lot", LockImpl::ParkingLot), ("spin_crate", LockImpl::SpinCrate)] {
            assert_eq!(serde_json::to_value(lock).unwrap(), name);
            assert_eq!(serde_json::from_value::<LockImpl>(name.into()).unwrap(), lock);
        }
        assert_eq!(serde_json::from_value::<LockImpl>("spin".into()).unwrap(), LockImpl::Spin);

        let os = overhead_runtime_os::Os;
        let names: Vec<String> = Mutex
            .points(&two_cpu_context(Mode::Quick), &os)
            .into_iter()
            .map(|p| match p {
                Planned::Run(spec) => spec.name(),
                Planned::Skip(spec, why) => panic!("{} skipped: {why}", spec.name()),
            })
            .collect();
        for lock in ["parking_lot", "spin_crate"] {
            for threads in [1, 2] {
                let name = format!("sync.mutex/runtime:os/lock:{lock}/threads:{threads}");
                assert!(names.contains(&name), "{name} not in {names:?}");
            }
        }

        let h = overhead_harness::testing::quick_harness();
        let cpus = overhead_machine::allowed_cpus();
        let cpus = &cpus[..cpus.len().min(2)];
        let contention = os.contention().unwrap();
        for lock in [LockImpl::ParkingLot, LockImpl::SpinCrate] {
            let outcome = contention.lock(lock, cpus, &h).unwrap();
            assert_eq!(outcome.measurement.samples_ns.len(), h.config.repetitions, "{lock:?}");
        }
        let err = contention.lock(LockImpl::OmpLock, cpus, &h).unwrap_err().to_string();
        assert!(err.contains("does not offer lock:omp_lock"), "{err}");

        let openmp = overhead_runtime_parallel::openmp::OpenMp;
        for (lock, name) in [(LockImpl::ParkingLot, "parking_lot"), (LockImpl::SpinCrate, "spin_crate")] {
            assert!(!openmp.offers().lock.has().unwrap_or_default().contains(&lock));
            if let Some(contention) = openmp.contention() {
                let err = contention.lock(lock, cpus, &h).unwrap_err().to_string();
                assert!(err.contains(&format!("does not offer lock:{name}")), "{err}");
            }
        }
    }
}
