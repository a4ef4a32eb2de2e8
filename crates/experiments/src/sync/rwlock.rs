//! `sync.rwlock`: reads and writes on one reader-writer lock by 1…CPUs threads, at a given share of writes.

use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use overhead_harness::{Harness, Mode};
use overhead_record::Metric;
use overhead_runtime_api::contention::RwLockImpl;
use overhead_runtime_api::{Capability, RuntimeUnderTest};

/// The shares of writes (percent of operations) measured: a read-mostly lock, and an even mix.
pub const WRITERS_PERCENT: [u32; 3] = [1, 10, 50];

/// The share of writes a `--quick` run measures, and the one a default run also measures on one thread.
const QUICK_WRITERS_PERCENT: u32 = 10;

/// `sync.rwlock`'s parameters, in key order: `lock` is one the runtime offers ([`overhead_runtime_api::Offers::rwlock`]),
/// `writers` the percentage of each thread's operations that write (0…100), `threads` the team's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Params {
    lock: RwLockImpl,
    writers: u32,
    threads: usize,
}

/// Reader-writer lock operations by T threads (one per CPU, started together) on one lock guarding a counter:
/// `writers` percent of each thread's operations take the write lock and increment the
/// counter, the rest take the read lock and load it, the writes spread evenly
/// ([`overhead_runtime_api::contention::rwlock_writes`]). The time per operation is the slowest thread's, against
/// the same loop choosing reads and writes without the lock.
///
/// `lock:std` is `std::sync::RwLock` (a futex reader-writer lock in the standard library); `lock:parking_lot`
/// `parking_lot::RwLock` (the lock of parking_lot's own benchmark); `lock:spin_crate` the `spin` crate's
/// `spin::RwLock`. Go's `sync.RWMutex` and Java's locks fill their cells through the external probes.
///
/// The grid by mode: `--quick` 10 % writers at every thread count; the default run 1, 10 and 50 % at all
/// CPUs and 10 % on one thread (the uncontended cost); `--full` every share at every thread count.
pub struct RwLock;

impl RwLock {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::sync::RWLOCK;
}

/// The (writers, threads) pairs a run of `mode` measures, threads from `thread_counts` (1…CPUs by mode,
/// [`PlanContext::thread_counts`]) and `max` the usable CPUs; writers-major, no pair twice.
fn grid(mode: Mode, thread_counts: &[usize], max: usize) -> Vec<(u32, usize)> {
    let mut out: Vec<(u32, usize)> = match mode {
        Mode::Quick => thread_counts.iter().map(|&t| (QUICK_WRITERS_PERCENT, t)).collect(),
        Mode::Full => WRITERS_PERCENT.iter().flat_map(|&w| thread_counts.iter().map(move |&t| (w, t))).collect(),
        Mode::Default => {
            std::iter::once((QUICK_WRITERS_PERCENT, 1)).chain(WRITERS_PERCENT.iter().map(|&w| (w, max))).collect()
        }
    };
    let mut seen = Vec::new();
    out.retain(|pair| {
        let new = !seen.contains(pair);
        seen.push(*pair);
        new
    });
    out
}

impl Experiment for RwLock {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: RwLock::ID,
            summary:
                "read or write under a reader-writer lock, std RwLock vs. parking_lot vs. spin, writers 1/10/50 %, \
                      threads 1…CPUs",
            source: "parking_lot's lock benchmark; Ben-Asher & Feitelson 1991 §8's contention between CPUs",
            metric: Metric::PerOp,
            requires: &[Capability::RwLock],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn RuntimeUnderTest) -> Vec<Planned> {
        let pairs = grid(ctx.mode, &ctx.thread_counts(1), ctx.cpus.len());
        let mut out = Vec::new();
        for &lock in runtime.offers().rwlock.has().unwrap_or_default() {
            for &(writers, threads) in &pairs {
                let params = Params { lock, writers, threads };
                out.push(Planned::Run(ctx.spec_of(self.id(), runtime, &params, ctx.team_cpus(threads))));
            }
        }
        out
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let Params { lock, writers, .. } = point.params()?;
        point.in_process(|r| r.rwlock())?.rwlock(lock, writers, &spec.cpus, h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::tests::two_cpu_context;
    use overhead_machine::Topology;

    /// The grid by mode, on 2 and 8 CPUs, and on one CPU (where every default pair is at one thread).
    #[test]
    fn the_grid_follows_the_mode() {
        assert_eq!(grid(Mode::Quick, &[1, 2, 8], 8), vec![(10, 1), (10, 2), (10, 8)]);
        assert_eq!(grid(Mode::Default, &[1, 2, 8], 8), vec![(10, 1), (1, 8), (10, 8), (50, 8)]);
        assert_eq!(grid(Mode::Default, &[1], 1), vec![(10, 1), (1, 1), (50, 1)]);
        let full = grid(Mode::Full, &[1, 2, 3], 3);
        assert_eq!(full.len(), 9);
        assert!(WRITERS_PERCENT.iter().all(|w| (1..=3).all(|t| full.contains(&(*w, t)))));
    }

    /// `os` gets one point per offered lock and pair, named `lock`, `writers`, `threads` in that order, each
    /// on as many CPUs as threads; a runtime without the capability gets none.
    #[test]
    fn points_name_lock_writers_threads() {
        let os = overhead_runtime_os::Os;
        let locks = os.offers().rwlock.has().unwrap();
        for mode in [Mode::Quick, Mode::Default, Mode::Full] {
            let ctx = two_cpu_context(mode);
            let planned = RwLock.points(&ctx, &os);
            let pairs = grid(mode, &ctx.thread_counts(1), 2);
            assert_eq!(planned.len(), locks.len() * pairs.len(), "{mode:?}");
            for p in &planned {
                let Planned::Run(spec) = p else { panic!("os skips nothing: {p:?}") };
                let keys: Vec<&str> = spec.params.iter().map(|(k, _)| k.as_str()).collect();
                assert_eq!(keys, ["lock", "writers", "threads"]);
                let threads: usize = spec.param("threads").unwrap().parse().unwrap();
                assert_eq!(spec.cpus.len(), threads);
            }
            let first = match &planned[0] {
                Planned::Run(spec) => spec.name(),
                Planned::Skip(..) => unreachable!(),
            };
            let writers = if mode == Mode::Full { 1 } else { 10 };
            assert_eq!(first, format!("sync.rwlock/runtime:os/lock:std/writers:{writers}/threads:1"));
        }
        let one_cpu =
            PlanContext { cpus: vec![0], topology: Topology::detect(), mode: Mode::Default, hosts: Vec::new() };
        assert!(RwLock.points(&one_cpu, &overhead_runtime_parallel::rayon_rt::Rayon).is_empty());
    }

    /// The lock values by name: the ones `os` offers parse, and a lock it does not is refused at run time
    /// by the experiment's own parameter parsing (an unknown name).
    #[test]
    fn lock_names_round_trip() {
        for (name, lock) in
            [("std", RwLockImpl::Std), ("parking_lot", RwLockImpl::ParkingLot), ("spin_crate", RwLockImpl::SpinCrate)]
        {
            assert_eq!(serde_json::to_value(lock).unwrap(), name);
            assert_eq!(serde_json::from_value::<RwLockImpl>(name.into()).unwrap(), lock);
        }
        assert!(serde_json::from_value::<RwLockImpl>("spin".into()).is_err());
    }
}
