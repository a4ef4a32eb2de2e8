//! The three `fiber-*` runtimes as plug-ins: one scheduler, three switch back-ends.

use super::Backend;
use overhead_runtime_api::channel_impl::ChannelImpl;
use overhead_runtime_api::fan_out::ForkJoinMechanism;
use overhead_runtime_api::primitives::{SpawnKind, SwitchKind, SwitchMechanism};
use overhead_runtime_api::wake_all::{WaiterCpus, WakeAllOffer, WakeMechanism};
use overhead_runtime_api::yield_round::YieldLimits;
use overhead_runtime_api::{Offer, Offers, RuntimeUnderTest, KERNEL_UNDER_OS, RANKS_UNDER_MPI};

/// Why the fibers lack contention between CPUs.
const NOTHING_CONTENDS: &str = "its fibers share one kernel thread, so nothing contends between CPUs";

/// What every fiber runtime offers: Souvatzis's primitives and Ben-Asher & Feitelson's constructs on one kernel thread.
const OFFERS: Offers = Offers {
    context: Offer::Has(()),
    kernel: Offer::Lacks(KERNEL_UNDER_OS),
    call: Offer::Has(()),
    spawn_join: Offer::Has(&[SpawnKind::Task]),
    semaphore: Offer::Has(()),
    channel: Offer::Has(&[ChannelImpl::Fiber]),
    message_switch: Offer::Has(&[ChannelImpl::Fiber]),
    rendezvous: Offer::Has(&[ChannelImpl::Fiber]),
    channel_throughput: Offer::Lacks(NOTHING_CONTENDS),
    raw_switch: Offer::Has(SwitchMechanism { kind: SwitchKind::RawSwitch, across_cpus: false }),
    yield_round: Offer::Has(YieldLimits::NONE),
    wake_all: Offer::Has(WakeAllOffer {
        mechanisms: &[WakeMechanism::Semaphore],
        waiter_cpus: WaiterCpus::WakersThread,
    }),
    fork_join: Offer::Has(&[ForkJoinMechanism::Spawn]),
    activity_barrier: Offer::Lacks(
        "its fibers share one kernel thread, and this experiment spreads activities over every CPU",
    ),
    atomic: Offer::Lacks(NOTHING_CONTENDS),
    barrier: Offer::Lacks(NOTHING_CONTENDS),
    lock: Offer::Lacks(NOTHING_CONTENDS),
    rwlock: Offer::Lacks(NOTHING_CONTENDS),
    ipc: Offer::Lacks(overhead_runtime_api::IPC_UNDER_OS),
    ranks: Offer::Lacks(RANKS_UNDER_MPI),
};

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
    overhead_runtime_api::capabilities!(context, primitives, messages, yield_round, wake_all, fan_out);
    fn one_thread(&self) -> Option<&'static str> {
        Some("runs its fibers on one kernel thread (one CPU)")
    }
    fn offers(&self) -> &Offers {
        &OFFERS
    }
}
