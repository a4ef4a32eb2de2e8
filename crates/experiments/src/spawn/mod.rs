//! The `spawn` family: creating, running and ending an activity (Ben-Asher & Feitelson 1991 §6, Souvatzis). The fan-out
//! experiments are written against [`overhead_runtime_api::fan_out::FanOut`].

mod bulk;
mod create;
mod forkjoin;
#[cfg(all(test, overhead_openmp))]
mod omp_tests;
mod remote;

pub use bulk::Bulk;
pub use create::Create;
pub use forkjoin::ForkJoin;
pub use remote::Remote;

use super::Planned;
use overhead_record::PointSpec;
use overhead_runtime_api::RuntimeUnderTest;

/// `spec` as a point to run, unless it needs more than one CPU from a runtime whose activities share one
/// kernel thread (the fibers): that cell is skipped with the reason.
pub fn one_cpu_only(spec: PointSpec, runtime: &dyn RuntimeUnderTest, cpus: usize) -> Planned {
    match runtime.one_thread() {
        Some(why) if cpus > 1 => Planned::Skip(spec, format!("{} {why}; this point needs {cpus} CPUs", runtime.name())),
        _ => Planned::Run(spec),
    }
}
