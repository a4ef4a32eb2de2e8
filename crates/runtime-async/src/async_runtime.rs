//! What the async runtimes under test (tokio, smol) share as runtimes: the same offers but for their channels,
//! and the same capabilities, implemented by the shared bodies (`crate::task_pool` on the runtime's pool,
//! `crate::local_runtime` on its single-thread executor, `crate::async_channels` for the message rows).
//! smol is one runtime under test (`async_runtime!`); tokio's two flavors divide the same capabilities
//! between two entries (`crate::tokio_rt`), from [`offers`], `async_messages!` and the pool and local
//! macros.

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
        ipc: Offer::Has(overhead_runtime_api::ipc::RUNTIME_SOCKETS),
        ranks: Offer::Lacks(RANKS_UNDER_MPI),
    }
}

/// Makes `$runtime` a runtime under test named `$name`: Ben-Asher & Feitelson's constructs on `$pool` (a `TaskPool`), Souvatzis's
/// primitives on `$local` (a `LocalRuntime`), its channels' message rows on the one-thread executor `$rows_on`
/// makes (an `async_channels::Executor`; evaluated in a function returning `anyhow::Result`, so `?` works),
/// `msg.throughput` on the executors `$streams_on` makes (one per group of parties, an `async_channels::BlockOn`),
/// and every capability of [`offers`]. The one row written in each runtime's own idiom is the rendezvous of
/// its own channel `$own_channel` (`$own_rendezvous`, e.g. tokio's mpsc request and `oneshot` reply); every
/// other crate's rendezvous is two zero-capacity channels to a server task.
macro_rules! async_runtime {
    (
        $runtime:ty,
        name: $name:literal,
        about: $about:expr,
        offers: $offers:path,
        pool: $pool:ty,
        local: $local:ty,
        rows_on: $rows_on:expr,
        streams_on: $streams_on:expr,
        own_rendezvous: $own_channel:path => $own_rendezvous:path
    ) => {
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
                activity_barrier,
                ipc
            );
            fn offers(&self) -> &overhead_runtime_api::Offers {
                &$offers
            }
        }
        $crate::async_runtime::async_messages!(
            $runtime,
            name: $name,
            offers: $offers,
            rows_on: $rows_on,
            streams_on: $streams_on,
            own_rendezvous: $own_channel => $own_rendezvous
        );
    };
}
pub(crate) use async_runtime;

/// Makes `$runtime`'s message rows and `msg.throughput`: its channels' rows on the one-thread executor
/// `$rows_on` makes, its streams on the executors `$streams_on` makes, and the rendezvous of its own channel
/// `$own_channel` in its own idiom (`$own_rendezvous`), as [`async_runtime!`] describes; for a runtime whose
/// other capabilities are written apart (tokio's flavors).
macro_rules! async_messages {
    (
        $runtime:ty,
        name: $name:literal,
        offers: $offers:path,
        rows_on: $rows_on:expr,
        streams_on: $streams_on:expr,
        own_rendezvous: $own_channel:path => $own_rendezvous:path
    ) => {
        impl overhead_runtime_api::primitives::Messages for $runtime {
            /// An unbounded channel of `implementation`, sender and receiver in the same task of the one-thread
            /// executor (`async_channels::message_row`).
            fn async_message(
                &self,
                implementation: overhead_runtime_api::channel_impl::ChannelImpl,
                h: &overhead_harness::Harness,
            ) -> anyhow::Result<overhead_harness::Measurement> {
                overhead_runtime_api::offer::ensure_offered($name, "impl", $offers.channel, implementation)?;
                let row = $crate::async_channels::MessageRow::Async;
                $crate::async_channels::row_on($name, implementation, row, &$rows_on, h)
            }
            /// Two unbounded channels of `implementation` to and from an echo task.
            fn message_round_trip(
                &self,
                implementation: overhead_runtime_api::channel_impl::ChannelImpl,
                _partner_cpu: usize,
                h: &overhead_harness::Harness,
            ) -> anyhow::Result<overhead_harness::Measurement> {
                overhead_runtime_api::offer::ensure_offered($name, "impl", $offers.message_switch, implementation)?;
                let row = $crate::async_channels::MessageRow::Echo;
                $crate::async_channels::row_on($name, implementation, row, &$rows_on, h)
            }
            /// The runtime's own channel in its own idiom; the other crates: two zero-capacity channels to a
            /// server task.
            fn rendezvous(
                &self,
                implementation: overhead_runtime_api::channel_impl::ChannelImpl,
                _partner_cpu: usize,
                h: &overhead_harness::Harness,
            ) -> anyhow::Result<overhead_harness::Measurement> {
                overhead_runtime_api::offer::ensure_offered($name, "impl", $offers.rendezvous, implementation)?;
                if implementation == $own_channel {
                    return $own_rendezvous(h);
                }
                let row = $crate::async_channels::MessageRow::Server;
                $crate::async_channels::row_on($name, implementation, row, &$rows_on, h)
            }
        }
        impl overhead_runtime_api::channel_throughput::ChannelThroughput for $runtime {
            /// [`Throughput`]($crate::async_channels::Throughput): the parties as futures, one executor per
            /// group of parties on its own pinned thread.
            fn throughput(
                &self,
                implementation: overhead_runtime_api::channel_impl::ChannelImpl,
                shape: overhead_runtime_api::channel_throughput::StreamShape,
                parties: overhead_runtime_api::channel_throughput::TeamSeats<'_>,
                h: &overhead_harness::Harness,
            ) -> anyhow::Result<overhead_record::Outcome> {
                let offered = $offers.channel_throughput;
                $crate::async_channels::measure_throughput(
                    $name,
                    offered,
                    implementation,
                    shape,
                    parties,
                    h,
                    $streams_on,
                )
            }
        }
    };
}
pub(crate) use async_messages;
