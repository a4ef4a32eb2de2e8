//! The `monoio` runtime: ByteDance's thread-per-core async runtime on io_uring, the io_uring runtime beside
//! tokio and smol (docs/ARCHITECTURE.md "Runtimes under test"). Chosen over compio because it builds with the
//! workspace's Rust 1.85 (compio's crates need 1.88), has a pure io_uring driver to ask for (so a machine
//! without io_uring skips it instead of measuring its epoll fallback), and is the io_uring runtime most
//! measured in public (its own benchmarks against tokio and glommio).
//!
//! Souvatzis's table runs on one monoio runtime on the calling thread, as tokio's current-thread runtime and
//! smol's `LocalExecutor` do (`crate::local_runtime`): spawn + join, yield, call, semaphore and the message
//! rows over the async channel crates. `msg.throughput` runs one monoio runtime per group of parties, each on
//! its own pinned thread (`streams.rs`), so its producers wake consumers on another core's runtime. Monoio has no work-stealing pool, so Ben-Asher & Feitelson's constructs,
//! which spread tasks over a pool of threads, are not offered; nor is a semaphore of its own (tokio's
//! runtime-agnostic one stands in, and the notes say so).

mod local;
mod sockets;
mod streams;

pub use local::MonoioLocal;

use std::sync::OnceLock;

use overhead_runtime_api::channel_impl::ChannelImpl;
use overhead_runtime_api::{Offer, Offers};

/// monoio as a runtime under test: one io_uring-driven runtime on the calling thread.
pub struct Monoio;

/// monoio's channels: it has none of its own that cross tasks of one thread and none across threads, so the
/// runtime-agnostic async crates (async-channel, flume's and kanal's async sides). Rendezvous: the two with a
/// zero-capacity channel.
const CHANNELS: &[ChannelImpl] = &[ChannelImpl::AsyncChannel, ChannelImpl::FlumeAsync, ChannelImpl::KanalAsync];
const RENDEZVOUS: &[ChannelImpl] = &[ChannelImpl::FlumeAsync, ChannelImpl::KanalAsync];

/// Why a pool construct is not offered.
const NO_POOL: &str = "monoio is thread-per-core: no pool that spreads tasks over threads";

/// Why the csloop (a yield that runs one other task and comes back) is not offered. Measured: with a partner
/// that yields in a loop, the timed task never ran again (`tests::a_task_that_wakes_itself_runs_again_first`).
const NO_YIELD: &str = "monoio 0.2.4 has no yield: a task that wakes itself while it runs is put at the front of \
                        the run queue (its scheduler's yield_now hook) and runs again before any other, so a \
                        partner never gets a turn";

/// What monoio offers where io_uring works: an async runtime's offers (`crate::async_runtime::offers`: Souvatzis's
/// primitives and message rows on one thread, its own sockets) without the csloop and the pool's constructs.
const OFFERS: Offers = Offers {
    raw_switch: Offer::Lacks(NO_YIELD),
    yield_round: Offer::Lacks(NO_POOL),
    wake_all: Offer::Lacks(NO_POOL),
    fork_join: Offer::Lacks(NO_POOL),
    activity_barrier: Offer::Lacks(NO_POOL),
    ..crate::async_runtime::offers(CHANNELS, RENDEZVOUS)
};

/// Why monoio cannot run here (its io_uring driver would not start), found once; `None` where it can.
pub fn unavailable() -> Option<&'static str> {
    static WHY: OnceLock<Option<&'static str>> = OnceLock::new();
    *WHY.get_or_init(|| {
        let started = std::thread::spawn(|| local::runtime().map(drop)).join();
        match started {
            Ok(Ok(())) => None,
            Ok(Err(e)) => {
                Some(Box::leak(format!("monoio's io_uring driver would not start here: {e}").into_boxed_str()))
            }
            Err(_) => Some("monoio's io_uring driver panicked while starting"),
        }
    })
}

/// What this machine lets monoio offer: [`OFFERS`], or nothing, each with the reason io_uring is missing.
fn offers_here() -> &'static Offers {
    static HERE: OnceLock<Offers> = OnceLock::new();
    HERE.get_or_init(|| unavailable().map_or(OFFERS, Offers::lacking))
}

crate::local_runtime::local_primitives!(Monoio, MonoioLocal);

impl overhead_runtime_api::RuntimeUnderTest for Monoio {
    fn name(&self) -> &'static str {
        "monoio"
    }
    fn about(&self) -> &'static str {
        "monoio: ByteDance's thread-per-core runtime on io_uring (IoUringDriver), one runtime on the calling thread \
         for Souvatzis's SR table; channels from the runtime-agnostic async crates"
    }
    overhead_runtime_api::capabilities!(context, primitives, messages, channel_throughput, ipc);
    fn offers(&self) -> &Offers {
        offers_here()
    }
}

impl overhead_runtime_api::primitives::Messages for Monoio {
    /// An unbounded channel of `implementation`, sender and receiver in the same task (`async_channels`).
    fn async_message(
        &self,
        implementation: ChannelImpl,
        h: &overhead_harness::Harness,
    ) -> anyhow::Result<overhead_harness::Measurement> {
        overhead_runtime_api::offer::ensure_offered("monoio", "impl", offers_here().channel, implementation)?;
        let rows_on = <MonoioLocal as crate::local_runtime::LocalRuntime>::start()?;
        crate::async_channels::row_on("monoio", implementation, crate::async_channels::MessageRow::Async, &rows_on, h)
    }
    /// Two unbounded channels of `implementation` to and from an echo task.
    fn message_round_trip(
        &self,
        implementation: ChannelImpl,
        _partner_cpu: usize,
        h: &overhead_harness::Harness,
    ) -> anyhow::Result<overhead_harness::Measurement> {
        overhead_runtime_api::offer::ensure_offered("monoio", "impl", offers_here().message_switch, implementation)?;
        let rows_on = <MonoioLocal as crate::local_runtime::LocalRuntime>::start()?;
        crate::async_channels::row_on("monoio", implementation, crate::async_channels::MessageRow::Echo, &rows_on, h)
    }
    /// Two zero-capacity channels to a server task.
    fn rendezvous(
        &self,
        implementation: ChannelImpl,
        _partner_cpu: usize,
        h: &overhead_harness::Harness,
    ) -> anyhow::Result<overhead_harness::Measurement> {
        overhead_runtime_api::offer::ensure_offered("monoio", "impl", offers_here().rendezvous, implementation)?;
        let rows_on = <MonoioLocal as crate::local_runtime::LocalRuntime>::start()?;
        crate::async_channels::row_on("monoio", implementation, crate::async_channels::MessageRow::Server, &rows_on, h)
    }
}

impl overhead_runtime_api::channel_throughput::ChannelThroughput for Monoio {
    /// [`Throughput`](crate::async_channels::Throughput): the parties as futures, one monoio runtime per group
    /// of parties on its own pinned thread ([`streams::ThreadRuntime`]).
    fn throughput(
        &self,
        implementation: ChannelImpl,
        shape: overhead_runtime_api::channel_throughput::StreamShape,
        parties: overhead_runtime_api::channel_throughput::TeamSeats<'_>,
        h: &overhead_harness::Harness,
    ) -> anyhow::Result<overhead_record::Outcome> {
        let offered = offers_here().channel_throughput;
        let executor = streams::ThreadRuntime::new;
        crate::async_channels::measure_throughput("monoio", offered, implementation, shape, parties, h, executor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_harness::testing::quick_harness;
    use overhead_runtime_api::primitives::{Context as _, Messages as _, NewTask, Primitives as _, SemOp};
    use overhead_runtime_api::RuntimeUnderTest as _;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    /// Every primitive monoio offers measures on a tiny harness where io_uring works; where it does not,
    /// monoio offers nothing and says why.
    #[test]
    fn every_offered_primitive_measures() {
        if let Some(why) = unavailable() {
            assert!(Monoio.offers().call.has().is_none() && why.contains("io_uring"), "{why}");
            return;
        }
        let h = quick_harness();
        let reps = h.config.repetitions;
        for new_task in [NewTask::No, NewTask::Yes] {
            assert_eq!(Monoio.call(new_task, &h).unwrap().samples_ns.len(), reps);
        }
        assert_eq!(
            Monoio.spawn_join(overhead_runtime_api::primitives::SpawnKind::Task, &h).unwrap().samples_ns.len(),
            reps
        );
        for op in [SemOp::P, SemOp::V, SemOp::Pair, SemOp::Switch] {
            assert_eq!(Monoio.semaphore(op, 0, &h).unwrap().samples_ns.len(), reps, "{op:?}");
        }
        for implementation in CHANNELS {
            assert_eq!(Monoio.async_message(*implementation, &h).unwrap().samples_ns.len(), reps);
            assert_eq!(Monoio.message_round_trip(*implementation, 0, &h).unwrap().samples_ns.len(), reps);
        }
        for implementation in RENDEZVOUS {
            assert_eq!(Monoio.rendezvous(*implementation, 0, &h).unwrap().samples_ns.len(), reps);
        }
        assert!(Monoio.rendezvous(ChannelImpl::AsyncChannel, 0, &h).is_err(), "no zero-capacity async-channel");
        let refused = Monoio.switch_round_trip([0, 0], &h).unwrap_err().to_string();
        assert!(refused.contains("no yield"), "the csloop is refused, not left to hang: {refused}");
        let body: overhead_runtime_api::primitives::Body = Box::new(|h: &overhead_harness::Harness| {
            h.measure(overhead_harness::empty_loop, overhead_harness::empty_loop)
        });
        assert_eq!(Monoio.in_context(&h, body).unwrap().samples_ns.len(), reps);
    }

    /// A stream between threads, each group of parties on its own monoio runtime: every channel crate monoio
    /// offers delivers `spsc` (producer and consumer on two CPUs where there are two) and `mpsc` streams,
    /// bounded and unbounded, and every batch is kept (a wake lost between the runtimes would hang here).
    #[test]
    fn streams_run_one_runtime_per_group_of_parties() {
        use overhead_runtime_api::channel_shape::{Capacity, Pattern, StreamShape};
        use overhead_runtime_api::channel_throughput::{ChannelThroughput as _, TeamSeats};
        if unavailable().is_some() {
            assert!(Monoio.offers().channel_throughput.has().is_none());
            return;
        }
        let h = quick_harness();
        let allowed = overhead_machine::allowed_cpus();
        let other = *allowed.last().unwrap();
        for pattern in [Pattern::Spsc, Pattern::Mpsc] {
            let (producers, consumers) = pattern.parties();
            // Producers on the first CPU, consumers on the last (the same one on a machine of one CPU).
            let cpus: Vec<usize> =
                std::iter::repeat_n(allowed[0], producers).chain(std::iter::repeat_n(other, consumers)).collect();
            for capacity in [Capacity::Bounded(1024), Capacity::Unbounded] {
                for implementation in CHANNELS {
                    let shape = StreamShape { pattern, capacity };
                    let outcome = Monoio.throughput(*implementation, shape, TeamSeats::Pinned(&cpus), &h).unwrap();
                    let what = format!("{implementation} {pattern:?} {capacity:?}");
                    assert_eq!(outcome.measurement.samples_ns.len(), h.config.repetitions, "{what}");
                    assert!(outcome.measurement.samples_ns.iter().all(|s| s.is_finite()), "{what}");
                }
            }
        }
    }

    /// Why the csloop is not offered: a task that wakes itself while it runs (the yield of tokio and smol)
    /// runs again before a partner that was queued first. Should a monoio release change that, this fails,
    /// and the csloop can be offered.
    #[test]
    fn a_task_that_wakes_itself_runs_again_first() {
        if unavailable().is_some() {
            return;
        }
        let mut rt = local::runtime().unwrap();
        let yields = Arc::new(AtomicU64::new(0));
        let seen_by_partner = Arc::new(AtomicU64::new(u64::MAX));
        let (count, seen) = (yields.clone(), seen_by_partner.clone());
        rt.block_on(async move {
            // The yielder is queued first, then the partner, which notes how many yields the yielder had made
            // when it ran.
            let yielder = {
                let count = count.clone();
                monoio::spawn(async move {
                    for _ in 0..100 {
                        <MonoioLocal as crate::local_runtime::LocalRuntime>::yield_now().await;
                        count.fetch_add(1, Ordering::Relaxed);
                    }
                })
            };
            let partner = monoio::spawn(async move { seen.store(count.load(Ordering::Relaxed), Ordering::Relaxed) });
            yielder.await;
            partner.await;
        });
        // With a yield that gives way (tokio's, smol's) the partner runs at the first yield and sees 0 or 1.
        assert_eq!(seen_by_partner.load(Ordering::Relaxed), 100, "the partner ran only after all 100 yields");
        assert_eq!(yields.load(Ordering::Relaxed), 100);
    }
}
