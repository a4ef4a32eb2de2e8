//! The async channel crates: tokio's mpsc, async-channel, flume's and kanal's async sides,
//! behind one tiny trait ([`AsyncChan`]), with Souvatzis's message rows and `msg.throughput`'s parties written
//! once as plain futures. The executor is a second tiny trait ([`Executor`]: `block_on` and `spawn`), so the
//! same bodies run on tokio's current-thread runtime (`tokio_rt`) and on any other single-thread
//! executor (smol's `LocalExecutor` with `smol::block_on(executor.run(f))`). The crate is chosen once per point,
//! outside the timed loop ([`with_async_channel`]); every body is monomorphised for it.

use std::cell::Cell;
use std::future::Future;
use std::hint::black_box;
use std::pin::Pin;
use std::rc::Rc;
use std::task::Poll;

use overhead_harness::{empty_loop, Harness, Measurement};
use overhead_runtime_api::channel_impl::ChannelImpl;
use overhead_runtime_api::channel_parties::{producer_index, share, tag, Sink, StreamEnds};
use overhead_runtime_api::channel_throughput::{Capacity, Pattern, StreamShape};
use overhead_runtime_api::offer::not_offered;

/// Sentinel that ends an echo partner or a server.
const STOP: u64 = u64::MAX;

/// A single-thread executor the async bodies run on.
pub trait Executor {
    /// What [`Executor::spawn`] returns: a future that ends when the task has.
    type Join: Future<Output = ()>;
    /// Runs `future` to its end on the calling thread, running the executor's spawned tasks meanwhile.
    fn block_on<F: Future>(&self, future: F) -> F::Output;
    /// Starts `future` as a task of this executor (it runs while [`Executor::block_on`] does).
    fn spawn<F: Future<Output = ()> + Send + 'static>(&self, future: F) -> Self::Join;
    /// The runtime's timed loop for Souvatzis's rows: by default [`measure_on`] (the loop is `block_on`'s own
    /// future, tokio's shape); smol's runs it as a task beside its partners (`smol_rt::measure`).
    fn measure<F, Fut>(&self, h: &Harness, test: F) -> Measurement
    where
        F: Fn(u64) -> Fut,
        Fut: Future<Output = ()> + 'static,
    {
        measure_on(self, h, test)
    }
}

/// tokio's runtime (the current-thread one in Souvatzis's rows); a spawned task's end is awaited through its
/// `JoinHandle` (a panic in it is ignored here: the bodies' partners do not panic).
impl Executor for ::tokio::runtime::Runtime {
    type Join = Pin<Box<dyn Future<Output = ()>>>;
    fn block_on<F: Future>(&self, future: F) -> F::Output {
        ::tokio::runtime::Runtime::block_on(self, future)
    }
    fn spawn<F: Future<Output = ()> + Send + 'static>(&self, future: F) -> Self::Join {
        let handle = ::tokio::runtime::Runtime::spawn(self, future);
        Box::pin(async move {
            let _ = handle.await;
        })
    }
}

/// Measures an async operation on `executor`: every batch is one `block_on` of the future `test(n)` makes;
/// the control is a `block_on` of the empty loop, so entering and leaving the executor per batch cancels (as
/// `tokio_rt::measure`).
pub fn measure_on<E: Executor + ?Sized, F, Fut>(executor: &E, h: &Harness, test: F) -> Measurement
where
    F: Fn(u64) -> Fut,
    Fut: Future<Output = ()>,
{
    h.measure(|n| executor.block_on(test(n)), |n| executor.block_on(async move { empty_loop(n) }))
}

/// One async channel crate, messages `u64`. Every method is the crate's own call; the futures are `Send` so a
/// partner can be a spawned task.
pub trait AsyncChan: 'static {
    /// The sending end (cloned once per producer, outside the timed loop).
    type Tx: Clone + Send + 'static;
    /// The receiving end.
    type Rx: Send + 'static;
    /// A channel of `capacity` (the caller has checked [`ChannelImpl::has_capacity`]).
    fn open(capacity: Capacity) -> (Self::Tx, Self::Rx);
    /// A second receiving end of the same channel, or `None` for a single-consumer queue (tokio's mpsc).
    fn clone_rx(rx: &Self::Rx) -> Option<Self::Rx>;
    /// Sends `message`, waiting while a bounded channel is full; `false` when every receiver is gone.
    fn send(tx: &Self::Tx, message: u64) -> impl Future<Output = bool> + Send + '_;
    /// Receives one message, waiting while the channel is empty; `None` when every sender is gone.
    fn recv(rx: &mut Self::Rx) -> impl Future<Output = Option<u64>> + Send + '_;
}

/// `tokio::sync::mpsc::unbounded_channel` (its send does not wait: a ready future).
pub struct TokioUnbounded;
/// `tokio::sync::mpsc::channel(n ≥ 1)`.
pub struct TokioBounded;
/// `async_channel::bounded(n ≥ 1)` / `unbounded()`.
pub struct AsyncChannel;
/// `flume::bounded(n)` / `unbounded()` with `send_async` / `recv_async`.
pub struct FlumeAsync;
/// `kanal::bounded_async(n)` / `unbounded_async()`.
pub struct KanalAsync;

// The trait's futures are `Send` (a partner may be a spawned task), which `async fn` cannot state.
#[allow(clippy::manual_async_fn)]
impl AsyncChan for TokioUnbounded {
    type Tx = ::tokio::sync::mpsc::UnboundedSender<u64>;
    type Rx = ::tokio::sync::mpsc::UnboundedReceiver<u64>;
    fn open(_: Capacity) -> (Self::Tx, Self::Rx) {
        ::tokio::sync::mpsc::unbounded_channel()
    }
    fn clone_rx(_: &Self::Rx) -> Option<Self::Rx> {
        None
    }
    #[inline]
    fn send(tx: &Self::Tx, message: u64) -> impl Future<Output = bool> + Send + '_ {
        std::future::ready(tx.send(message).is_ok())
    }
    #[inline]
    fn recv(rx: &mut Self::Rx) -> impl Future<Output = Option<u64>> + Send + '_ {
        rx.recv()
    }
}

// The trait's futures are `Send` (a partner may be a spawned task), which `async fn` cannot state.
#[allow(clippy::manual_async_fn)]
impl AsyncChan for TokioBounded {
    type Tx = ::tokio::sync::mpsc::Sender<u64>;
    type Rx = ::tokio::sync::mpsc::Receiver<u64>;
    fn open(capacity: Capacity) -> (Self::Tx, Self::Rx) {
        ::tokio::sync::mpsc::channel(capacity.bound().max(1))
    }
    fn clone_rx(_: &Self::Rx) -> Option<Self::Rx> {
        None
    }
    #[inline]
    fn send(tx: &Self::Tx, message: u64) -> impl Future<Output = bool> + Send + '_ {
        async move { tx.send(message).await.is_ok() }
    }
    #[inline]
    fn recv(rx: &mut Self::Rx) -> impl Future<Output = Option<u64>> + Send + '_ {
        rx.recv()
    }
}

/// The adapter of an async channel crate with cloneable ends: its sender and receiver types, how it opens a
/// bounded and an unbounded channel, and its sending and receiving methods (async-channel's own; flume's async
/// side, `send_async`/`recv_async`; kanal's async types).
macro_rules! cloneable_async_channel {
    (
        $channel:ty,
        $tx:ty,
        $rx:ty,
        bounded: $bounded:expr,
        unbounded: $unbounded:path,
        send: $send:ident,
        recv: $recv:ident
    ) => {
        // The trait's futures are `Send` (a partner may be a spawned task), which `async fn` cannot state.
        #[allow(clippy::manual_async_fn)]
        impl AsyncChan for $channel {
            type Tx = $tx;
            type Rx = $rx;
            fn open(capacity: Capacity) -> (Self::Tx, Self::Rx) {
                match capacity {
                    Capacity::Bounded(n) => $bounded(n),
                    Capacity::Unbounded => $unbounded(),
                }
            }
            fn clone_rx(rx: &Self::Rx) -> Option<Self::Rx> {
                Some(rx.clone())
            }
            #[inline]
            fn send(tx: &Self::Tx, message: u64) -> impl Future<Output = bool> + Send + '_ {
                async move { tx.$send(message).await.is_ok() }
            }
            #[inline]
            fn recv(rx: &mut Self::Rx) -> impl Future<Output = Option<u64>> + Send + '_ {
                async move { rx.$recv().await.ok() }
            }
        }
    };
}

// async-channel has no zero-capacity channel (`ChannelImpl::has_capacity` refuses one before this opens).
cloneable_async_channel!(AsyncChannel, async_channel::Sender<u64>, async_channel::Receiver<u64>,
    bounded: |n: usize| async_channel::bounded(n.max(1)), unbounded: async_channel::unbounded, send: send, recv: recv);
cloneable_async_channel!(FlumeAsync, flume::Sender<u64>, flume::Receiver<u64>,
    bounded: flume::bounded, unbounded: flume::unbounded, send: send_async, recv: recv_async);
cloneable_async_channel!(KanalAsync, kanal::AsyncSender<u64>, kanal::AsyncReceiver<u64>,
    bounded: kanal::bounded_async, unbounded: kanal::unbounded_async, send: send, recv: recv);

/// A body generic over the async channel crate, run by [`with_async_channel`] for the crate a point names.
pub trait AsyncVisit {
    /// What the body returns.
    type Out;
    /// The body, monomorphised for `C`.
    fn visit<C: AsyncChan>(self) -> Self::Out;
}

/// Runs `body` with the channel type of `implementation` at `capacity` (tokio's mpsc is two types, unbounded
/// and bounded). `runtime` names the runtime in the error.
///
/// Errors: `implementation` is not an async channel, or lacks `capacity` (tokio's mpsc and async-channel have
/// no zero-capacity channel).
pub fn with_async_channel<V: AsyncVisit>(
    runtime: &str,
    implementation: ChannelImpl,
    capacity: Capacity,
    body: V,
) -> anyhow::Result<V::Out> {
    implementation.ensure_capacity(capacity)?;
    Ok(match (implementation, capacity) {
        (ChannelImpl::TokioMpsc, Capacity::Unbounded) => body.visit::<TokioUnbounded>(),
        (ChannelImpl::TokioMpsc, Capacity::Bounded(_)) => body.visit::<TokioBounded>(),
        (ChannelImpl::AsyncChannel, _) => body.visit::<AsyncChannel>(),
        (ChannelImpl::FlumeAsync, _) => body.visit::<FlumeAsync>(),
        (ChannelImpl::KanalAsync, _) => body.visit::<KanalAsync>(),
        (other, _) => return Err(not_offered(runtime, "impl", other)),
    })
}

/// Which of Souvatzis's message rows [`message_row`] measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageRow {
    /// `msg.async`: an unbounded channel, send and receive in the timed task.
    Async,
    /// `msg.switch`: two unbounded channels to an echo task and back.
    Echo,
    /// `msg.rendezvous`: two zero-capacity channels to a server task, which answers `q + 1`.
    Server,
}

impl MessageRow {
    /// The capacity of the row's channels: zero for the rendezvous, unbounded for the others.
    pub fn capacity(self) -> Capacity {
        if self == MessageRow::Server {
            Capacity::Bounded(0)
        } else {
            Capacity::Unbounded
        }
    }
}

/// Souvatzis's message row `row` through channel `C` on `executor`: the timed task sends and receives; the
/// partner (echo or server) is a task spawned on the same executor, ended with [`STOP`] after the measurement.
/// The receiving end lives in a `Cell`, taken out for each batch and put back after it (the timed future
/// needs `&mut`; one thread, so no lock).
pub fn message_row<C: AsyncChan, E: Executor>(executor: &E, row: MessageRow, h: &Harness) -> Measurement {
    let capacity = row.capacity();
    // The timed future owns what it uses (the runtime may run it as a task): the ends are shared through `Rc`,
    // cloned once per batch, outside the timed loop.
    let timed = |tx: Rc<C::Tx>, rx: Rc<Cell<Option<C::Rx>>>| {
        move |n: u64| {
            let (tx, rx) = (tx.clone(), rx.clone());
            async move {
                let mut end = rx.take().expect("one batch at a time");
                for i in 0..n {
                    C::send(&tx, i).await;
                    black_box(C::recv(&mut end).await);
                }
                rx.set(Some(end));
            }
        }
    };
    if row == MessageRow::Async {
        let (tx, rx) = C::open(capacity);
        return executor.measure(h, timed(Rc::new(tx), Rc::new(Cell::new(Some(rx)))));
    }
    let (to_partner, mut partner_rx) = C::open(capacity);
    let (partner_tx, from_partner) = C::open(capacity);
    let answer = u64::from(row == MessageRow::Server);
    let partner = executor.spawn(async move {
        while let Some(v) = C::recv(&mut partner_rx).await {
            if v == STOP || !C::send(&partner_tx, v + answer).await {
                break;
            }
        }
    });
    let to_partner = Rc::new(to_partner);
    let m = executor.measure(h, timed(to_partner.clone(), Rc::new(Cell::new(Some(from_partner)))));
    executor.block_on(async {
        C::send(&to_partner, STOP).await;
        partner.await;
    });
    m
}

/// One of Souvatzis's message rows (`row`) through `implementation` on `executor`: an unbounded channel for
/// `msg.async` and `msg.switch`, a zero-capacity one for `msg.rendezvous` (`MessageRow::Server`). What every
/// async runtime measures alike (`async_runtime!`).
///
/// Errors: `implementation` is not an async channel crate, or has no channel of that capacity.
pub fn row_on<E: Executor>(
    runtime: &str,
    implementation: ChannelImpl,
    row: MessageRow,
    executor: &E,
    h: &Harness,
) -> anyhow::Result<Measurement> {
    let capacity = row.capacity();
    with_async_channel(runtime, implementation, capacity, Row { executor, row, h })
}

/// [`message_row`] as an [`AsyncVisit`], for [`with_async_channel`].
pub struct Row<'a, E> {
    /// The executor the row runs on.
    pub executor: &'a E,
    /// Which row.
    pub row: MessageRow,
    /// The harness.
    pub h: &'a Harness,
}

impl<E: Executor> AsyncVisit for Row<'_, E> {
    type Out = Measurement;
    fn visit<C: AsyncChan>(self) -> Measurement {
        message_row::<C, E>(self.executor, self.row, self.h)
    }
}

/// Most parties of one stream: [`Pattern::PRODUCERS`] producers and as many consumers (`mpmc`).
const MAX_PARTIES: usize = 2 * Pattern::PRODUCERS;

/// The ends of one `msg.throughput` stream through async channel `C`: one sending end per producer and one
/// receiving end per consumer (`seq`: one of each), each in its party's slot. Parties are futures; a group of
/// them (all of a stream on one CPU, or its producers or its consumers) is joined into one future that one
/// thread's executor runs ([`Stream::group`]).
pub struct Stream<C: AsyncChan>(StreamEnds<C::Tx, C::Rx>);

impl<C: AsyncChan> Stream<C> {
    /// Opens the channel of `shape` and hands out its ends.
    ///
    /// Errors: `mpmc` through a single-consumer queue.
    pub fn open(shape: StreamShape) -> anyhow::Result<Stream<C>> {
        StreamEnds::open(shape, C::open, C::clone_rx).map(Stream)
    }

    /// Party `index`'s part of a batch of `n` messages, as the blocking one (`os/channels.rs`): a producer
    /// sends its [`share`] tagged with its index and sequence number, a consumer receives its share into
    /// `sink`, `seq` sends a chunk and receives it back until `n` have passed.
    ///
    /// # Safety
    /// No other live future or thread uses party `index` (each party index is in one group, run by one
    /// thread).
    pub async unsafe fn party<S: Sink>(&self, index: usize, n: u64, mut sink: S) {
        let (producers, consumers) = self.0.pattern.parties();
        if self.0.pattern == Pattern::Seq {
            // SAFETY: slot 0 of each is this one party's, by the caller's promise.
            let (tx, rx) = unsafe { (self.0.tx.get(0), self.0.rx.get(0)) };
            let mut sent = 0;
            while sent < n {
                let k = self.0.chunk.min(n - sent);
                for s in sent..sent + k {
                    C::send(tx, tag(0, s)).await;
                }
                for _ in 0..k {
                    sink.take(C::recv(rx).await.expect("the stream's sender is alive"));
                }
                sent += k;
            }
        } else if let Some(p) = producer_index(self.0.pattern, index) {
            // SAFETY: slot `p` is party `index`'s own, by the caller's promise.
            let tx = unsafe { self.0.tx.get(p) };
            for s in 0..share(n, producers, p) {
                C::send(tx, tag(p, s)).await;
            }
        } else {
            let c = index - producers;
            // SAFETY: as above.
            let rx = unsafe { self.0.rx.get(c) };
            for _ in 0..share(n, consumers, c) {
                sink.take(C::recv(rx).await.expect("the stream's senders are alive"));
            }
        }
    }

    /// Parties `first..first + count` of a batch of `n`, joined into one future with no allocation (an array
    /// of the parties' futures pinned in place; a wake-up polls every unfinished one, as `futures`' `join_all`
    /// does for a few futures). `sink(index)` makes each party's sink.
    ///
    /// # Safety
    /// As [`Stream::party`], for every party of the group. Panics if `count` > [`MAX_PARTIES`].
    pub async unsafe fn group<S: Sink>(&self, first: usize, count: usize, n: u64, sink: impl Fn(usize) -> S) {
        assert!(count <= MAX_PARTIES, "a stream has at most {MAX_PARTIES} parties");
        // SAFETY: the parties of this group are this call's alone, by the caller's promise.
        let futures: [Option<_>; MAX_PARTIES] =
            std::array::from_fn(|k| (k < count).then(|| unsafe { self.party(first + k, n, sink(first + k)) }));
        let mut futures = std::pin::pin!(futures);
        std::future::poll_fn(|cx| {
            let mut pending = false;
            for k in 0..count {
                // SAFETY: structural pinning of the array's elements: none is moved out; a finished one is
                // dropped in place by `Pin::set`.
                let mut slot = unsafe { futures.as_mut().map_unchecked_mut(|a| &mut a[k]) };
                if let Some(party) = slot.as_mut().as_pin_mut() {
                    if party.poll(cx).is_ready() {
                        slot.set(None);
                    } else {
                        pending = true;
                    }
                }
            }
            if pending {
                Poll::Pending
            } else {
                Poll::Ready(())
            }
        })
        .await
    }
}

/// How the parties of a stream with `pattern` on `cpus` (one per party, producers first; `seq`: one) are
/// grouped onto executors: `(first party, parties, CPU)` per group. Every party on one CPU: one group, all on
/// one executor (the async idiom: tasks of one thread); producers and consumers on different CPUs: two
/// groups, each on its own thread's executor, the channel between them.
///
/// Errors: `cpus` does not have one CPU per party, or the producers (or consumers) are not on one CPU.
pub fn groups(pattern: Pattern, cpus: &[usize]) -> anyhow::Result<Vec<(usize, usize, usize)>> {
    let (producers, consumers) = pattern.parties();
    let parties = if pattern == Pattern::Seq { 1 } else { producers + consumers };
    anyhow::ensure!(cpus.len() == parties, "{pattern:?} needs one CPU per party ({parties}), got {}", cpus.len());
    let (p, c) = cpus.split_at(producers);
    anyhow::ensure!(
        p.iter().all(|&x| x == p[0]) && c.iter().all(|&x| x == c[0]),
        "an async stream runs its producers on one CPU and its consumers on one CPU"
    );
    Ok(if c.is_empty() || c[0] == p[0] {
        vec![(0, parties, p[0])]
    } else {
        vec![(0, producers, p[0]), (producers, consumers, c[0])]
    })
}

/// One thread's way of running a future to its end: what each group of a `msg.throughput` stream needs of a
/// runtime (tokio: a current-thread runtime per group; smol: `smol::block_on`, which drives async-io's reactor
/// while the future waits).
pub trait BlockOn: Sync {
    /// Runs `future` to its end on the calling thread.
    fn block_on<F: Future>(&self, future: F) -> F::Output;
}

impl BlockOn for ::tokio::runtime::Runtime {
    fn block_on<F: Future>(&self, future: F) -> F::Output {
        ::tokio::runtime::Runtime::block_on(self, future)
    }
}

/// `msg.throughput` for runtime `name` through `implementation`, which it must offer (`offered`), its parties
/// pinned: one executor made by `executor` per group of parties ([`Throughput`]). What every async runtime's
/// `ChannelThroughput` does, each with its own executor.
///
/// Errors: the implementation is not offered, a party is not pinned, or the stream cannot run.
pub fn measure_throughput<B: BlockOn>(
    name: &'static str,
    offered: overhead_runtime_api::Offer<&[ChannelImpl]>,
    implementation: ChannelImpl,
    shape: StreamShape,
    parties: overhead_runtime_api::channel_throughput::TeamSeats<'_>,
    h: &Harness,
    executor: fn() -> std::io::Result<B>,
) -> anyhow::Result<overhead_record::Outcome> {
    overhead_runtime_api::offer::ensure_offered(name, "impl", offered, implementation)?;
    let cpus = overhead_runtime_api::channel_throughput::pinned_only(name, parties)?;
    with_async_channel(name, implementation, shape.capacity, Throughput { shape, cpus, h, executor })?
}

/// `msg.throughput` through async channel crate `C`, one executor per group of parties ([`groups`]), each
/// made by `executor` before the team starts.
pub struct Throughput<'a, B> {
    /// The stream's pattern and capacity.
    pub shape: StreamShape,
    /// One CPU per party (producers first; `seq`: one).
    pub cpus: &'a [usize],
    /// The harness.
    pub h: &'a Harness,
    /// Makes one group's executor.
    pub executor: fn() -> std::io::Result<B>,
}

impl<B: BlockOn> AsyncVisit for Throughput<'_, B> {
    type Out = anyhow::Result<overhead_record::Outcome>;
    /// Every party on one CPU: one executor on one pinned thread runs them all as futures of one `block_on`
    /// (joined without spawning, so the timed region allocates nothing of its own); producers and consumers on
    /// different CPUs: two executors on two pinned threads of a harness team, the channel between them. A batch
    /// is one `block_on` per group; the slowest group's time over the batch's messages is the sample, against a
    /// `block_on` of the empty loop.
    fn visit<C: AsyncChan>(self) -> anyhow::Result<overhead_record::Outcome> {
        let groups = groups(self.shape.pattern, self.cpus)?;
        let stream = Stream::<C>::open(self.shape)?;
        let executors = groups.iter().map(|_| (self.executor)()).collect::<std::io::Result<Vec<_>>>()?;
        let team_cpus: Vec<usize> = groups.iter().map(|g| g.2).collect();
        let report = self.h.measure_team(
            &team_cpus,
            |g, n| {
                let (first, count, _) = groups[g];
                // SAFETY: the groups are disjoint and team thread `g` alone runs group `g`.
                executors[g].block_on(unsafe {
                    stream.group(first, count, n, |_| overhead_runtime_api::channel_parties::Discard)
                })
            },
            |g, n| executors[g].block_on(async move { empty_loop(n) }),
        );
        Ok(report.into())
    }
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use overhead_runtime_api::channel_parties::check_delivery;
    use std::sync::Mutex;

    /// A delivery test's sink for a party of a joined group: its messages go to its own log.
    struct Log<'a>(&'a Mutex<Vec<u64>>);

    impl Sink for Log<'_> {
        fn take(&mut self, message: u64) {
            self.0.lock().unwrap().push(message);
        }
    }

    /// Runs a batch of `n` through `stream` in `groups` (one thread and one current-thread tokio runtime per
    /// group, as `msg.throughput` does) and returns each consumer's log (`seq`: its one party's).
    fn run_batch<C: AsyncChan>(
        stream: &Stream<C>,
        pattern: Pattern,
        groups: &[(usize, usize)],
        n: u64,
    ) -> Vec<Vec<u64>> {
        let parties: usize = groups.iter().map(|g| g.1).sum();
        let logs: Vec<Mutex<Vec<u64>>> = (0..parties).map(|_| Mutex::new(Vec::new())).collect();
        std::thread::scope(|s| {
            for &(first, count) in groups {
                let logs = &logs;
                s.spawn(move || {
                    let rt = crate::tokio_rt::current_thread().unwrap();
                    // SAFETY: the groups are disjoint, each run by its own thread.
                    rt.block_on(unsafe { stream.group(first, count, n, |i| Log(&logs[i])) });
                });
            }
        });
        let mut logs: Vec<Vec<u64>> = logs.into_iter().map(|m| m.into_inner().unwrap()).collect();
        if pattern == Pattern::Seq {
            logs
        } else {
            logs.split_off(pattern.parties().0)
        }
    }

    /// The delivery check of one implementation, through [`with_async_channel`] as the measurement goes.
    struct Deliver {
        shape: StreamShape,
        split: bool,
    }

    impl AsyncVisit for Deliver {
        type Out = Result<(), String>;
        fn visit<C: AsyncChan>(self) -> Result<(), String> {
            let stream = Stream::<C>::open(self.shape).map_err(|e| e.to_string())?;
            let pattern = self.shape.pattern;
            let (producers, consumers) = pattern.parties();
            let cpus: Vec<usize> = if pattern == Pattern::Seq {
                vec![0]
            } else {
                (0..producers + consumers).map(|i| usize::from(self.split && i >= producers)).collect()
            };
            let groups: Vec<(usize, usize)> =
                super::groups(pattern, &cpus).map_err(|e| e.to_string())?.iter().map(|g| (g.0, g.1)).collect();
            for n in [1u64, 7, 1000, 3000] {
                let logs = run_batch(&stream, pattern, &groups, n);
                check_delivery(&logs, producers, n).map_err(|e| format!("{:?} n={n}: {e}", self.shape))?;
            }
            Ok(())
        }
    }

    /// Every async channel delivers every message exactly once and in order per producer,
    /// in every pattern and capacity it has, all parties on one executor and producers and consumers on two,
    /// through the measurement's own party futures.
    #[test]
    fn every_async_channel_delivers_each_message_once_in_order() {
        let capacities = [Capacity::Bounded(0), Capacity::Bounded(1), Capacity::Bounded(1024), Capacity::Unbounded];
        for implementation in
            [ChannelImpl::TokioMpsc, ChannelImpl::AsyncChannel, ChannelImpl::FlumeAsync, ChannelImpl::KanalAsync]
        {
            for pattern in [Pattern::Seq, Pattern::Spsc, Pattern::Mpsc, Pattern::Mpmc] {
                for capacity in capacities {
                    let seq_rendezvous = pattern == Pattern::Seq && capacity == Capacity::Bounded(0);
                    if !implementation.has_pattern(pattern) || !implementation.has_capacity(capacity) || seq_rendezvous
                    {
                        continue;
                    }
                    for split in [false, true] {
                        let shape = StreamShape { pattern, capacity };
                        with_async_channel("test", implementation, capacity, Deliver { shape, split })
                            .unwrap()
                            .unwrap_or_else(|e| panic!("{implementation} split={split}: {e}"));
                    }
                }
            }
        }
    }

    /// Souvatzis's three rows through every async channel that has them on `executor` (the partner a spawned
    /// task); they end (the partner stops).
    fn message_rows_run_through_every_async_channel_on<E: Executor>(executor: &E) {
        let h = overhead_harness::testing::quick_harness();
        for implementation in
            [ChannelImpl::TokioMpsc, ChannelImpl::AsyncChannel, ChannelImpl::FlumeAsync, ChannelImpl::KanalAsync]
        {
            for row in [MessageRow::Async, MessageRow::Echo, MessageRow::Server] {
                let capacity = row.capacity();
                let m = with_async_channel("test", implementation, capacity, Row { executor, row, h: &h });
                match m {
                    Ok(m) => assert!(!m.samples_ns.is_empty(), "{implementation} {row:?}"),
                    Err(e) => assert!(row == MessageRow::Server && !implementation.has_capacity(capacity), "{e}"),
                }
            }
        }
    }

    /// On tokio's current-thread runtime (the timed loop `block_on`'s future) and smol's `LocalExecutor` (the
    /// timed loop a task beside the partner).
    #[test]
    fn message_rows_run_through_every_async_channel() {
        message_rows_run_through_every_async_channel_on(&crate::tokio_rt::current_thread().unwrap());
        use crate::local_runtime::LocalRuntime as _;
        message_rows_run_through_every_async_channel_on(&crate::smol_rt::SmolLocal::start().unwrap());
    }
}
