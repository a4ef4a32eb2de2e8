//! `msg.throughput` on tokio (issue 25 item 1): the async channels' parties (`runtimes/async_channels.rs`) on
//! current-thread runtimes, one per group of parties, each on its own pinned thread of a harness team.

use super::{current_thread, Tokio};
use crate::async_channels::{groups, with_async_channel, AsyncChan, AsyncVisit, Stream};
use crate::channel_impl::ChannelImpl;
use crate::channel_parties::Discard;
use crate::channel_throughput::{ChannelThroughput, StreamShape};
use crate::offer::ensure_offered;
use crate::RuntimeUnderTest as _;
use overhead_harness::{empty_loop, Harness};
use overhead_record::Outcome;

/// The measurement for one crate: one current-thread runtime per group, made before the team starts.
struct Measure<'a> {
    shape: StreamShape,
    cpus: &'a [usize],
    h: &'a Harness,
}

impl AsyncVisit for Measure<'_> {
    type Out = anyhow::Result<Outcome>;
    fn visit<C: AsyncChan>(self) -> anyhow::Result<Outcome> {
        let groups = groups(self.shape.pattern, self.cpus)?;
        let stream = Stream::<C>::open(self.shape)?;
        let runtimes = groups.iter().map(|_| current_thread()).collect::<std::io::Result<Vec<_>>>()?;
        let team_cpus: Vec<usize> = groups.iter().map(|g| g.2).collect();
        let report = self.h.measure_team(
            &team_cpus,
            |g, n| {
                let (first, count, _) = groups[g];
                // SAFETY: the groups are disjoint and team thread `g` alone runs group `g`.
                runtimes[g].block_on(unsafe { stream.group(first, count, n, |_| Discard) })
            },
            |g, n| runtimes[g].block_on(async move { empty_loop(n) }),
        );
        Ok(report.into())
    }
}

impl ChannelThroughput for Tokio {
    /// Every party on one CPU: one current-thread runtime on one pinned thread runs them all as futures of one
    /// `block_on` (joined without spawning, so the timed region allocates nothing of its own); producers and
    /// consumers on different CPUs: two such runtimes on two pinned threads of a harness team, the channel
    /// between them (tokio's and the other crates' async channels wake across runtimes). A batch is one
    /// `block_on` per group; the slowest group's time over the batch's messages is the sample, against a
    /// `block_on` of the empty loop.
    fn throughput(
        &self,
        implementation: ChannelImpl,
        shape: StreamShape,
        cpus: &[usize],
        h: &Harness,
    ) -> anyhow::Result<Outcome> {
        ensure_offered("tokio", "impl", self.offers().channel_throughput, implementation)?;
        with_async_channel("tokio", implementation, shape.capacity, Measure { shape, cpus, h })?
    }
}
