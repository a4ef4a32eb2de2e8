//! The `spawn` family: creating, running and ending an activity (seed 001 §6, seed 004).

mod bulk;
mod create;
pub(crate) mod fanout;
mod forkjoin;
#[cfg(all(test, overhead_openmp))]
mod omp_tests;
mod remote;

use std::sync::atomic::{AtomicUsize, Ordering};

pub use bulk::Bulk;
pub use create::Create;
pub use forkjoin::ForkJoin;
pub use remote::Remote;

use super::Planned;
use crate::harness::{Harness, Measurement, TeamReport};
use crate::record::PointSpec;
use crate::runtimes::Runtime;

/// `spec` as a point to run, unless it needs more than one CPU from a fiber runtime: fibers are green
/// threads of one kernel thread, so that cell is skipped with the reason.
pub(crate) fn one_cpu_only(spec: PointSpec, runtime: &str, cpus: usize) -> Planned {
    match Runtime::parse(runtime) {
        Some(Runtime::Fiber(_)) if cpus > 1 => Planned::Skip(
            spec,
            format!("{runtime} runs its fibers on one kernel thread (one CPU); this point needs {cpus} CPUs"),
        ),
        _ => Planned::Run(spec),
    }
}

/// A note when some workers of a rayon pool or tokio runtime could not be pinned.
pub(crate) fn pool_notes(refused: &AtomicUsize) -> Option<String> {
    let refused = refused.load(Ordering::Relaxed);
    (refused > 0).then(|| format!("{refused} worker thread(s) could not be pinned and ran unpinned"))
}

/// Operations run untimed before [`measure_warm`] and [`measure_team_warm`] measure.
const WARM_OPS: u64 = 1;

/// [`Harness::measure`] after running `test` untimed for one operation: the first episodes
/// start or wake a pool's threads and fault in their stacks, and a first sizing batch slowed by that
/// would stop the batch size at one operation.
pub(crate) fn measure_warm(h: &Harness, mut test: impl FnMut(u64), control: impl FnMut(u64)) -> Measurement {
    test(WARM_OPS);
    h.measure(test, control)
}

/// [`Harness::measure_team`] of `test` against the empty loop, after the calling thread has run
/// `test(0, …)` untimed for one operation, for the same reason as [`measure_warm`].
pub(crate) fn measure_team_warm<T: Fn(usize, u64) + Sync>(h: &Harness, cpus: &[usize], test: T) -> TeamReport {
    test(0, WARM_OPS);
    h.measure_team(cpus, test, |_, n| super::empty_loop(n))
}
