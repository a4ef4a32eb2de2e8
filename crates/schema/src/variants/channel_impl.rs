//! The channel implementations a message point is named after (its `impl:` key; docs/METHOD.md
//! "Choosing an implementation"): the crates a Rust programmer chooses between, each runtime's own channel, and the
//! constructs of the external probes and of MPI. Which of them a runtime offers for which experiment is its
//! data (`overhead_runtime_api::Offers`: `channel`, `message_switch`, `rendezvous`, `channel_throughput`); the first one
//! a runtime lists for a row is its own idiom, the one Souvatzis's table shows.

use super::channel_shape::Capacity;

/// One channel implementation. Serialises to the `impl:` value (snake case), which is public: point names
/// and users' scripts hold it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChannelImpl {
    /// `std::sync::mpsc`: `channel` (unbounded), `sync_channel(n)` (bounded; 0 is a rendezvous).
    StdMpsc,
    /// `crossbeam-channel`: `unbounded`, `bounded(n)` (0 is zero-capacity: a handoff).
    Crossbeam,
    /// `flume`'s blocking API: `unbounded`, `bounded(n)` (0 is zero-capacity: a handoff).
    Flume,
    /// `kanal`'s blocking API: `unbounded`, `bounded(n)` (0 is zero-capacity: a handoff).
    Kanal,
    /// `tokio::sync::mpsc` (`unbounded_channel`, `channel(n ≥ 1)`), with a `oneshot` reply for rendezvous.
    TokioMpsc,
    /// `async-channel` (`unbounded`, `bounded(n ≥ 1)`): smol's channel, and usable on any executor.
    AsyncChannel,
    /// `flume`'s async API (`send_async`, `recv_async`) on the runtime's executor.
    FlumeAsync,
    /// `kanal`'s async API (`unbounded_async`, `bounded_async(n)`) on the runtime's executor.
    KanalAsync,
    /// A fiber runtime's own channel and rendezvous (`runtime-fibers/src/sync.rs`).
    Fiber,
    /// Go's `chan` (buffered or not; Go has no unbounded channel).
    Chan,
    /// Java's `java.util.concurrent.LinkedTransferQueue`.
    LinkedTransferQueue,
    /// Java's `java.util.concurrent.SynchronousQueue` (capacity 0: every put waits for a take).
    SynchronousQueue,
    /// Java's `java.util.concurrent.ArrayBlockingQueue` (bounded, capacity ≥ 1).
    ArrayBlockingQueue,
    /// Java's `java.util.concurrent.LinkedBlockingQueue` (optionally bounded).
    LinkedBlockingQueue,
    /// MPI point-to-point messages between ranks (`runtime-external/src/mpi`).
    Mpi,
}

impl ChannelImpl {
    /// The `impl:` value, as in point names.
    pub fn as_str(self) -> &'static str {
        match self {
            ChannelImpl::StdMpsc => "std_mpsc",
            ChannelImpl::Crossbeam => "crossbeam",
            ChannelImpl::Flume => "flume",
            ChannelImpl::Kanal => "kanal",
            ChannelImpl::TokioMpsc => "tokio_mpsc",
            ChannelImpl::AsyncChannel => "async_channel",
            ChannelImpl::FlumeAsync => "flume_async",
            ChannelImpl::KanalAsync => "kanal_async",
            ChannelImpl::Fiber => "fiber",
            ChannelImpl::Chan => "chan",
            ChannelImpl::LinkedTransferQueue => "linked_transfer_queue",
            ChannelImpl::SynchronousQueue => "synchronous_queue",
            ChannelImpl::ArrayBlockingQueue => "array_blocking_queue",
            ChannelImpl::LinkedBlockingQueue => "linked_blocking_queue",
            ChannelImpl::Mpi => "mpi",
        }
    }

    /// How a blocked party of this implementation waits, where that explains what a rendezvous costs and why
    /// it reads so differently from its peers and between machines (docs/METHOD.md "Channel throughput"), and,
    /// for the async channels, why their streams between cores cost ten times a blocking crate's ([`Self::is_async`]);
    /// `None` for the others. Read from the crates' sources at the versions this build locks.
    pub fn wait_strategy(self) -> Option<&'static str> {
        match self {
            ChannelImpl::Kanal => Some(
                "kanal waits by polling: a blocked party calls sched_yield() up to 256 times before it parks \
                 (kanal 0.1's `Signal::wait`), so a partner on another CPU is usually met while polling, with no \
                 futex wake-up (strace on a 2-vCPU KVM guest: about 10–25 sched_yield and no futex per message); \
                 but with another runnable task on the waiting party's CPU each sched_yield hands that CPU over for \
                 up to a time slice: under a busy loop on the consumer's CPU a rendezvous read 1.6 ms a message there \
                 (5000× its quiet 0.32 µs) and a stream at capacity 1024 3.9 µs (229×), where the crates that park \
                 on a futex read 1.4–2.6×; a kanal rendezvous of milliseconds means a busy CPU",
            ),
            ChannelImpl::TokioMpsc | ChannelImpl::AsyncChannel | ChannelImpl::FlumeAsync | ChannelImpl::KanalAsync => {
                Some(
                    "an async party that cannot go on (an empty queue, a full one, a rendezvous) leaves a waker and \
                     returns Pending; with nothing else to run, its executor's thread parks (tokio's current-thread \
                     runtime, smol's block_on), so between two cores every time a queue drains or fills the other \
                     side pays a cross-CPU wake-up (tens of µs on a KVM guest): what makes these streams 10–15× a \
                     blocking crate's, whose waiting thread spins before it parks",
                )
            }
            ChannelImpl::Crossbeam | ChannelImpl::StdMpsc | ChannelImpl::Flume => Some(
                "a blocked party spins briefly, then parks on a futex: a rendezvous across CPUs pays a wake-up \
                 (tens of µs on a KVM guest), one on a shared CPU a context switch",
            ),
            _ => None,
        }
    }

    /// Whether this is an async channel, whose parties are futures on an executor.
    pub fn is_async(self) -> bool {
        matches!(
            self,
            ChannelImpl::TokioMpsc | ChannelImpl::AsyncChannel | ChannelImpl::FlumeAsync | ChannelImpl::KanalAsync
        )
    }

    /// How this implementation's queue is built, where that explains why its stream of messages costs ten
    /// times its peers' between two cores (docs/METHOD.md §9); `None` for the others. Read from the crate's
    /// source at the version this build locks.
    pub fn queue_design(self) -> Option<&'static str> {
        match self {
            ChannelImpl::Flume | ChannelImpl::FlumeAsync => Some(
                "flume 0.12 (without its `spin` feature) keeps its queue and its waiting parties in VecDeques \
                 behind one std::sync::Mutex: every send and every receive takes that lock, so between two \
                 cores each message moves the lock's cache line and both ends of the queue back and forth, \
                 where crossbeam-channel and std's mpsc (a port of it) send through a lock-free array or list",
            ),
            _ => None,
        }
    }

    /// Whether `msg.throughput` also runs this implementation's parties as free threads (`placement:free`):
    /// the blocking crates on kernel threads, which crossbeam-channel's suite (and most users) run unpinned.
    /// Executors and external probes pin their threads, or leave placing them to their runtime.
    pub fn runs_free(self) -> bool {
        matches!(self, ChannelImpl::StdMpsc | ChannelImpl::Crossbeam | ChannelImpl::Flume | ChannelImpl::Kanal)
    }

    /// Whether this implementation has a channel of `capacity` (`msg.throughput` plans only those): a
    /// zero-capacity (rendezvous) channel where the library has one (not tokio's mpsc or async-channel, whose
    /// bounded(0) panics), a bounded one of any size ≥ 1 where it has bounds, and an unbounded one where it
    /// has that (not Go's chan, Java's ArrayBlockingQueue or SynchronousQueue). MPI and the fibers' own
    /// channel stream nothing here: `false`.
    pub fn has_capacity(self, capacity: Capacity) -> bool {
        use ChannelImpl as C;
        match (self, capacity) {
            (C::StdMpsc | C::Crossbeam | C::Flume | C::Kanal | C::FlumeAsync | C::KanalAsync, _) => true,
            (C::TokioMpsc | C::AsyncChannel, Capacity::Bounded(n)) => n >= 1,
            (C::TokioMpsc | C::AsyncChannel, Capacity::Unbounded) => true,
            (C::Chan, Capacity::Bounded(_)) => true,
            (C::Chan, Capacity::Unbounded) => false,
            (C::SynchronousQueue, c) => c == Capacity::Bounded(0),
            (C::ArrayBlockingQueue, Capacity::Bounded(n)) => n >= 1,
            (C::ArrayBlockingQueue, Capacity::Unbounded) => false,
            (C::LinkedBlockingQueue, Capacity::Bounded(n)) => n >= 1,
            (C::LinkedBlockingQueue, Capacity::Unbounded) => true,
            (C::LinkedTransferQueue, c) => c == Capacity::Unbounded,
            (C::Fiber | C::Mpi, _) => false,
        }
    }

    /// [`ChannelImpl::has_capacity`] as an error that names the channel and the capacity, for the code that
    /// opens a channel of a point's `capacity:`.
    ///
    /// Errors: the channel has no form of that capacity.
    pub fn ensure_capacity(self, capacity: Capacity) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.has_capacity(capacity),
            "{self} has no channel of capacity {}",
            serde_json::to_value(capacity).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
        );
        Ok(())
    }

    /// Whether this implementation has `pattern`'s consumers: every one but the single-consumer queues
    /// (`std::sync::mpsc` and tokio's mpsc, whose receiver cannot be shared or cloned), which have no `mpmc`.
    pub fn has_pattern(self, pattern: super::channel_shape::Pattern) -> bool {
        let single_consumer = matches!(self, ChannelImpl::StdMpsc | ChannelImpl::TokioMpsc);
        !(single_consumer && pattern == super::channel_shape::Pattern::Mpmc)
    }

    /// The crate whose version the record names for this implementation ([`overhead_record`]'s crate
    /// versions, read from Cargo.lock at build time), or `None` for std, a runtime's own channel and the
    /// external constructs.
    pub fn crate_name(self) -> Option<&'static str> {
        match self {
            ChannelImpl::Crossbeam => Some("crossbeam-channel"),
            ChannelImpl::Flume | ChannelImpl::FlumeAsync => Some("flume"),
            ChannelImpl::Kanal | ChannelImpl::KanalAsync => Some("kanal"),
            ChannelImpl::TokioMpsc => Some("tokio"),
            ChannelImpl::AsyncChannel => Some("async-channel"),
            _ => None,
        }
    }
}

impl std::fmt::Display for ChannelImpl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::ChannelImpl;

    /// The `impl:` value in point names is the serde name: the two never disagree.
    #[test]
    fn as_str_is_the_serialised_name() {
        use ChannelImpl::*;
        for c in [
            StdMpsc,
            Crossbeam,
            Flume,
            Kanal,
            TokioMpsc,
            AsyncChannel,
            FlumeAsync,
            KanalAsync,
            Fiber,
            Chan,
            LinkedTransferQueue,
            SynchronousQueue,
            ArrayBlockingQueue,
            LinkedBlockingQueue,
            Mpi,
        ] {
            assert_eq!(serde_json::to_value(c).unwrap(), c.as_str());
        }
    }

    /// Zero-capacity channels only where the library has them, unbounded ones only where it has those.
    #[test]
    fn capacities_follow_the_libraries() {
        use super::Capacity::{Bounded, Unbounded};
        use ChannelImpl::*;
        assert!(Crossbeam.has_capacity(Bounded(0)) && Crossbeam.has_capacity(Unbounded));
        assert!(!TokioMpsc.has_capacity(Bounded(0)) && TokioMpsc.has_capacity(Bounded(1)));
        assert!(!AsyncChannel.has_capacity(Bounded(0)) && AsyncChannel.has_capacity(Unbounded));
        assert!(Chan.has_capacity(Bounded(0)) && !Chan.has_capacity(Unbounded));
        assert!(SynchronousQueue.has_capacity(Bounded(0)) && !SynchronousQueue.has_capacity(Bounded(1)));
        assert!(!ArrayBlockingQueue.has_capacity(Unbounded) && ArrayBlockingQueue.has_capacity(Bounded(1024)));
        assert!(LinkedTransferQueue.has_capacity(Unbounded) && !LinkedTransferQueue.has_capacity(Bounded(1)));
        assert!(!Mpi.has_capacity(Unbounded));
    }

    #[test]
    fn the_blocking_crates_say_how_they_wait_and_the_others_do_not() {
        assert!(ChannelImpl::Kanal.wait_strategy().is_some_and(|w| w.contains("256") && w.contains("sched_yield")));
        assert!(ChannelImpl::Crossbeam.wait_strategy().is_some_and(|w| w.contains("futex")));
        assert!(ChannelImpl::TokioMpsc.wait_strategy().is_some_and(|w| w.contains("waker") && w.contains("parks")));
        assert!(ChannelImpl::AsyncChannel.is_async() && !ChannelImpl::Crossbeam.is_async());
        assert_eq!(ChannelImpl::Chan.wait_strategy(), None);
    }

    /// Only flume, whose lock explains its other-core streams, describes its queue; the suite's crates run free.
    #[test]
    fn flume_says_why_its_streams_cost_more_and_the_suite_crates_run_free() {
        assert!(ChannelImpl::Flume.queue_design().is_some_and(|d| d.contains("Mutex")));
        assert_eq!(ChannelImpl::Crossbeam.queue_design(), None);
        let free: Vec<ChannelImpl> =
            [ChannelImpl::StdMpsc, ChannelImpl::Crossbeam, ChannelImpl::Flume, ChannelImpl::Kanal]
                .into_iter()
                .filter(|c| c.runs_free())
                .collect();
        assert_eq!(free.len(), 4);
        assert!(!ChannelImpl::TokioMpsc.runs_free() && !ChannelImpl::Chan.runs_free());
    }
}
