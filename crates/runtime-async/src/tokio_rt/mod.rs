//! The `tokio` runtime in its two flavors, which its users choose between (`flavor:` in every tokio point,
//! `overhead_schema::runtimes::TokioFlavor`):
//!
//! - `current_thread` ([`TokioCurrentThread`]): the async peer of the fiber runtime in Souvatzis's table (one
//!   thread, cooperative switches at `.await`): its primitives, message rows, streams and sockets, and Ben-Asher
//!   & Feitelson's constructs where one thread is the whole pool (a fork-join, a bulk spawn, a yield round on
//!   one CPU);
//! - `multi_thread` ([`TokioMultiThread`]): the work-stealing scheduler, the peer of kernel threads in
//!   Ben-Asher & Feitelson's constructs, at every thread count.
//!
//! At one thread both flavors run the same constructs, so the choice has a price a user can read.

mod local;
mod pool;
mod primitives;
mod sockets;

pub use local::TokioLocal;
pub use pool::{TokioCurrentPool, TokioPool};

use std::future::Future;

use overhead_runtime_api::channel_impl::ChannelImpl;
use overhead_runtime_api::{Offer, Offers, RuntimeUnderTest};
use overhead_schema::runtimes::TokioFlavor;

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

/// tokio's current-thread flavor as a runtime under test: Souvatzis's table, the message rows, streams and
/// sockets, and the constructs on one thread.
pub struct TokioCurrentThread;

/// tokio's multi-thread flavor as a runtime under test: Ben-Asher & Feitelson's constructs on its
/// work-stealing pool.
pub struct TokioMultiThread;

/// tokio's async channels: its mpsc first (Souvatzis's cell), then async-channel, flume's and kanal's async sides.
/// Rendezvous: tokio's oneshot-reply idiom and the two with a zero-capacity channel (async-channel has none).
const CHANNELS: &[ChannelImpl] =
    &[ChannelImpl::TokioMpsc, ChannelImpl::AsyncChannel, ChannelImpl::FlumeAsync, ChannelImpl::KanalAsync];

/// Every capability an async runtime offers with tokio's channels (`crate::async_runtime::offers`): what the
/// flavors divide between them.
const ALL_OFFERS: Offers =
    crate::async_runtime::offers(CHANNELS, &[ChannelImpl::TokioMpsc, ChannelImpl::FlumeAsync, ChannelImpl::KanalAsync]);

/// Why the current-thread flavor has no cell that needs several CPUs (`RuntimeUnderTest::one_thread`).
const ONE_THREAD: &str =
    "runs every task of its current-thread flavor on the one thread that calls `block_on` (one CPU)";

/// What the current-thread flavor offers: all but the constructs whose activities need threads of their own.
const CURRENT_THREAD_OFFERS: Offers = Offers {
    wake_all: Offer::Lacks(
        "its current-thread flavor runs the waker and every waiter on one thread, so no waiter sleeps while the \
         waker runs (the multi-thread flavor's waiters do)",
    ),
    activity_barrier: Offer::Lacks(
        "its current-thread flavor runs every activity on one thread, and this experiment spreads activities over \
         every CPU",
    ),
    ..ALL_OFFERS
};

/// Why the multi-thread flavor leaves a capability to the current-thread one.
const ON_CURRENT_THREAD: &str =
    "its multi-thread flavor leaves Souvatzis's one-thread rows, the message rows, streams \
     and sockets to `flavor:current_thread`, where the timed loop is `block_on`'s own future";

/// What the multi-thread flavor offers: Ben-Asher & Feitelson's constructs on its pool.
const MULTI_THREAD_OFFERS: Offers = Offers {
    context: Offer::Lacks(ON_CURRENT_THREAD),
    call: Offer::Lacks(ON_CURRENT_THREAD),
    spawn_join: Offer::Lacks(ON_CURRENT_THREAD),
    semaphore: Offer::Lacks(ON_CURRENT_THREAD),
    channel: Offer::Lacks(ON_CURRENT_THREAD),
    message_switch: Offer::Lacks(ON_CURRENT_THREAD),
    rendezvous: Offer::Lacks(ON_CURRENT_THREAD),
    channel_throughput: Offer::Lacks(ON_CURRENT_THREAD),
    raw_switch: Offer::Lacks(ON_CURRENT_THREAD),
    ipc: Offer::Lacks(ON_CURRENT_THREAD),
    ..ALL_OFFERS
};

crate::task_pool::pool_constructs!(TokioCurrentThread, TokioCurrentPool);
crate::local_runtime::local_primitives!(TokioCurrentThread, TokioLocal);
crate::async_runtime::async_messages!(
    TokioCurrentThread,
    name: "tokio",
    offers: CURRENT_THREAD_OFFERS,
    rows_on: current_thread()?,
    streams_on: current_thread,
    own_rendezvous: ChannelImpl::TokioMpsc => primitives::own_rendezvous
);

impl RuntimeUnderTest for TokioCurrentThread {
    fn name(&self) -> &'static str {
        overhead_schema::runtimes::TOKIO
    }
    fn flavor(&self) -> Option<&'static str> {
        Some(TokioFlavor::CurrentThread.name())
    }
    fn about(&self) -> &'static str {
        "tokio, flavor current_thread: one thread runs every task (Souvatzis's SR table, message rows, sockets)"
    }
    overhead_runtime_api::capabilities!(context, primitives, messages, channel_throughput, yield_round, fan_out, ipc);
    fn offers(&self) -> &Offers {
        &CURRENT_THREAD_OFFERS
    }
    fn one_thread(&self) -> Option<&'static str> {
        Some(ONE_THREAD)
    }
}

crate::task_pool::pool_constructs!(TokioMultiThread, TokioPool);

impl RuntimeUnderTest for TokioMultiThread {
    fn name(&self) -> &'static str {
        overhead_schema::runtimes::TOKIO
    }
    fn flavor(&self) -> Option<&'static str> {
        Some(TokioFlavor::MultiThread.name())
    }
    fn about(&self) -> &'static str {
        "tokio, flavor multi_thread: work-stealing workers, one a CPU (Ben-Asher & Feitelson's constructs)"
    }
    overhead_runtime_api::capabilities!(yield_round, wake_all, fan_out, grain_sweep, activity_barrier);
    fn offers(&self) -> &Offers {
        &MULTI_THREAD_OFFERS
    }
}
