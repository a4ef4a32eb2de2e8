//! Runtimes under test (docs/ARCHITECTURE.md "Runtimes under test"): implementations of the primitives that the
//! experiments time side by side.

mod capability;
pub mod contention;
pub mod external;
pub mod fiber;
pub mod openmp;
pub mod os;
mod plugin;
pub mod primitives;
pub mod rayon_rt;
mod registry;
pub mod timerq;
pub mod tokio_rt;
pub mod yield_barrier;

pub use capability::{Capability, BETWEEN_CPUS_ELSEWHERE, KERNEL_UNDER_OS};
pub use plugin::{missing, RuntimeUnderTest};
pub use registry::{column_rank, default_run, find, names, registry};

/// A built-in runtime's name resolved to the code that implements it, for the experiments' measuring code
/// (the plan asks the plug-in, [`RuntimeUnderTest`], instead).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runtime {
    /// Kernel threads and processes.
    Os,
    /// The project's fibers with one of the switch back-ends.
    Fiber(fiber::Backend),
    /// tokio: the current-thread scheduler in seed 004's table, the multi-thread one in seed 001's.
    Tokio,
    /// rayon's work-stealing pool.
    Rayon,
    /// C kernels run by libgomp (see [`openmp::available`]).
    OpenMp,
}

impl Runtime {
    /// The implementation behind a runtime name, or `None` for names this build does not implement.
    pub fn parse(name: &str) -> Option<Runtime> {
        match name {
            "os" => Some(Runtime::Os),
            "tokio" => Some(Runtime::Tokio),
            "rayon" => Some(Runtime::Rayon),
            "openmp" => Some(Runtime::OpenMp),
            _ => fiber::Backend::ALL
                .into_iter()
                .find(|b| name.strip_prefix("fiber-") == Some(b.name()))
                .map(Runtime::Fiber),
        }
    }
}
