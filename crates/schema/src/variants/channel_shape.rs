//! A channel's shape: who sends and who receives, and its capacity (the `pattern:` and `capacity:` keys of
//! `msg.throughput`; capacities also pick the channel implementations that have them, `ChannelImpl`). Apart
//! from `channel_throughput`, so that `channel_impl` and `channel_throughput` depend on it and not on each
//! other.

/// Who sends and who receives (crossbeam-channel's suite: `seq`, `spsc`, `mpsc`, `mpmc`; the `pattern:` key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pattern {
    /// One thread sends a batch of messages, then receives them all (needs a capacity ≥ the batch, or unbounded).
    Seq,
    /// One producer, one consumer.
    Spsc,
    /// [`Pattern::PRODUCERS`] producers, one consumer.
    Mpsc,
    /// [`Pattern::PRODUCERS`] producers, as many consumers.
    Mpmc,
}

impl Pattern {
    /// Producers of `mpsc` and `mpmc`, and consumers of `mpmc`: crossbeam-channel's suite's `THREADS`.
    pub const PRODUCERS: usize = 4;

    /// (producers, consumers) of this pattern; `seq` is one thread doing both, (1, 0).
    pub fn parties(self) -> (usize, usize) {
        match self {
            Pattern::Seq => (1, 0),
            Pattern::Spsc => (1, 1),
            Pattern::Mpsc => (Pattern::PRODUCERS, 1),
            Pattern::Mpmc => (Pattern::PRODUCERS, Pattern::PRODUCERS),
        }
    }
}

/// A channel's capacity (the `capacity:` key): a bound in messages (0 is a zero-capacity channel, a handoff: every send waits
/// for its receive), or unbounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capacity {
    /// At most this many messages wait in the channel.
    Bounded(usize),
    /// Sends never wait.
    Unbounded,
}

impl Capacity {
    /// The bound of a bounded capacity, in messages; 0 for unbounded (never asked: only the bounded forms of a
    /// crate's channel read it).
    pub fn bound(self) -> usize {
        match self {
            Capacity::Bounded(n) => n,
            Capacity::Unbounded => 0,
        }
    }
}

impl serde::Serialize for Capacity {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Capacity::Bounded(n) => s.serialize_str(&n.to_string()),
            Capacity::Unbounded => s.serialize_str("unbounded"),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Capacity {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        if text == "unbounded" {
            return Ok(Capacity::Unbounded);
        }
        text.parse().map(Capacity::Bounded).map_err(|_| {
            serde::de::Error::custom(format!("capacity {text:?} is neither a number of messages nor \"unbounded\""))
        })
    }
}

/// One throughput point's shape: the pattern and the channel's capacity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamShape {
    /// Who sends and who receives.
    pub pattern: Pattern,
    /// The channel's capacity.
    pub capacity: Capacity,
}
