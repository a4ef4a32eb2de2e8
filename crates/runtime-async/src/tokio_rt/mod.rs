//! The `tokio` runtime: tokio's current-thread scheduler, the async peer of the fiber runtime in Souvatzis's
//! table (one worker thread, cooperative switches at `.await`), and its multi-thread work-stealing
//! scheduler, the peer of kernel threads in Ben-Asher & Feitelson's experiments.

mod local;
mod pool;
mod primitives;
mod sockets;

pub use local::TokioLocal;
pub use pool::TokioPool;

use std::future::Future;

use overhead_runtime_api::channel_impl::ChannelImpl;

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

/// tokio as a runtime under test: the current-thread scheduler in Souvatzis's table, the multi-thread one
/// in Ben-Asher & Feitelson's constructs.
pub struct Tokio;

/// tokio's async channels: its mpsc first (Souvatzis's cell), then async-channel, flume's and kanal's async sides.
/// Rendezvous: tokio's oneshot-reply idiom and the two with a zero-capacity channel (async-channel has none).
const CHANNELS: &[ChannelImpl] =
    &[ChannelImpl::TokioMpsc, ChannelImpl::AsyncChannel, ChannelImpl::FlumeAsync, ChannelImpl::KanalAsync];

/// What tokio offers (`crate::async_runtime::offers`).
const OFFERS: overhead_runtime_api::Offers =
    crate::async_runtime::offers(CHANNELS, &[ChannelImpl::TokioMpsc, ChannelImpl::FlumeAsync, ChannelImpl::KanalAsync]);

crate::async_runtime::async_runtime!(
    Tokio,
    name: "tokio",
    about: "tokio: current-thread scheduler (Souvatzis's SR table), multi-thread work stealing (Ben-Asher & Feitelson)",
    offers: OFFERS,
    pool: TokioPool,
    local: TokioLocal,
    rows_on: current_thread()?,
    streams_on: current_thread,
    own_rendezvous: ChannelImpl::TokioMpsc => primitives::own_rendezvous
);
