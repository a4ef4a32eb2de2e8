//! The `smol` runtime (issue 25 item 3): smol's executors (async-executor), async-io's `block_on` and
//! reactor, and smol's own synchronisation (async-lock as `smol::lock`, async-channel as `smol::channel`,
//! event-listener) — the peer users compare with tokio. Seed 004's table runs on a `LocalExecutor` inside
//! `smol::block_on` on one thread (as tokio's current-thread runtime); seed 001's constructs on an
//! `Executor` with one pinned thread per CPU of the point (as tokio's multi-thread runtime).

mod activity_barrier;
pub mod fan_out;
mod primitives;
mod wake_all;
mod yield_round;

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use ::smol::{Executor, LocalExecutor};

/// Measures an async operation on a `LocalExecutor` on the calling thread: every batch is one
/// `smol::block_on` of the executor running a task that awaits the operation `n` times, beside the tasks
/// spawned on `ex` before (partners); the control is the same with a task running the empty loop, so the
/// cost of entering `block_on` and spawning the batch's task cancels. The timed loop is a task, not
/// `block_on`'s own future, so that it takes turns with its partners in the executor's queue: `block_on`'s
/// future is polled only between runs of up to 200 tasks (async-executor's `run`).
pub fn measure<F, Fut>(
    h: &overhead_harness::Harness,
    ex: &LocalExecutor<'static>,
    test: F,
) -> overhead_harness::Measurement
where
    F: Fn(u64) -> Fut,
    Fut: Future<Output = ()> + 'static,
{
    h.measure(
        |n| ::smol::block_on(ex.run(ex.spawn(test(n)))),
        |n| ::smol::block_on(ex.run(ex.spawn(async move { overhead_harness::empty_loop(n) }))),
    )
}

/// An `Executor` run by one thread per CPU of a point, each thread pinned to its CPU (thread i to
/// `cpus[i]`), each running `smol::block_on(executor.run(…))` as smol's own global executor threads do.
/// Dropping it stops the threads (they finish the task they are polling) and joins them.
pub struct Pool {
    /// The executor the threads run; tasks spawned on it run on them.
    executor: Arc<Executor<'static>>,
    /// Closed on drop: every thread's `run` then returns.
    stop: Option<::smol::channel::Sender<()>>,
    /// The executor threads.
    threads: Vec<std::thread::JoinHandle<()>>,
    /// Threads whose pinning the kernel refused (they ran unpinned).
    refused: Arc<AtomicUsize>,
}

/// A [`Pool`] with one executor thread per CPU of `cpus`. Refused pinning leaves the thread unpinned and
/// is counted ([`Pool::notes`]).
///
/// Errors: `cpus` is empty (`InvalidInput`); a thread could not be started.
pub fn pool(cpus: &[usize]) -> std::io::Result<Pool> {
    if cpus.is_empty() {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "a smol executor needs at least one CPU"));
    }
    let (stop, stopped) = ::smol::channel::bounded::<()>(1);
    let mut pool = Pool {
        executor: Arc::new(Executor::new()),
        stop: Some(stop),
        threads: Vec::with_capacity(cpus.len()),
        refused: Arc::new(AtomicUsize::new(0)),
    };
    for (i, &cpu) in cpus.iter().enumerate() {
        let (executor, stopped, refused) = (pool.executor.clone(), stopped.clone(), pool.refused.clone());
        let thread = std::thread::Builder::new().name(format!("smol-{i}")).spawn(move || {
            if overhead_machine::pin_current_thread(cpu).is_err() {
                refused.fetch_add(1, Ordering::Relaxed);
            }
            ::smol::block_on(executor.run(async move {
                // Never sent: ends when the pool drops the sender.
                let _ = stopped.recv().await;
            }));
        })?;
        // On an error above, dropping `pool` stops and joins the threads started so far.
        pool.threads.push(thread);
    }
    Ok(pool)
}

impl Pool {
    /// The executor the pool's threads run.
    pub fn executor(&self) -> &Arc<Executor<'static>> {
        &self.executor
    }

    /// Runs `parent(executor)` as a task on one of the pool's threads and blocks the calling thread until
    /// it ends: the parent of a smol fan-out is itself a task, as tokio's is (spawning from an executor
    /// thread uses its local queue; spawning from outside goes through the shared queue).
    pub fn on_worker<T, Fut>(&self, parent: impl FnOnce(Arc<Executor<'static>>) -> Fut) -> T
    where
        T: Send + 'static,
        Fut: Future<Output = T> + Send + 'static,
    {
        ::smol::block_on(self.executor.spawn(parent(self.executor.clone())))
    }

    /// A note when some of the pool's threads could not be pinned.
    pub fn notes(&self) -> Option<String> {
        crate::fan_out::pool_notes(&self.refused)
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        drop(self.stop.take());
        for thread in self.threads.drain(..) {
            // A thread that panicked has nothing left to stop; the panic was printed where it happened.
            let _ = thread.join();
        }
    }
}

/// smol as a runtime under test: a `LocalExecutor` on one thread in seed 004's table, an `Executor` with one
/// pinned thread per CPU in seed 001's constructs.
pub struct Smol;

/// What smol offers: seed 004's primitives on a `LocalExecutor`, seed 001's constructs on a pinned
/// `Executor` pool; contention between CPUs is measured elsewhere.
const OFFERS: crate::Offers = {
    use crate::activity_barrier::ActivityBarrierLimits;
    use crate::channel_impl::ChannelImpl;
    use crate::fan_out::ForkJoinMechanism;
    use crate::primitives::{SpawnKind, SwitchKind, SwitchMechanism};
    use crate::wake_all::{WaiterCpus, WakeAllOffer, WakeMechanism};
    use crate::yield_round::YieldLimits;
    use crate::{Offer, Offers, BETWEEN_CPUS_ELSEWHERE, KERNEL_UNDER_OS, RANKS_UNDER_MPI};
    Offers {
        context: Offer::Has(()),
        kernel: Offer::Lacks(KERNEL_UNDER_OS),
        call: Offer::Has(()),
        spawn_join: Offer::Has(&[SpawnKind::Task]),
        semaphore: Offer::Has(()),
        channel: Offer::Has(&[ChannelImpl::AsyncChannel]),
        message_switch: Offer::Has(&[ChannelImpl::AsyncChannel]),
        rendezvous: Offer::Has(&[ChannelImpl::AsyncChannel]),
        channel_throughput: Offer::Lacks("smol's channel throughput is not measured in this build"),
        raw_switch: Offer::Has(SwitchMechanism { kind: SwitchKind::Yield, across_cpus: false }),
        yield_round: Offer::Has(YieldLimits::NONE),
        wake_all: Offer::Has(WakeAllOffer { mechanisms: &[WakeMechanism::Notify], waiter_cpus: WaiterCpus::Pool }),
        fork_join: Offer::Has(&[ForkJoinMechanism::Spawn]),
        activity_barrier: Offer::Has(ActivityBarrierLimits::NONE),
        atomic: Offer::Lacks(BETWEEN_CPUS_ELSEWHERE),
        barrier: Offer::Lacks(BETWEEN_CPUS_ELSEWHERE),
        lock: Offer::Lacks(BETWEEN_CPUS_ELSEWHERE),
        rwlock: Offer::Lacks(BETWEEN_CPUS_ELSEWHERE),
        ranks: Offer::Lacks(RANKS_UNDER_MPI),
    }
};

impl crate::RuntimeUnderTest for Smol {
    fn name(&self) -> &'static str {
        "smol"
    }
    fn about(&self) -> &'static str {
        "smol: async-executor (LocalExecutor for seed 004's table, pinned Executor threads for seed 001), async-io, async-lock, async-channel"
    }
    crate::plugin::capabilities!(
        context,
        primitives,
        messages,
        yield_round,
        wake_all,
        fan_out,
        grain_sweep,
        activity_barrier
    );
    fn offers(&self) -> &crate::Offers {
        &OFFERS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_runs_tasks_on_its_threads_and_stops_on_drop() {
        let cpus = overhead_machine::allowed_cpus();
        let pool = pool(&cpus[..cpus.len().min(2)]).unwrap();
        let sum: u64 = pool.on_worker(|ex| async move {
            let tasks: Vec<_> = (0..8u64).map(|i| ex.spawn(async move { i })).collect();
            let mut s = 0;
            for t in tasks {
                s += t.await;
            }
            s
        });
        assert_eq!(sum, 28);
        drop(pool);
        assert!(super::pool(&[]).is_err());
    }
}
