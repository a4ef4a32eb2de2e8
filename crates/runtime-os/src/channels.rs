//! The blocking channel crates on kernel threads: `std::sync::mpsc`, crossbeam-channel, flume
//! and kanal behind one tiny trait, so that each of Souvatzis's message rows and `msg.throughput` has one body,
//! monomorphised per crate (the crate is chosen once, outside the timed loop, by [`with_sync_channel`]).

use super::Os;
use overhead_harness::{empty_loop, Harness, Seat, TeamTiming};
use overhead_record::Outcome;
use overhead_runtime_api::channel_impl::ChannelImpl;
use overhead_runtime_api::channel_parties::{producer_index, share, tag, Discard, Sink, StreamEnds};
use overhead_runtime_api::channel_throughput::{Capacity, ChannelThroughput, Pattern, StreamShape, TeamSeats};
use overhead_runtime_api::offer::{ensure_offered, not_offered};
use overhead_runtime_api::RuntimeUnderTest as _;

/// One blocking channel crate, messages `u64`. Every method is the crate's own call, inlined into the body.
pub trait SyncChannel: 'static {
    /// The sending end (cloned once per producer, outside the timed loop).
    type Tx: Clone + Send;
    /// The receiving end.
    type Rx: Send;
    /// A channel of `capacity` (the caller has checked [`ChannelImpl::has_capacity`]).
    fn open(capacity: Capacity) -> (Self::Tx, Self::Rx);
    /// A second receiving end of the same channel, or `None` for a single-consumer queue (std's mpsc).
    fn clone_rx(rx: &Self::Rx) -> Option<Self::Rx>;
    /// Sends `message`, waiting while a bounded channel is full; `false` when every receiver is gone.
    fn send(tx: &Self::Tx, message: u64) -> bool;
    /// Receives one message, waiting while the channel is empty; `None` when every sender is gone.
    fn recv(rx: &Self::Rx) -> Option<u64>;
}

/// `std::sync::mpsc::channel` (unbounded).
pub struct StdUnbounded;
/// `std::sync::mpsc::sync_channel(n)` (bounded; 0 is a rendezvous).
pub struct StdBounded;
/// `crossbeam_channel::bounded(n)` / `unbounded()`.
pub struct Crossbeam;
/// `flume::bounded(n)` / `unbounded()`, blocking calls.
pub struct Flume;
/// `kanal::bounded(n)` / `unbounded()`, blocking calls.
pub struct Kanal;

/// The adapter of a blocking channel crate whose `send` and `recv` take `&self` and return a `Result`: its
/// ends, how it opens a channel of a capacity (`$open`, a `fn(Capacity) -> (Tx, Rx)`) and whether its
/// receiving end clones (`$clone_rx`, a `fn(&Rx) -> Option<Rx>`: std's mpsc has one consumer).
macro_rules! blocking_channel {
    ($channel:ty, $tx:ty, $rx:ty, open: $open:expr, clone_rx: $clone_rx:expr) => {
        impl SyncChannel for $channel {
            type Tx = $tx;
            type Rx = $rx;
            fn open(capacity: Capacity) -> (Self::Tx, Self::Rx) {
                ($open)(capacity)
            }
            fn clone_rx(rx: &Self::Rx) -> Option<Self::Rx> {
                ($clone_rx)(rx)
            }
            #[inline]
            fn send(tx: &Self::Tx, message: u64) -> bool {
                tx.send(message).is_ok()
            }
            #[inline]
            fn recv(rx: &Self::Rx) -> Option<u64> {
                rx.recv().ok()
            }
        }
    };
}

/// A crate shaped like crossbeam-channel's: `bounded(n)` (0: a handoff) and `unbounded()`, cloneable ends
/// (crossbeam-channel, flume, kanal).
macro_rules! crossbeam_shaped {
    ($channel:ty, $krate:ident) => {
        blocking_channel!($channel, $krate::Sender<u64>, $krate::Receiver<u64>,
            open: |capacity| match capacity {
                Capacity::Bounded(n) => $krate::bounded(n),
                Capacity::Unbounded => $krate::unbounded(),
            },
            clone_rx: |rx: &$krate::Receiver<u64>| Some(rx.clone()));
    };
}

blocking_channel!(StdUnbounded, std::sync::mpsc::Sender<u64>, std::sync::mpsc::Receiver<u64>,
    open: |_| std::sync::mpsc::channel(), clone_rx: |_| None);
blocking_channel!(StdBounded, std::sync::mpsc::SyncSender<u64>, std::sync::mpsc::Receiver<u64>,
    open: |capacity: Capacity| std::sync::mpsc::sync_channel(capacity.bound()), clone_rx: |_| None);
crossbeam_shaped!(Crossbeam, crossbeam_channel);
crossbeam_shaped!(Flume, flume);
crossbeam_shaped!(Kanal, kanal);

/// A body generic over the channel crate, run by [`with_sync_channel`] for the crate a point names.
pub trait SyncVisit {
    /// What the body returns.
    type Out;
    /// The body, monomorphised for `C`.
    fn visit<C: SyncChannel>(self) -> Self::Out;
}

/// Runs `body` with the channel type of `implementation` at `capacity` (std's mpsc is two types: `channel`
/// for unbounded, `sync_channel` for bounded).
///
/// Errors: `implementation` is not a blocking channel of this runtime, or lacks `capacity`.
pub fn with_sync_channel<V: SyncVisit>(
    implementation: ChannelImpl,
    capacity: Capacity,
    body: V,
) -> anyhow::Result<V::Out> {
    implementation.ensure_capacity(capacity)?;
    Ok(match (implementation, capacity) {
        (ChannelImpl::StdMpsc, Capacity::Unbounded) => body.visit::<StdUnbounded>(),
        (ChannelImpl::StdMpsc, Capacity::Bounded(_)) => body.visit::<StdBounded>(),
        (ChannelImpl::Crossbeam, _) => body.visit::<Crossbeam>(),
        (ChannelImpl::Flume, _) => body.visit::<Flume>(),
        (ChannelImpl::Kanal, _) => body.visit::<Kanal>(),
        (other, _) => return Err(not_offered("os", "impl", other)),
    })
}

/// The ends of one `msg.throughput` stream on kernel threads: one sending end per producer and one receiving
/// end per consumer (`seq`: one of each, for its one thread), each in its party's slot.
pub struct Stream<C: SyncChannel>(StreamEnds<C::Tx, C::Rx>);

impl<C: SyncChannel> Stream<C> {
    /// Opens the channel of `shape` and hands out its ends.
    ///
    /// Errors: `mpmc` through a single-consumer queue.
    pub fn open(shape: StreamShape) -> anyhow::Result<Stream<C>> {
        StreamEnds::open(shape, C::open, C::clone_rx).map(Stream)
    }

    /// Party `index`'s part of a batch of `n` messages (parties: the producers, then the consumers): a
    /// producer sends its [`share`] tagged with its index and sequence number; a consumer receives its share
    /// into `sink`; `seq` sends at most one chunk (the capacity, or everything when unbounded) and receives it
    /// back, until `n` have passed. The timed body of `msg.throughput` on `os`, and what the delivery test runs.
    ///
    /// # Safety
    /// Only one thread at a time runs party `index` (a team gives every party its own thread).
    #[inline]
    pub unsafe fn party<S: Sink>(&self, index: usize, n: u64, sink: &mut S) {
        let (producers, consumers) = self.0.pattern.parties();
        if self.0.pattern == Pattern::Seq {
            // SAFETY: slot 0 of each is this one party's, by the caller's promise.
            let (tx, rx) = unsafe { (self.0.tx.get(0), self.0.rx.get(0)) };
            let mut sent = 0;
            while sent < n {
                let k = self.0.chunk.min(n - sent);
                for s in sent..sent + k {
                    C::send(tx, tag(0, s));
                }
                for _ in 0..k {
                    sink.take(C::recv(rx).expect("the stream's sender is alive"));
                }
                sent += k;
            }
        } else if let Some(p) = producer_index(self.0.pattern, index) {
            // SAFETY: slot `p` is party `index`'s own, by the caller's promise.
            let tx = unsafe { self.0.tx.get(p) };
            for s in 0..share(n, producers, p) {
                C::send(tx, tag(p, s));
            }
        } else {
            let c = index - producers;
            // SAFETY: as above.
            let rx = unsafe { self.0.rx.get(c) };
            for _ in 0..share(n, consumers, c) {
                sink.take(C::recv(rx).expect("the stream's senders are alive"));
            }
        }
    }
}

/// `msg.throughput`'s measurement for one crate: a harness team with one thread per party, pinned or free.
struct Measure<'a> {
    shape: StreamShape,
    seats: Vec<Seat<'a>>,
    h: &'a Harness,
}

impl SyncVisit for Measure<'_> {
    type Out = anyhow::Result<Outcome>;
    fn visit<C: SyncChannel>(self) -> anyhow::Result<Outcome> {
        let stream = Stream::<C>::open(self.shape)?;
        let report = self.h.measure_seated_team(
            &self.seats,
            TeamTiming::Span,
            // SAFETY: a harness team runs thread `index`'s bodies on that thread only.
            |index, n| unsafe { stream.party(index, n, &mut Discard) },
            |_, n| empty_loop(n),
        );
        Ok(report.into())
    }
}

impl ChannelThroughput for Os {
    /// One kernel thread per party, pinned to its CPU or free on the set, in a harness team: the team's
    /// sample is the stream's span, from the first party's start to the last party's end (the last receive,
    /// in practice; [`TeamTiming::Span`]) over the batch's messages, against the empty loop. A party's own
    /// clock would start only when the scheduler first runs it, so on a shared CPU the slowest party alone
    /// misses the time its partners ran before it (docs/METHOD.md §9).
    fn throughput(
        &self,
        implementation: ChannelImpl,
        shape: StreamShape,
        parties: TeamSeats<'_>,
        h: &Harness,
    ) -> anyhow::Result<Outcome> {
        ensure_offered("os", "impl", self.offers().channel_throughput, implementation)?;
        let (producers, consumers) = shape.pattern.parties();
        let count = if shape.pattern == Pattern::Seq { 1 } else { producers + consumers };
        let seats: Vec<Seat> = parties.seats(count).map_err(|e| anyhow::anyhow!("{:?}: {e}", shape.pattern))?;
        with_sync_channel(implementation, shape.capacity, Measure { shape, seats, h })?
    }
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use overhead_runtime_api::channel_parties::check_delivery;

    /// Runs `stream` the way a team does, one unpinned thread per party, for a batch of `n`, and returns each
    /// consumer's log (`seq`: its one thread's).
    fn run_batch<C: SyncChannel>(stream: &Stream<C>, pattern: Pattern, n: u64) -> Vec<Vec<u64>> {
        let (producers, consumers) = pattern.parties();
        let parties = if pattern == Pattern::Seq { 1 } else { producers + consumers };
        let mut logs: Vec<Vec<u64>> = vec![Vec::new(); parties];
        std::thread::scope(|s| {
            for (index, log) in logs.iter_mut().enumerate() {
                // SAFETY: every party index has its own thread.
                s.spawn(move || unsafe { stream.party(index, n, log) });
            }
        });
        if pattern == Pattern::Seq {
            logs
        } else {
            logs.split_off(producers)
        }
    }

    /// The delivery check of one implementation, through [`with_sync_channel`] as the measurement goes.
    struct Deliver {
        shape: StreamShape,
    }

    impl SyncVisit for Deliver {
        type Out = Result<(), String>;
        fn visit<C: SyncChannel>(self) -> Result<(), String> {
            let stream = Stream::<C>::open(self.shape).map_err(|e| e.to_string())?;
            // Several batches through the same ends, as the harness runs them: each must be complete alone.
            for n in [1u64, 7, 1000, 3000] {
                let logs = run_batch(&stream, self.shape.pattern, n);
                let producers = self.shape.pattern.parties().0;
                check_delivery(&logs, producers, n).map_err(|e| format!("{:?} n={n}: {e}", self.shape))?;
            }
            Ok(())
        }
    }

    /// Every blocking channel delivers every message exactly once and in order per producer,
    /// in every pattern and capacity it has, through the measurement's own party bodies.
    #[test]
    fn every_sync_channel_delivers_each_message_once_in_order() {
        let capacities = [Capacity::Bounded(0), Capacity::Bounded(1), Capacity::Bounded(1024), Capacity::Unbounded];
        for implementation in [ChannelImpl::StdMpsc, ChannelImpl::Crossbeam, ChannelImpl::Flume, ChannelImpl::Kanal] {
            for pattern in [Pattern::Seq, Pattern::Spsc, Pattern::Mpsc, Pattern::Mpmc] {
                for capacity in capacities {
                    if !implementation.has_pattern(pattern)
                        || (pattern == Pattern::Seq && capacity == Capacity::Bounded(0))
                    {
                        continue;
                    }
                    let shape = StreamShape { pattern, capacity };
                    with_sync_channel(implementation, capacity, Deliver { shape })
                        .unwrap()
                        .unwrap_or_else(|e| panic!("{implementation}: {e}"));
                }
            }
        }
    }
}
