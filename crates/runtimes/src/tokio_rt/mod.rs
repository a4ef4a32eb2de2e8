//! The `tokio` runtime: tokio's current-thread scheduler, the async peer of the fiber runtime in seed
//! 004's table (one worker thread, cooperative switches at `.await`), and its multi-thread work-stealing
//! scheduler, the peer of kernel threads in seed 001's experiments.

mod channel_throughput;
mod local;
mod pool;
mod primitives;

pub use local::TokioLocal;
pub use pool::TokioPool;

use std::future::Future;

/// A current-thread tokio runtime (no I/O or timer drivers: the primitives measured need neither).
///
/// Errors: tokio could not create its runtime (out of memory or file descriptors).
pub fn current_thread() -> std::io::Result<::tokio::runtime::Runtime> {
    ::tokio::runtime::Builder::new_current_thread().build()
}

/// Measures an async operation on tokio's current-thread runtime: every batch is one `block_on` of a
/// future that awaits the operation `n` times; the control is a `block_on` of the empty loop, so the
/// cost of entering and leaving the runtime per batch cancels.
pub fn measure<F, Fut>(
    h: &overhead_harness::Harness,
    rt: &::tokio::runtime::Runtime,
    test: F,
) -> overhead_harness::Measurement
where
    F: Fn(u64) -> Fut,
    Fut: Future<Output = ()>,
{
    h.measure(|n| rt.block_on(test(n)), |n| rt.block_on(async move { overhead_harness::empty_loop(n) }))
}

/// tokio as a runtime under test: the current-thread scheduler in seed 004's table, the multi-thread one
/// in seed 001's constructs.
pub struct Tokio;

/// What tokio offers: seed 004's primitives on the current-thread scheduler, seed 001's constructs on the
/// multi-thread one; contention between CPUs is measured elsewhere.
const OFFERS: crate::Offers = {
    use crate::activity_barrier::ActivityBarrierLimits;
    use crate::channel_impl::ChannelImpl;
    use crate::fan_out::ForkJoinMechanism;
    use crate::primitives::{SpawnKind, SwitchKind, SwitchMechanism};
    use crate::wake_all::{WaiterCpus, WakeAllOffer, WakeMechanism};
    use crate::yield_round::YieldLimits;
    use crate::{Offer, Offers, BETWEEN_CPUS_ELSEWHERE, KERNEL_UNDER_OS, RANKS_UNDER_MPI};
    /// The async channels (issue 25 item 1; `runtimes/async_channels.rs`): tokio's mpsc first (seed 004's
    /// cell), then async-channel, flume's and kanal's async sides. Rendezvous: tokio's oneshot-reply idiom and
    /// the two with a zero-capacity channel (async-channel has none).
    const ASYNC_CHANNELS: &[ChannelImpl] =
        &[ChannelImpl::TokioMpsc, ChannelImpl::AsyncChannel, ChannelImpl::FlumeAsync, ChannelImpl::KanalAsync];
    Offers {
        context: Offer::Has(()),
        kernel: Offer::Lacks(KERNEL_UNDER_OS),
        call: Offer::Has(()),
        spawn_join: Offer::Has(&[SpawnKind::Task]),
        semaphore: Offer::Has(()),
        channel: Offer::Has(ASYNC_CHANNELS),
        message_switch: Offer::Has(ASYNC_CHANNELS),
        rendezvous: Offer::Has(&[ChannelImpl::TokioMpsc, ChannelImpl::FlumeAsync, ChannelImpl::KanalAsync]),
        channel_throughput: Offer::Has(ASYNC_CHANNELS),
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
};

// Seed 001's constructs on the multi-thread runtime: `crate::task_pool`'s bodies on [`TokioPool`].
crate::task_pool::pool_constructs!(Tokio, TokioPool);
// Seed 004's primitives but the messages: `crate::local_runtime`'s bodies on [`TokioLocal`].
crate::local_runtime::local_primitives!(Tokio, TokioLocal);

impl crate::RuntimeUnderTest for Tokio {
    fn name(&self) -> &'static str {
        "tokio"
    }
    fn about(&self) -> &'static str {
        "tokio: current-thread scheduler (seed 004 table), multi-thread work stealing (seed 001)"
    }
    crate::plugin::capabilities!(
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
    fn offers(&self) -> &crate::Offers {
        &OFFERS
    }
}
