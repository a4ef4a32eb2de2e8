//! `msg.throughput` on tokio: the async channels' parties (`crate::async_channels`) on current-thread runtimes,
//! one per group of parties, each on its own pinned thread of a harness team.

use super::{current_thread, Tokio};
use crate::async_channels::{with_async_channel, Throughput};
use overhead_harness::Harness;
use overhead_record::Outcome;
use overhead_runtime_api::channel_impl::ChannelImpl;
use overhead_runtime_api::channel_throughput::{pinned_only, ChannelThroughput, StreamShape, TeamSeats};
use overhead_runtime_api::offer::ensure_offered;
use overhead_runtime_api::RuntimeUnderTest as _;

impl ChannelThroughput for Tokio {
    /// [`Throughput`] with one current-thread runtime per group (tokio's and the other crates' async channels
    /// wake across runtimes).
    fn throughput(
        &self,
        implementation: ChannelImpl,
        shape: StreamShape,
        parties: TeamSeats<'_>,
        h: &Harness,
    ) -> anyhow::Result<Outcome> {
        ensure_offered("tokio", "impl", self.offers().channel_throughput, implementation)?;
        let cpus = pinned_only("tokio", parties)?;
        let measure = Throughput { shape, cpus, h, executor: current_thread };
        with_async_channel("tokio", implementation, shape.capacity, measure)?
    }
}
