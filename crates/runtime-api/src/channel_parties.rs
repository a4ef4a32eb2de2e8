//! The parties of a `msg.throughput` stream (crossbeam-channel's benchmark suite's shape), shared
//! by the kernel-thread bodies (`runtime-os/src/channels.rs`) and the async ones (`runtime-async/src/async_channels.rs`):
//! how a batch of `n` messages is split over producers and consumers, how a message names its producer and its
//! place in that producer's stream, and where a consumer puts what it received (thrown away while measuring,
//! recorded by the delivery tests).

use std::cell::UnsafeCell;
use std::hint::black_box;

use super::channel_throughput::{Capacity, Pattern, StreamShape};

/// Bits of a message that hold the producer's sequence number; the producer's index sits above them.
const SEQ_BITS: u32 = 40;

/// Party `index`'s share of a batch of `n` messages split over `parties` parties: `n / parties`, one more for
/// the first `n % parties`, so the shares add up to `n` (a consumer's share is how many it receives).
#[inline]
pub fn share(n: u64, parties: usize, index: usize) -> u64 {
    let parties = parties as u64;
    n / parties + u64::from((index as u64) < n % parties)
}

/// The message producer `producer` sends as its `seq`-th of a batch: the producer's index above
/// [`SEQ_BITS`] bits of sequence number (one shift and one or in the timed loop; the delivery tests read
/// both back with [`untag`]).
#[inline]
pub fn tag(producer: usize, seq: u64) -> u64 {
    ((producer as u64) << SEQ_BITS) | seq
}

/// (producer, sequence number) of a message made by [`tag`].
pub fn untag(message: u64) -> (usize, u64) {
    ((message >> SEQ_BITS) as usize, message & ((1 << SEQ_BITS) - 1))
}

/// The most messages a `seq` batch sends before receiving them back: the capacity for a bounded channel
/// (a send into a full channel with nobody receiving would wait for ever), the whole batch for an unbounded
/// one.
pub fn seq_chunk(capacity: Capacity) -> u64 {
    match capacity {
        Capacity::Bounded(n) => n as u64,
        Capacity::Unbounded => u64::MAX,
    }
}

/// Where a consumer puts each message it receives.
pub trait Sink {
    /// Takes one received message.
    fn take(&mut self, message: u64);
}

/// The measuring sink: the message goes to `black_box`, so receiving it cannot be optimised away; no
/// memory is written.
pub struct Discard;

impl Sink for Discard {
    #[inline]
    fn take(&mut self, message: u64) {
        black_box(message);
    }
}

/// A delivery test's sink: every message, in the order received.
impl Sink for Vec<u64> {
    fn take(&mut self, message: u64) {
        self.push(message);
    }
}

/// Who party `index` of a stream with `pattern` is: `Some(p)` for producer `p`, `None` for a consumer (the
/// parties are the producers, then the consumers, as [`super::channel_throughput::ChannelThroughput`]'s
/// `cpus`; `seq`'s one party both sends and receives and is producer 0).
pub fn producer_index(pattern: Pattern, index: usize) -> Option<usize> {
    let (producers, _) = pattern.parties();
    (index < producers).then_some(index)
}

/// One value per party of a team (a channel end, a sink), each used only by that party's thread: the team's
/// bodies get `&PartySlots` (they are `Fn + Sync`) and take their own slot by index. This is what lets an end
/// that is `Send` but not `Sync` (std's `Receiver`) or needs `&mut` (tokio's `Receiver::recv`) serve a team,
/// with no lock in the timed loop.
pub struct PartySlots<T>(Vec<UnsafeCell<T>>);

// SAFETY: a slot is reached only through `PartySlots::get`, whose callers promise that no two threads use the
// same index at once; every value therefore has one user at a time, and `T: Send` lets it move to that user's
// thread.
unsafe impl<T: Send> Sync for PartySlots<T> {}

impl<T> PartySlots<T> {
    /// Slots holding `values`, slot `i` the `i`-th value.
    pub fn new(values: Vec<T>) -> PartySlots<T> {
        PartySlots(values.into_iter().map(UnsafeCell::new).collect())
    }

    /// How many slots there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Slot `index`, for the one party that owns it.
    ///
    /// # Safety
    /// No other reference to slot `index` may be live while the returned one is: only the party `index`
    /// calls this, from the one thread that runs that party, and drops the reference before its body returns.
    /// Panics if `index` is out of range.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn get(&self, index: usize) -> &mut T {
        // SAFETY: exclusive by the caller's promise above.
        unsafe { &mut *self.0[index].get() }
    }

    /// The values back.
    pub fn into_inner(self) -> Vec<T> {
        self.0.into_iter().map(UnsafeCell::into_inner).collect()
    }
}

/// What a delivery test asserts of one batch: every message `tag(p, s)` for producer `p` <
/// `producers` and `s` < its [`share`] of `n` arrived exactly once over all consumers' `received` logs, and
/// each consumer saw each producer's messages in increasing sequence order. Errors name the first violation.
pub fn check_delivery(received: &[Vec<u64>], producers: usize, n: u64) -> Result<(), String> {
    let mut seen: Vec<Vec<bool>> = (0..producers).map(|p| vec![false; share(n, producers, p) as usize]).collect();
    for (consumer, log) in received.iter().enumerate() {
        let mut last: Vec<Option<u64>> = vec![None; producers];
        for &m in log {
            let (p, s) = untag(m);
            let slot = seen.get_mut(p).and_then(|v| v.get_mut(s as usize));
            let Some(slot) = slot else { return Err(format!("consumer {consumer} got a message never sent: {p}/{s}")) };
            if std::mem::replace(slot, true) {
                return Err(format!("message {p}/{s} delivered twice"));
            }
            if last[p].is_some_and(|l| l >= s) {
                return Err(format!("consumer {consumer} got producer {p}'s {s} after {}", last[p].unwrap_or(0)));
            }
            last[p] = Some(s);
        }
    }
    for (p, v) in seen.iter().enumerate() {
        if let Some(s) = v.iter().position(|&b| !b) {
            return Err(format!("message {p}/{s} never delivered"));
        }
    }
    Ok(())
}

/// The ends of one `msg.throughput` stream, blocking or async alike: one sending end per producer and one
/// receiving end per consumer (`seq`: one of each), each in its party's slot, and the `seq` chunk. The blocking
/// stream (`os/channels.rs`) and the async one (`async_channels.rs`) differ only in how a party sends and
/// receives (a blocking call or an awaited future), so they share these.
pub struct StreamEnds<Tx, Rx> {
    /// The stream's pattern.
    pub pattern: Pattern,
    /// Messages `seq` sends before receiving them back ([`seq_chunk`]).
    pub chunk: u64,
    /// The producers' sending ends (`seq`: one).
    pub tx: PartySlots<Tx>,
    /// The consumers' receiving ends (`seq`: one).
    pub rx: PartySlots<Rx>,
}

impl<Tx: Clone, Rx> StreamEnds<Tx, Rx> {
    /// Opens the channel of `shape` with `open` and hands out its ends, a receiving end per consumer from
    /// `clone_rx`.
    ///
    /// Errors: `mpmc` through a single-consumer queue (`clone_rx` gave none).
    pub fn open(
        shape: StreamShape,
        open: impl FnOnce(Capacity) -> (Tx, Rx),
        clone_rx: impl Fn(&Rx) -> Option<Rx>,
    ) -> anyhow::Result<StreamEnds<Tx, Rx>> {
        let (producers, consumers) = shape.pattern.parties();
        let (tx, rx) = open(shape.capacity);
        let mut rxs = Vec::with_capacity(consumers.max(1));
        for _ in 1..consumers.max(1) {
            rxs.push(clone_rx(&rx).ok_or_else(|| anyhow::anyhow!("a single-consumer channel has no mpmc"))?);
        }
        rxs.push(rx);
        Ok(StreamEnds {
            pattern: shape.pattern,
            chunk: seq_chunk(shape.capacity),
            tx: PartySlots::new(vec![tx; producers]),
            rx: PartySlots::new(rxs),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shares add up to the batch; tags round trip; the check catches loss, duplicates and reordering.
    #[test]
    fn shares_tags_and_the_delivery_check() {
        for n in [0u64, 1, 3, 4, 5, 1001] {
            assert_eq!((0..4).map(|i| share(n, 4, i)).sum::<u64>(), n);
        }
        assert_eq!(untag(tag(3, 12345)), (3, 12345));
        let good = vec![vec![tag(0, 0), tag(1, 0), tag(0, 1)], vec![tag(1, 1)]];
        assert_eq!(check_delivery(&good, 2, 4), Ok(()));
        assert!(check_delivery(&[vec![tag(0, 0), tag(1, 0), tag(0, 1)]], 2, 4).unwrap_err().contains("never"));
        let dup = vec![vec![tag(0, 0), tag(1, 0), tag(0, 1), tag(1, 1), tag(1, 1)]];
        assert!(check_delivery(&dup, 2, 4).unwrap_err().contains("twice"));
        let swapped = vec![vec![tag(0, 1), tag(0, 0), tag(1, 0), tag(1, 1)]];
        assert!(check_delivery(&swapped, 2, 4).unwrap_err().contains("after"));
    }
}
