//! What the async runtimes under test (tokio, smol) share as runtimes: the same offers but for their channels,
//! and the same capabilities, implemented by the shared bodies (`crate::task_pool` on the runtime's pool,
//! `crate::local_runtime` on its single-thread executor, `crate::async_channels` for the message rows).

use overhead_runtime_api::activity_barrier::ActivityBarrierLimits;
use overhead_runtime_api::channel_impl::ChannelImpl;
use overhead_runtime_api::fan_out::ForkJoinMechanism;
use overhead_runtime_api::primitives::{SpawnKind, SwitchKind, SwitchMechanism};
use overhead_runtime_api::wake_all::{WaiterCpus, WakeAllOffer, WakeMechanism};
use overhead_runtime_api::yield_round::YieldLimits;
use overhead_runtime_api::{Offer, Offers, BETWEEN_CPUS_ELSEWHERE, KERNEL_UNDER_OS, RANKS_UNDER_MPI};

/// An async runtime's offers: Souvatzis's primitives on its single-thread executor, Ben-Asher & Feitelson's constructs on its
/// pinned pool, its async `channels` (its own first: Souvatzis's cell) for the message rows and throughput, and
/// `rendezvous` (those with a zero-capacity channel, or the runtime's own idiom); contention between CPUs is
/// measured elsewhere.
pub const fn offers(channels: &'static [ChannelImpl], rendezvous: &'static [ChannelImpl]) -> Offers {
    Offers {
        context: Offer::Has(()),
        kernel: Offer::Lacks(KERNEL_UNDER_OS),
        call: Offer::Has(()),
        spawn_join: Offer::Has(&[SpawnKind::Task]),
        semaphore: Offer::Has(()),
        channel: Offer::Has(channels),
        message_switch: Offer::Has(channels),
        rendezvous: Offer::Has(rendezvous),
        channel_throughput: Offer::Has(channels),
        raw_switch: Offer::Has(SwitchMechanism { kind: SwitchKind::Yield, across_cpus: false }),
        yield_round: Offer::Has(YieldLimits::NONE),
        wake_all: Offer::Has(WakeAllOffer { mechanisms: &[WakeMechanism::Notify], waiter_cpus: WaiterCpus::Pool }),
        fork_join: Offer::Has(&[ForkJoinMechanism::Spawn]),
        activity_barrier: Offer::Has(ActivityBarrierLimits::NONE),
        atomic: Offer::Lacks(BETWEEN_CPUS_ELSEWHERE),
        barrier: Offer::Lacks(BETWEEN_CPUS_ELSEWHERE),
        lock: Offer::Lacks(BETWEEN_CPUS_ELSEWHERE),
        rwlock: Offer::Lacks(BETWEEN_CPUS_ELSEWHERE),
        ranks: Offer::Lacks(RANKS_UNDER_MPI),
    }
}

/// Makes `$runtime` a runtime under test named `$name`: Ben-Asher & Feitelson's constructs on `$pool` (a `TaskPool`), Souvatzis's
/// primitives on `$local` (a `LocalRuntime`), and every capability of [`offers`]; the type itself
/// implements `Messages` and `ChannelThroughput` (its channels).
macro_rules! async_runtime {
    ($runtime:ty, name: $name:literal, about: $about:expr, offers: $offers:path, pool: $pool:ty, local: $local:ty) => {
        $crate::task_pool::pool_constructs!($runtime, $pool);
        $crate::local_runtime::local_primitives!($runtime, $local);
        impl overhead_runtime_api::RuntimeUnderTest for $runtime {
            fn name(&self) -> &'static str {
                $name
            }
            fn about(&self) -> &'static str {
                $about
            }
            overhead_runtime_api::capabilities!(
                context,
                primitives,
                messages,
                channel_throughput,
                yield_round,
                wake_all,
                fan_out,
                grain_sweep,
                activity_barrier
            );
            fn offers(&self) -> &overhead_runtime_api::Offers {
                &$offers
            }
        }
    };
}
pub(crate) use async_runtime;
