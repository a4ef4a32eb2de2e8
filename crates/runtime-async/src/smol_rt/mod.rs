//! The `smol` runtime: smol's executors (async-executor), async-io's `block_on` and
//! reactor, and smol's own synchronisation (async-lock as `smol::lock`, async-channel as `smol::channel`,
//! event-listener) — the peer users compare with tokio. Souvatzis's table runs on a `LocalExecutor` inside
//! `smol::block_on` on one thread (as tokio's current-thread runtime); Ben-Asher & Feitelson's constructs on an
//! `Executor` with one pinned thread per CPU of the point (as tokio's multi-thread runtime).

mod channel_throughput;
mod local;
mod pool;
mod primitives;
mod sockets;

pub use local::SmolLocal;
pub use pool::SmolPool;

use std::future::Future;

use overhead_runtime_api::channel_impl::ChannelImpl;

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

/// smol as a runtime under test: a `LocalExecutor` on one thread in Souvatzis's table, an `Executor` with one
/// pinned thread per CPU in Ben-Asher & Feitelson's constructs.
pub struct Smol;

/// smol's async channels: its own async-channel first (Souvatzis's cell), then flume's and kanal's async sides
/// (tokio's mpsc is tokio's, measured there). Rendezvous: smol's own in its idiom (a `bounded(1)` reply per call),
/// flume's and kanal's with a zero-capacity channel.
const CHANNELS: &[ChannelImpl] = &[ChannelImpl::AsyncChannel, ChannelImpl::FlumeAsync, ChannelImpl::KanalAsync];

/// What smol offers (`crate::async_runtime::offers`).
const OFFERS: overhead_runtime_api::Offers = crate::async_runtime::offers(CHANNELS, CHANNELS);

crate::async_runtime::async_runtime!(
    Smol,
    name: "smol",
    about: "smol: async-executor (LocalExecutor for Souvatzis's SR table, pinned Executor threads for Ben-Asher & Feitelson), \
            async-io, async-lock, async-channel",
    offers: OFFERS,
    pool: SmolPool,
    local: SmolLocal,
    rows_on: <SmolLocal as crate::local_runtime::LocalRuntime>::start()?,
    streams_on: || Ok(channel_throughput::SmolBlockOn),
    own_rendezvous: ChannelImpl::AsyncChannel => primitives::own_rendezvous
);
