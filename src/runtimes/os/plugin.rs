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
    fn context(&self) -> Option<&dyn crate::runtimes::primitives::Context> {
        Some(self)
    }
    fn primitives(&self) -> Option<&dyn crate::runtimes::primitives::Primitives> {
        Some(self)
    }
    fn yield_round(&self) -> Option<&dyn crate::runtimes::yield_round::YieldRound> {
        Some(self)
    }
    fn wake_all(&self) -> Option<&dyn crate::runtimes::wake_all::WakeAll> {
        Some(self)
    }
    fn fan_out(&self) -> Option<&dyn crate::runtimes::fan_out::FanOut> {
        Some(self)
    }
    fn activity_barrier(&self) -> Option<&dyn crate::runtimes::activity_barrier::ActivityBarrier> {
        Some(self)
    }
    fn contention(&self) -> Option<&dyn crate::runtimes::contention::Contention> {
        Some(self)
    }
}
