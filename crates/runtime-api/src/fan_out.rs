//! Fork-join fan-out as a runtime implements it: Ben-Asher & Feitelson 1991 §6 (spawning), written once as `spawn.forkjoin`,
//! `spawn.bulk` and `spawn.remote` against [`FanOut`]
//! (docs/ARCHITECTURE.md "Runtimes under test"), with the measuring helpers the implementations share.

use std::sync::atomic::{AtomicUsize, Ordering};

use overhead_harness::empty_loop;
use overhead_harness::{Harness, Measurement, TeamReport};
use overhead_record::Outcome;

/// `spawn.forkjoin`'s mechanisms (its `mechanism:` parameter), across runtimes
/// ([`super::Offers::fork_join`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ForkJoinMechanism {
    /// A new activity per task, joined (a kernel thread, a fiber, a tokio task, a goroutine).
    Spawn,
    /// Threads created once and pinned, woken per episode through a spin barrier (an OpenMP hot team).
    HotTeam,
    /// `rayon::broadcast`: one job on every worker of the pool.
    Broadcast,
    /// A `rayon::scope` spawning one job per CPU.
    Scope,
    /// An empty `#pragma omp parallel` region.
    Parallel,
    /// A pool of workers the tasks are submitted to (the external probes).
    Pool,
}

/// [`super::Capability::ForkJoin`]: one construct of tasks over the CPUs, joined — the spawns of Ben-Asher & Feitelson 1991
/// §6. A runtime whose activities share one kernel thread ([`super::RuntimeUnderTest::one_thread`]) is
/// only asked for one CPU. The granularity sweep of §7 is [`super::grain_sweep::GrainSweep`].
pub trait FanOut: Sync {
    /// `spawn.forkjoin`: ns per episode of fork, one empty task per CPU of `cpus`, join.
    ///
    /// Errors: a `mechanism` the runtime does not offer; the runtime's threads could not be started.
    fn fork_join(&self, mechanism: ForkJoinMechanism, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome>;
    /// `spawn.bulk`: ns per construct of `tasks` empty tasks run by the CPUs of `cpus`.
    ///
    /// Errors: the runtime's threads could not be started.
    fn bulk(&self, cpus: &[usize], tasks: u64, h: &Harness) -> anyhow::Result<Outcome>;
    /// `spawn.remote`: ns per single-task spawn that the `executor` CPU runs for generators pinned one per
    /// CPU of `generators`, as the executor sees it.
    ///
    /// Errors: the runtime's threads could not be started; it runs on one thread.
    fn remote(&self, executor: usize, generators: &[usize], h: &Harness) -> anyhow::Result<Outcome>;
}

/// Operations run untimed before [`measure_warm`] and [`measure_team_warm`] measure.
const WARM_OPS: u64 = 1;

/// [`Harness::measure`] after running `test` untimed for one operation: the first episodes start or wake
/// a pool's threads and fault in their stacks, and a first sizing batch slowed by that would stop the
/// batch size at one operation. Not where the point's first process sized one operation (a hint of 1): that
/// operation outlasts the target, and the hinted batch is the warm-up's test already (docs/METHOD.md §1);
/// on `spawn.bulk` with kernel threads the untimed one was a sixth of every later process.
pub fn measure_warm(h: &Harness, mut test: impl FnMut(u64), control: impl FnMut(u64)) -> Measurement {
    if h.batch_hint() != Some(1) {
        test(WARM_OPS);
    }
    h.measure(test, control)
}

/// [`Harness::measure_team`] of `test` against the empty loop, after the calling thread has run
/// `test(0, …)` untimed for one operation, for the same reason as [`measure_warm`].
pub fn measure_team_warm<T: Fn(usize, u64) + Sync>(h: &Harness, cpus: &[usize], test: T) -> TeamReport {
    test(0, WARM_OPS);
    h.measure_team(cpus, test, |_, n| empty_loop(n))
}

/// A note when some workers of a rayon pool or tokio runtime could not be pinned.
pub fn pool_notes(refused: &AtomicUsize) -> Option<String> {
    let refused = refused.load(Ordering::Relaxed);
    (refused > 0).then(|| format!("{refused} worker thread(s) could not be pinned and ran unpinned"))
}

/// `spawn.remote`'s point from the generators' team: every generator ran a batch of n spawns at once,
/// so the executor ran g·n of them in that time; ns per spawn, with `generators` and the generator's
/// `round_trip_ns` (spawn, run, join seen by one generator) in `extra`.
pub fn per_executor_spawn(report: TeamReport, generators: usize, notes: Vec<String>) -> Outcome {
    let g = generators.max(1) as f64;
    let mut outcome = Outcome::from(report);
    outcome.notes.extend(notes);
    outcome.measurement = outcome.measurement.per(g);
    let median = outcome.measurement.summary().map_or(f64::NAN, |s| s.median);
    outcome.extra.insert("generators".into(), g);
    outcome.extra.insert("round_trip_ns".into(), median * g);
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`measure_warm`] runs one untimed operation before the harness's own batches: with a zero target
    /// the harness runs a sizing batch of 1, its confirming batch (the warm-up's test: the warm-up runs its
    /// control alone) and the repetitions.
    #[test]
    fn measure_warm_runs_one_operation_before_measuring() {
        let mut h = overhead_harness::testing::quick_harness();
        (h.config.target_batch_ns, h.config.warmup, h.config.repetitions) = (0.0, 1, 2);
        let ops = std::cell::Cell::new(0u64);
        let m = measure_warm(&h, |n| ops.set(ops.get() + n), |_| {});
        assert_eq!(m.batch_ops, 1);
        assert_eq!(ops.get(), 1 + 4, "1 untimed, then sizing, confirming (the warm-up's) and 2 repetitions");
    }

    /// A later process of a point whose first process sized one long operation runs no untimed one: the
    /// hinted batch (kept: it outlasts the target) is the warm-up's test, then the repetitions.
    #[test]
    fn measure_warm_runs_none_after_a_hint_of_one_operation() {
        let mut h = overhead_harness::testing::quick_harness().with_batch_hint(Some(1));
        (h.config.target_batch_ns, h.config.warmup, h.config.repetitions) = (0.0, 1, 2);
        assert_eq!(h.batch_hint(), Some(1));
        let ops = std::cell::Cell::new(0u64);
        let m = measure_warm(&h, |n| ops.set(ops.get() + n), |_| {});
        assert_eq!(m.batch_ops, 1);
        assert_eq!(ops.get(), 1 + 2, "the hinted batch (the warm-up's test) and 2 repetitions");
        assert_eq!(h.batch_hint(), None, "taken by the sizing");
    }
}
