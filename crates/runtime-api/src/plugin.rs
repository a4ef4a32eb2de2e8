//! The runtime plug-in: what every runtime under test tells the plan (docs/ARCHITECTURE.md "Runtimes under test").

use super::activity_barrier::ActivityBarrier;
use super::channel_throughput::ChannelThroughput;
use super::contention::{Contention, RwLockContention};
use super::fan_out::FanOut;
use super::grain_sweep::GrainSweep;
use super::ipc::IpcRoundTrips;
use super::offer::Offers;
use super::primitives::{Context, Messages, Primitives};
use super::wake_all::WakeAll;
use super::yield_round::YieldRound;
use super::Capability;

/// One runtime under test (docs/ARCHITECTURE.md "Runtimes under test"): its public name, whether it can run here,
/// what it offers of each [`Capability`] or why it lacks it ([`Offers`], data the plan reads), and, for a
/// runtime measured in this process, the code that measures each capability it has (the accessors,
/// `None` by default; [`capabilities!`] writes them). Adding a runtime is one module implementing it plus
/// one line in [`super::registry`].
pub trait RuntimeUnderTest: Sync {
    /// The public name: the `runtime:` key of point names, the column header, the `--runtime` value
    /// (`"os"`, `"fiber-asm"`). Records keep it as a string, so it never changes once published.
    fn name(&self) -> &'static str;
    /// Its typed ID, the `runtime` of every point it measures: [`RuntimeUnderTest::name`] as a
    /// [`overhead_schema::runtimes::RuntimeId`].
    fn id(&self) -> overhead_schema::runtimes::RuntimeId {
        overhead_schema::runtimes::RuntimeId::named(self.name())
    }
    /// Which of its runtime's schedulers it is, when the runtime has several that users choose between
    /// (tokio's `current_thread` and `multi_thread`): each flavor is an entry of its own in the registry under
    /// the runtime's one name, and every point it plans carries `flavor:NAME` as its first parameter
    /// (docs/ARCHITECTURE.md "Runtimes under test"). `None` (the default) for a runtime with one scheduler.
    fn flavor(&self) -> Option<&'static str> {
        None
    }
    /// One line for `overhead list`: what implements it.
    fn about(&self) -> &'static str;
    /// Whether it can run on this machine and build; the reason when not (a fiber back-end without a
    /// switch for this CPU, a build without libgomp, a probe not built). Its cells are then skipped with it.
    fn available(&self) -> Result<(), String> {
        Ok(())
    }
    /// What it offers of every capability, or why it lacks it: stated once, read by the plan.
    fn offers(&self) -> &Offers;
    /// Why it has no cell for `experiment` although it has every capability the experiment requires (an
    /// external probe that does not implement it yet), as a fragment that follows "runtime NAME: "; `None`
    /// for every experiment its capabilities admit (the default).
    fn refuses(&self, _experiment: &str) -> Option<&'static str> {
        None
    }
    /// The external probe that measures it, for runtimes measured in another language's process
    /// (`runtimes::external`); `None` (the default) for runtimes measured inside `overhead probe`.
    fn external(&self) -> Option<&dyn super::external_probe::ExternalProbe> {
        None
    }
    /// Whether its points run as MPI ranks: the orchestrator starts `overhead probe` through the MPI launcher,
    /// one rank per CPU of the point (`overhead_launch`); `false` (the default) for one probe process.
    fn launched_as_ranks(&self) -> bool {
        false
    }
    /// Whether `overhead run` measures it without `--runtime` (a runtime that needs a toolchain is not).
    fn in_default_run(&self) -> bool {
        true
    }
    /// Its own context for single-thread loops ([`Capability::Context`]), if it has one and is measured in
    /// this process.
    fn context(&self) -> Option<&dyn Context> {
        None
    }
    /// Its Souvatzis primitives but the message rows ([`Capability::PRIMITIVES`] less
    /// [`Capability::MESSAGES`]), if it has them and is measured in this process.
    fn primitives(&self) -> Option<&dyn Primitives> {
        None
    }
    /// Its Souvatzis message rows ([`Capability::MESSAGES`]), if it has them and is measured in this process
    /// (or, for `mpi`, led from rank 0 of this process).
    fn messages(&self) -> Option<&dyn Messages> {
        None
    }
    /// Its contention between CPUs ([`Capability::BETWEEN_CPUS`]), if it has it and is measured in this process.
    fn contention(&self) -> Option<&dyn Contention> {
        None
    }
    /// Its reader-writer locks between CPUs ([`Capability::RwLock`]), if it has them and is measured in this process.
    fn rwlock(&self) -> Option<&dyn RwLockContention> {
        None
    }
    /// Its channel throughput ([`Capability::ChannelThroughput`]), if it has it and is measured in this process.
    fn channel_throughput(&self) -> Option<&dyn ChannelThroughput> {
        None
    }
    /// Its yield round ([`Capability::Yield`]), if it has one and is measured in this process.
    fn yield_round(&self) -> Option<&dyn YieldRound> {
        None
    }
    /// Its wake-all ([`Capability::WakeAll`]), if it has one and is measured in this process.
    fn wake_all(&self) -> Option<&dyn WakeAll> {
        None
    }
    /// Its fork-join fan-out ([`Capability::ForkJoin`]), if it has one and is measured in this process.
    fn fan_out(&self) -> Option<&dyn FanOut> {
        None
    }
    /// Its granularity sweep ([`Capability::ForkJoin`]), if it has one whose work runs across CPUs: every
    /// runtime with fork-join fan-out whose activities do not share one kernel thread, external ones
    /// included (their probe times the runs; [`super::ExternalProbe::driven_from_rust`]).
    fn grain_sweep(&self) -> Option<&dyn GrainSweep> {
        None
    }
    /// Its many activities on a barrier ([`Capability::ActivityBarrier`]), if it has them and is measured in
    /// this process.
    fn activity_barrier(&self) -> Option<&dyn ActivityBarrier> {
        None
    }
    /// Its round trips with another process through its own sockets ([`Capability::Ipc`]), if it has them and
    /// is measured in this process (`os`'s are the kernel's, which `msg.ipc` makes itself: `None`).
    fn ipc(&self) -> Option<&dyn IpcRoundTrips> {
        None
    }
    /// When all its activities share one kernel thread (the fibers), why, as a fragment that follows the
    /// runtime's name ("runs its fibers on one kernel thread"): experiments then plan one CPU and skip
    /// the points that need more. `None` when its activities can run on several CPUs.
    fn one_thread(&self) -> Option<&'static str> {
        None
    }
}

/// Why `runtime` cannot give a cell for an experiment needing `requires`: the first capability it lacks,
/// with its reason, or `None` when it has them all.
pub fn missing(runtime: &dyn RuntimeUnderTest, requires: &[Capability]) -> Option<String> {
    let offers = runtime.offers();
    requires.iter().find_map(|&c| offers.lacks(c).map(|why| format!("runtime {} has no {c}: {why}", runtime.name())))
}

/// Whether `runtime` has an implementation object for `capability` (the accessor behind it is `Some`);
/// `None` for [`Capability::Kernel`] and [`Capability::Ranks`], whose experiments are written against the
/// kernel and the MPI shim directly, and for [`Capability::RawSwitch`] of a runtime with `Primitives` (a method
/// it may refuse). What a
/// runtime measured in this process offers ([`RuntimeUnderTest::offers`]) must agree with it, and an
/// external runtime has none but its granularity sweep (a test checks every runtime).
pub fn implements(runtime: &dyn RuntimeUnderTest, capability: Capability) -> Option<bool> {
    use Capability as C;
    Some(match capability {
        C::Context => runtime.context().is_some(),
        C::Kernel | C::Ranks => return None,
        C::ChannelThroughput => runtime.channel_throughput().is_some(),
        C::RwLock => runtime.rwlock().is_some(),
        C::Call | C::SpawnJoin | C::Semaphore => runtime.primitives().is_some(),
        // The raw switch is one method of `Primitives` that a runtime may refuse (monoio has no yield that
        // gives way): without the trait it certainly lacks it; with it, only its offers can tell.
        C::RawSwitch => return runtime.primitives().is_none().then_some(false),
        C::Channel | C::MessageSwitch | C::Rendezvous => runtime.messages().is_some(),
        C::Yield => runtime.yield_round().is_some(),
        C::WakeAll => runtime.wake_all().is_some(),
        C::ForkJoin => runtime.fan_out().is_some() || runtime.grain_sweep().is_some(),
        C::ActivityBarrier => runtime.activity_barrier().is_some(),
        C::Atomic | C::Barrier | C::Lock => runtime.contention().is_some(),
        // `os` has it through the kernel's own calls, which `msg.ipc` makes itself.
        C::Ipc => runtime.ipc().is_some() || runtime.offers().kernel.has().is_some(),
    })
}

/// Inside an `impl RuntimeUnderTest`, the accessors of the capabilities the type implements, each
/// returning `Some(self)`, e.g. `capabilities!(context, primitives, fan_out);`. The names are the accessors'
/// (`context`, `primitives`, `messages`, `contention`, `rwlock`, `channel_throughput`, `yield_round`, `wake_all`, `fan_out`, `grain_sweep`,
/// `activity_barrier`, `ipc`); the
/// type must implement the matching trait, or the expansion does not compile.
#[macro_export]
macro_rules! capabilities {
    ($($capability:ident),* $(,)?) => {
        $( $crate::capabilities!(@one $capability); )*
    };
    (@one context) => {
        fn context(&self) -> Option<&dyn $crate::primitives::Context> {
            Some(self)
        }
    };
    (@one primitives) => {
        fn primitives(&self) -> Option<&dyn $crate::primitives::Primitives> {
            Some(self)
        }
    };
    (@one messages) => {
        fn messages(&self) -> Option<&dyn $crate::primitives::Messages> {
            Some(self)
        }
    };
    (@one contention) => {
        fn contention(&self) -> Option<&dyn $crate::contention::Contention> {
            Some(self)
        }
    };
    (@one rwlock) => {
        fn rwlock(&self) -> Option<&dyn $crate::contention::RwLockContention> {
            Some(self)
        }
    };
    (@one channel_throughput) => {
        fn channel_throughput(&self) -> Option<&dyn $crate::channel_throughput::ChannelThroughput> {
            Some(self)
        }
    };
    (@one yield_round) => {
        fn yield_round(&self) -> Option<&dyn $crate::yield_round::YieldRound> {
            Some(self)
        }
    };
    (@one wake_all) => {
        fn wake_all(&self) -> Option<&dyn $crate::wake_all::WakeAll> {
            Some(self)
        }
    };
    (@one fan_out) => {
        fn fan_out(&self) -> Option<&dyn $crate::fan_out::FanOut> {
            Some(self)
        }
    };
    (@one grain_sweep) => {
        fn grain_sweep(&self) -> Option<&dyn $crate::grain_sweep::GrainSweep> {
            Some(self)
        }
    };
    (@one ipc) => {
        fn ipc(&self) -> Option<&dyn $crate::ipc::IpcRoundTrips> {
            Some(self)
        }
    };
    (@one activity_barrier) => {
        fn activity_barrier(&self) -> Option<&dyn $crate::activity_barrier::ActivityBarrier> {
            Some(self)
        }
    };
}
