//! Runtimes under test (DESIGN.md "Runtimes under test"): implementations of the primitives that the
//! experiments time side by side.

pub mod fiber;
pub mod openmp;
pub mod os;
pub mod rayon_rt;
pub mod timerq;
pub mod tokio_rt;
pub mod yield_barrier;

/// Every runtime name DESIGN.md defines; a name outside this list is refused at the command line.
pub const KNOWN: [&str; 9] =
    ["os", "fiber-asm", "fiber-ucontext", "fiber-corosensei", "tokio", "rayon", "openmp", "go", "java"];

/// The runtimes this build implements; `overhead run` measures these by default.
pub const IMPLEMENTED: [&str; 7] =
    ["os", "fiber-asm", "fiber-ucontext", "fiber-corosensei", "tokio", "rayon", "openmp"];

/// The runtimes of seed 004's timing table, in its column order (ours first, the peers after).
pub const TABLE_004: [&str; 5] = ["os", "fiber-asm", "fiber-ucontext", "fiber-corosensei", "tokio"];

/// A runtime name resolved to what implements it.
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
