//! The `os` runtime as a plug-in.

use crate::runtimes::{Capability, RuntimeUnderTest};

/// Kernel threads and processes: `std::thread`, futexes, pipes, sockets, POSIX semaphores.
pub struct Os;

impl RuntimeUnderTest for Os {
    fn name(&self) -> &'static str {
        "os"
    }
    fn about(&self) -> &'static str {
        "kernel threads and processes: std::thread, futex, POSIX semaphores, pipes, sockets"
    }
    fn lacks(&self, _: Capability) -> Option<&'static str> {
        None
    }
    crate::runtimes::plugin::capabilities!(
        context,
        primitives,
        yield_round,
        wake_all,
        fan_out,
        activity_barrier,
        contention
    );
}
