//! Channel throughput in the shape of crossbeam-channel's benchmark suite (`msg.throughput`):
//! messages streamed through one channel by producers to consumers, bounded or not, per message.

use super::channel_impl::ChannelImpl;
pub use super::channel_shape::{Capacity, Pattern, StreamShape};
use overhead_harness::Harness;
use overhead_record::Outcome;

/// A bound larger than any batch: the harness caps a batch's messages at it (`msg.throughput` runs such a
/// point with `max_batch_ops` = this), so the channel never fills, as crossbeam-channel's suite's `bounded_n`
/// (bounded by its whole message count). 2^20 messages: at 10 ns a message, 10 ms, twenty targets' worth.
pub const NEVER_FULL: usize = 1 << 20;

/// Where a stream's parties run (`msg.throughput`'s `placement:`): the seats of its team, each party's
/// [`overhead_harness::Seat`] ([`TeamSeats::seats`]). One concept with the harness's seat, for a whole team.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TeamSeats<'a> {
    /// One CPU per party, producers first, then consumers (`seq`: one), each party pinned to its own.
    Pinned(&'a [usize]),
    /// Every party free to run on any of these CPUs, placed by the scheduler: the scenario of
    /// crossbeam-channel's suite, whose threads nobody pins (only kernel-thread channels offer it).
    Free(&'a [usize]),
}

impl TeamSeats<'_> {
    /// Each of `count` parties' seat: its own CPU (pinned), or any of the CPUs (free).
    ///
    /// Errors: pinned seats that are not one per party, or free seats with no CPU.
    pub fn seats(&self, count: usize) -> anyhow::Result<Vec<overhead_harness::Seat<'_>>> {
        use overhead_harness::Seat;
        match *self {
            TeamSeats::Pinned(cpus) => {
                anyhow::ensure!(cpus.len() == count, "one CPU per party ({count}) is needed, got {}", cpus.len());
                Ok(cpus.iter().map(|&c| Seat::Cpu(c)).collect())
            }
            TeamSeats::Free(cpus) => {
                anyhow::ensure!(!cpus.is_empty(), "free parties need at least one CPU to run on");
                Ok(vec![Seat::AnyOf(cpus); count])
            }
        }
    }
}

/// [`super::Capability::ChannelThroughput`]: a runtime's channels streaming messages (`u64`s) from producers to
/// consumers, the parties where `parties` puts them; the time is per message delivered, the whole stream's
/// time over its messages, against the runtime's empty loop. Every message is received exactly once, in
/// order per producer.
pub trait ChannelThroughput: Sync {
    /// Streams one batch of messages per harness batch through `implementation` in `shape`.
    ///
    /// Errors: an `implementation` the runtime does not offer, or one without this capacity (an
    /// async channel with no zero-capacity form); free parties where the runtime pins its executors; the
    /// parties could not start.
    fn throughput(
        &self,
        implementation: ChannelImpl,
        shape: StreamShape,
        parties: TeamSeats<'_>,
        h: &Harness,
    ) -> anyhow::Result<Outcome>;
}

/// The pinned CPUs of `parties`, for a runtime whose parties run on pinned executors.
///
/// Errors: free parties, naming the runtime.
pub fn pinned_only<'a>(runtime: &str, parties: TeamSeats<'a>) -> anyhow::Result<&'a [usize]> {
    match parties {
        TeamSeats::Pinned(cpus) => Ok(cpus),
        TeamSeats::Free(_) => {
            anyhow::bail!("runtime {runtime} pins its executors: msg.throughput has no free parties on it")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A team's seats are its parties' seats: pinned one CPU each, or free on all of them.
    #[test]
    fn a_team_s_seats_are_its_parties_seats() {
        use overhead_harness::Seat;
        assert_eq!(TeamSeats::Pinned(&[3, 5]).seats(2).unwrap(), [Seat::Cpu(3), Seat::Cpu(5)]);
        assert!(TeamSeats::Pinned(&[3]).seats(2).unwrap_err().to_string().contains("one CPU per party (2)"));
        assert_eq!(TeamSeats::Free(&[0, 1]).seats(3).unwrap(), vec![Seat::AnyOf(&[0, 1]); 3]);
        assert!(TeamSeats::Free(&[]).seats(1).is_err());
    }

    /// The `capacity:` key reads and writes numbers and "unbounded", and refuses anything else by name.
    #[test]
    fn capacity_round_trips_and_refuses_nonsense() {
        for (c, text) in
            [(Capacity::Bounded(0), "0"), (Capacity::Bounded(1024), "1024"), (Capacity::Unbounded, "unbounded")]
        {
            assert_eq!(serde_json::to_value(c).unwrap(), text);
            assert_eq!(serde_json::from_value::<Capacity>(text.into()).unwrap(), c);
        }
        let err = serde_json::from_value::<Capacity>("lots".into()).unwrap_err().to_string();
        assert!(err.contains("\"lots\""), "{err}");
        assert_eq!(Pattern::Mpmc.parties(), (4, 4));
    }
}
