//! The three `fiber-*` runtimes as plug-ins: one scheduler, three switch back-ends.

use super::Backend;
use crate::runtimes::{Capability, RuntimeUnderTest};

/// The project's fibers switching with one back-end, as a runtime under test.
pub struct FiberRuntime {
    backend: Backend,
    name: &'static str,
}

/// `fiber-asm`: the hand-written switch.
pub const FIBER_ASM: FiberRuntime = FiberRuntime { backend: Backend::Asm, name: "fiber-asm" };
/// `fiber-ucontext`: glibc's `swapcontext`.
pub const FIBER_UCONTEXT: FiberRuntime = FiberRuntime { backend: Backend::Ucontext, name: "fiber-ucontext" };
/// `fiber-corosensei`: the corosensei crate's switch.
pub const FIBER_COROSENSEI: FiberRuntime = FiberRuntime { backend: Backend::Corosensei, name: "fiber-corosensei" };

impl FiberRuntime {
    /// The switch back-end it runs on.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Its public name.
    pub fn name_str(&self) -> &'static str {
        self.name
    }
}

impl RuntimeUnderTest for FiberRuntime {
    fn name(&self) -> &'static str {
        self.name
    }
    fn about(&self) -> &'static str {
        match self.backend {
            Backend::Asm => "the project's green threads, hand-written call/ret-paired switch",
            Backend::Ucontext => "the project's green threads, switching with glibc swapcontext",
            Backend::Corosensei => "the project's green threads, switching with the corosensei crate",
        }
    }
    fn available(&self) -> Result<(), String> {
        self.backend.available()
    }
    crate::runtimes::plugin::capabilities!(context, primitives, yield_round, wake_all, fan_out);
    fn one_thread(&self) -> Option<&'static str> {
        Some("runs its fibers on one kernel thread (one CPU)")
    }
    fn lacks(&self, capability: Capability) -> Option<&'static str> {
        match capability {
            Capability::Kernel => Some(crate::runtimes::KERNEL_UNDER_OS),
            Capability::ActivityBarrier => {
                Some("its fibers share one kernel thread, and this experiment spreads activities over every CPU")
            }
            Capability::Atomic | Capability::Barrier | Capability::Lock => {
                Some("its fibers share one kernel thread, so nothing contends between CPUs")
            }
            _ => None,
        }
    }
}
