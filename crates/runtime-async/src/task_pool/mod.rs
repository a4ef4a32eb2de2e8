//! Ben-Asher & Feitelson's constructs on a work-stealing async executor, written once for every async runtime.
//!
//! tokio's multi-thread runtime and a smol `Executor` run by pinned threads are the same thing to Ben-Asher & Feitelson's
//! experiments: one pinned thread per CPU of the point, tasks spawned from outside or from a task, awaited,
//! yielding, waiting at a barrier or for a broadcast. [`TaskPool`] is that much of a runtime, each item the
//! runtime's own call (`tokio::spawn`, `Executor::spawn`, `yield_now`, its semaphore, barrier and notify);
//! the yield round, wake-all, fork-join fan-out, the granularity sweep and the activity barrier are generic
//! over it (`yield_round.rs`, `wake_all.rs`, `fan_out.rs`, `activity_barrier.rs`), monomorphised for each
//! runtime so a timed loop calls the runtime directly, as it did when each runtime had its own copy.
//! [`pool_constructs!`] implements the constructs' capability traits for a runtime from its pool.

pub mod activity_barrier;
pub mod fan_out;
pub mod wake_all;
pub mod yield_round;

use std::future::Future;

/// Spawns tasks from inside a task of the pool: what a parent task holds (tokio: `tokio::spawn`, which
/// finds the runtime in the worker's context; smol: the `Executor`).
pub trait Spawn: Clone + Send + Sync + 'static {
    /// A spawned task: a future of its output. Awaiting it panics if the task panicked.
    type Task<T: Send + 'static>: Future<Output = T> + Send + 'static;
    /// Starts `future` as a task (from a pool thread: onto that thread's local queue).
    fn spawn<T: Send + 'static>(&self, future: impl Future<Output = T> + Send + 'static) -> Self::Task<T>;
}

/// A task of `P`.
pub type Task<P, T> = <<P as TaskPool>::Spawner as Spawn>::Task<T>;

/// A work-stealing executor with one thread per CPU of a point, each pinned to its CPU, and the few
/// synchronisation primitives of the runtime that Ben-Asher & Feitelson's constructs use.
pub trait TaskPool: Sized + Sync {
    /// The runtime's name in errors and notes (`tokio`, `smol`).
    const RUNTIME: &'static str;
    /// What a parent task spawns with.
    type Spawner: Spawn;
    /// The runtime's async barrier (`wait` returns when all parties have arrived).
    type Barrier: Send + Sync + 'static;
    /// The runtime's async semaphore, used as a gate that holds tasks until all are spawned.
    type Gate: Send + Sync + 'static;
    /// The runtime's notify-all primitive.
    type Broadcast: Send + Sync + 'static;
    /// When the pool's one thread is the caller's (tokio's current-thread flavor), why: it has no executor
    /// apart from a spawner, so `spawn.remote` refuses it. `None` for a pool of its own threads.
    const CALLERS_THREAD: Option<&'static str> = None;

    /// A pool with one thread per CPU of `cpus`, thread i pinned to `cpus[i]` (tokio: the workers in the
    /// order they start). Refused pinning leaves the thread unpinned and is counted ([`TaskPool::notes`]).
    ///
    /// Errors: `cpus` is empty (`InvalidInput`), or the runtime could not start its threads.
    fn start(cpus: &[usize]) -> std::io::Result<Self>;
    /// Starts `future` as a task from outside the pool's threads (the shared queue).
    fn spawn<T: Send + 'static>(&self, future: impl Future<Output = T> + Send + 'static) -> Task<Self, T>;
    /// Runs `future` to its end on the calling thread, inside the runtime's context.
    fn block_on<F: Future>(&self, future: F) -> F::Output;
    /// Runs `parent(spawner)` as a task on one of the pool's threads and blocks the calling thread until it
    /// ends: the parent of a fan-out is itself a task, as rayon's parent is a worker (spawning from a pool
    /// thread uses its local queue; from outside, the shared one).
    fn on_worker<T, Fut>(&self, parent: impl FnOnce(Self::Spawner) -> Fut) -> T
    where
        T: Send + 'static,
        Fut: Future<Output = T> + Send + 'static;
    /// A note when some of the pool's threads could not be pinned.
    fn notes(&self) -> Option<String>;

    /// The runtime's cooperative yield.
    fn yield_now() -> impl Future<Output = ()> + Send;
    /// A barrier for `parties` tasks.
    fn barrier(parties: usize) -> Self::Barrier;
    /// Waits at `barrier` until all its parties have arrived.
    fn barrier_wait(barrier: &Self::Barrier) -> impl Future<Output = ()> + Send;
    /// A closed gate.
    fn gate() -> Self::Gate;
    /// Waits until the gate lets this task through (one permit each).
    fn pass(gate: &Self::Gate) -> impl Future<Output = ()> + Send;
    /// Lets `tasks` tasks through the gate.
    fn open(gate: &Self::Gate, tasks: usize);
    /// A broadcast nobody waits for yet.
    fn broadcast() -> Self::Broadcast;
    /// Registers for the next [`TaskPool::notify_all`] of `broadcast`, calls `registered()`, and waits: a
    /// notification after `registered` returns reaches this task.
    fn wait_for(broadcast: &Self::Broadcast, registered: impl FnOnce() + Send) -> impl Future<Output = ()> + Send;
    /// Wakes every task waiting on `broadcast`.
    fn notify_all(broadcast: &Self::Broadcast);
}

/// Implements Ben-Asher & Feitelson's constructs (`YieldRound`, `WakeAll`, `FanOut`, `GrainSweep`, `ActivityBarrier`)
/// for the runtime `$runtime` on its pool type `$pool`, each by the generic body of this module.
macro_rules! pool_constructs {
    ($runtime:ty, $pool:ty) => {
        impl overhead_runtime_api::yield_round::YieldRound for $runtime {
            /// [`crate::task_pool::yield_round::yield_round`] on this runtime's pool.
            fn yield_round(
                &self,
                cpus: &[usize],
                load: usize,
                h: &overhead_harness::Harness,
            ) -> anyhow::Result<overhead_record::Outcome> {
                $crate::task_pool::yield_round::yield_round::<$pool>(cpus, load, h)
            }
        }
        impl overhead_runtime_api::wake_all::WakeAll for $runtime {
            /// [`crate::task_pool::wake_all::wake_all`] on this runtime's pool.
            fn wake_all(
                &self,
                mechanism: overhead_runtime_api::wake_all::WakeMechanism,
                waiters: usize,
                cpus: &[usize],
                settle_ticks: u64,
                h: &overhead_harness::Harness,
            ) -> anyhow::Result<overhead_record::Outcome> {
                $crate::task_pool::wake_all::wake_all::<$pool>(mechanism, waiters, cpus, settle_ticks, h)
            }
        }
        impl overhead_runtime_api::fan_out::FanOut for $runtime {
            /// [`crate::task_pool::fan_out::fork_join`] on this runtime's pool.
            fn fork_join(
                &self,
                mechanism: overhead_runtime_api::fan_out::ForkJoinMechanism,
                cpus: &[usize],
                h: &overhead_harness::Harness,
            ) -> anyhow::Result<overhead_record::Outcome> {
                $crate::task_pool::fan_out::fork_join::<$pool>(mechanism, cpus, h)
            }
            /// [`crate::task_pool::fan_out::bulk`] on this runtime's pool.
            fn bulk(
                &self,
                cpus: &[usize],
                tasks: u64,
                h: &overhead_harness::Harness,
            ) -> anyhow::Result<overhead_record::Outcome> {
                $crate::task_pool::fan_out::bulk::<$pool>(cpus, tasks, h)
            }
            /// [`crate::task_pool::fan_out::remote`] on this runtime's pool.
            fn remote(
                &self,
                executor: usize,
                generators: &[usize],
                h: &overhead_harness::Harness,
            ) -> anyhow::Result<overhead_record::Outcome> {
                $crate::task_pool::fan_out::remote::<$pool>(executor, generators, h)
            }
        }
        impl overhead_runtime_api::grain_sweep::GrainSweep for $runtime {
            /// [`crate::task_pool::fan_out::granularity`] on this runtime's pool.
            fn granularity(
                &self,
                run: &overhead_runtime_api::grain_sweep::Granularity<'_>,
                _h: &overhead_harness::Harness,
                sweep: &mut overhead_runtime_api::grain_sweep::Sweep<'_>,
            ) -> anyhow::Result<overhead_runtime_api::grain_sweep::Remarks> {
                $crate::task_pool::fan_out::granularity::<$pool>(run, sweep)
            }
        }
        impl overhead_runtime_api::activity_barrier::ActivityBarrier for $runtime {
            /// [`crate::task_pool::activity_barrier::activity_barrier`] on this runtime's pool.
            fn activity_barrier(
                &self,
                point: overhead_runtime_api::activity_barrier::Oversubscribed<'_>,
                h: &overhead_harness::Harness,
            ) -> anyhow::Result<overhead_record::Outcome> {
                $crate::task_pool::activity_barrier::activity_barrier::<$pool>(point, h)
            }
        }
    };
}
pub(crate) use pool_constructs;
