//! `msg.throughput` on smol: the async channels' parties (`crate::async_channels`) run by `smol::block_on`, one
//! group of parties per pinned thread of a harness team.

use std::future::Future;

use super::Smol;
use crate::async_channels::{with_async_channel, BlockOn, Throughput};
use overhead_harness::Harness;
use overhead_record::Outcome;
use overhead_runtime_api::channel_impl::ChannelImpl;
use overhead_runtime_api::channel_throughput::{pinned_only, ChannelThroughput, StreamShape, TeamSeats};
use overhead_runtime_api::offer::ensure_offered;
use overhead_runtime_api::RuntimeUnderTest as _;

/// `smol::block_on` on the calling thread: what a smol program's thread that runs a group of futures does
/// (async-io's reactor drives it while every future waits).
#[derive(Debug, Clone, Copy)]
pub struct SmolBlockOn;

impl BlockOn for SmolBlockOn {
    fn block_on<F: Future>(&self, future: F) -> F::Output {
        ::smol::block_on(future)
    }
}

impl ChannelThroughput for Smol {
    /// [`Throughput`] with `smol::block_on` on each group's thread (async-channel's, flume's and kanal's async
    /// sides wake across threads through their wakers).
    fn throughput(
        &self,
        implementation: ChannelImpl,
        shape: StreamShape,
        parties: TeamSeats<'_>,
        h: &Harness,
    ) -> anyhow::Result<Outcome> {
        ensure_offered("smol", "impl", self.offers().channel_throughput, implementation)?;
        let cpus = pinned_only("smol", parties)?;
        let measure = Throughput { shape, cpus, h, executor: || Ok(SmolBlockOn) };
        with_async_channel("smol", implementation, shape.capacity, measure)?
    }
}
