//! The `smol` runtime (issue 25 item 3): smol's executors (async-executor), async-io's `block_on` and
//! reactor, and smol's own synchronisation (async-lock as `smol::lock`, async-channel as `smol::channel`,
//! event-listener) — the peer users compare with tokio. Seed 004's table runs on a `LocalExecutor` inside
//! `smol::block_on` on one thread (as tokio's current-thread runtime); seed 001's constructs on an
//! `Executor` with one pinned thread per CPU of the point (as tokio's multi-thread runtime).

mod channel_throughput;
mod local;
mod pool;
mod primitives;

pub use local::SmolLocal;
pub use pool::SmolPool;

use std::future::Future;

use ::smol::LocalExecutor;

/// Measures an async operation on a `LocalExecutor` on the calling thread: every batch is one
/// `smol::block_on` of the executor running a task that awaits the operation `n` times, beside the tasks
/// spawned on `ex` before (partners); the control is the same with a task running the empty loop, so the
/// cost of entering `block_on` and spawning the batch's task cancels. The timed loop is a task, not
/// `block_on`'s own future, so that it takes turns with its partners in the executor's queue: `block_on`'s
/// future is polled only between runs of up to 200 tasks (async-executor's `run`).
pub fn measure<F, Fut>(
    h: &overhead_harness::Harness,
    ex: &LocalExecutor<'static>,
    test: F,
) -> overhead_harness::Measurement
where
    F: Fn(u64) -> Fut,
    Fut: Future<Output = ()> + 'static,
{
    h.measure(
        |n| ::smol::block_on(ex.run(ex.spawn(test(n)))),
        |n| ::smol::block_on(ex.run(ex.spawn(async move { overhead_harness::empty_loop(n) }))),
    )
}

/// smol as a runtime under test: a `LocalExecutor` on one thread in seed 004's table, an `Executor` with one
/// pinned thread per CPU in seed 001's constructs.
pub struct Smol;

/// What smol offers: seed 004's primitives on a `LocalExecutor`, seed 001's constructs on a pinned
/// `Executor` pool; contention between CPUs is measured elsewhere.
const OFFERS: crate::Offers = {
    use crate::activity_barrier::ActivityBarrierLimits;
    use crate::channel_impl::ChannelImpl;
    use crate::fan_out::ForkJoinMechanism;
    use crate::primitives::{SpawnKind, SwitchKind, SwitchMechanism};
    use crate::wake_all::{WaiterCpus, WakeAllOffer, WakeMechanism};
    use crate::yield_round::YieldLimits;
    use crate::{Offer, Offers, BETWEEN_CPUS_ELSEWHERE, KERNEL_UNDER_OS, RANKS_UNDER_MPI};
    /// The async channels (`crate::async_channels`): smol's own async-channel first (seed 004's cell), then
    /// flume's and kanal's async sides. Tokio's mpsc is tokio's, so it is measured there.
    const ASYNC_CHANNELS: &[ChannelImpl] =
        &[ChannelImpl::AsyncChannel, ChannelImpl::FlumeAsync, ChannelImpl::KanalAsync];
    Offers {
        context: Offer::Has(()),
        kernel: Offer::Lacks(KERNEL_UNDER_OS),
        call: Offer::Has(()),
        spawn_join: Offer::Has(&[SpawnKind::Task]),
        semaphore: Offer::Has(()),
        channel: Offer::Has(ASYNC_CHANNELS),
        message_switch: Offer::Has(ASYNC_CHANNELS),
        rendezvous: Offer::Has(ASYNC_CHANNELS),
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

// Seed 001's constructs on a pinned `Executor` pool: `crate::task_pool`'s bodies on [`SmolPool`].
crate::task_pool::pool_constructs!(Smol, SmolPool);
// Seed 004's primitives but the messages: `crate::local_runtime`'s bodies on [`SmolLocal`].
crate::local_runtime::local_primitives!(Smol, SmolLocal);

impl crate::RuntimeUnderTest for Smol {
    fn name(&self) -> &'static str {
        "smol"
    }
    fn about(&self) -> &'static str {
        "smol: async-executor (LocalExecutor for seed 004's table, pinned Executor threads for seed 001), async-io, async-lock, async-channel"
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
