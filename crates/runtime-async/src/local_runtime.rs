//! Souvatzis's primitives on a single-thread async executor, written once for every async runtime.
//!
//! tokio's current-thread runtime and smol's `LocalExecutor` are the same thing to Souvatzis's table: one
//! thread, cooperative switches at `.await`, partners as tasks of the same executor. [`LocalRuntime`] is that
//! much of a runtime, each item the runtime's own call, and the runtime's own shape of the timed loop
//! ([`LocalRuntime::measure`]: tokio's is `block_on`'s future, smol's a task beside its partners). The bodies
//! below (call, spawn + join, semaphore rows, raw switch) are generic over it and monomorphised for each
//! runtime, so a timed loop calls the runtime directly. The message rows stay with each runtime: tokio's run
//! every async channel crate (`async_channels`), smol's its own async-channel with the task-shaped loop.

use std::future::Future;
use std::hint::black_box;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use overhead_harness::{Harness, Measurement};
use overhead_record::Outcome;
use overhead_runtime_api::offer::not_offered;
use overhead_runtime_api::primitives::{call_operation, Body, NewTask, SemOp, SpawnKind};

/// A single-thread async executor and the primitives of its runtime that Souvatzis's rows use.
pub trait LocalRuntime: Sized {
    /// The runtime's name in errors (`tokio`, `smol`).
    const RUNTIME: &'static str;
    /// What the timed task spawns with (tokio: `tokio::spawn` in the runtime's context; smol: its executor).
    type Spawner: Clone + 'static;
    /// A spawned task: a future of its output (awaiting it panics if the task panicked).
    type Task<T: Send + 'static>: Future<Output = T>;
    /// The runtime's async semaphore.
    type Semaphore: Send + Sync + 'static;

    /// A new executor on the calling thread.
    ///
    /// Errors: the runtime could not start.
    fn start() -> anyhow::Result<Self>;
    /// The spawner the timed task uses.
    fn spawner(&self) -> Self::Spawner;
    /// Starts `future` as a task from inside a task of this executor.
    fn spawn_in<T: Send + 'static>(
        spawner: &Self::Spawner,
        future: impl Future<Output = T> + Send + 'static,
    ) -> Self::Task<T>;
    /// Starts a partner task before the measurement.
    fn spawn<T: Send + 'static>(&self, future: impl Future<Output = T> + Send + 'static) -> Self::Task<T>;
    /// Runs the executor until `task` ends (a partner, after the measurement told it to stop).
    fn finish<T: Send + 'static>(&self, task: Self::Task<T>) -> T;
    /// The runtime's timed loop: every batch runs `test(n)`, which awaits the operation `n` times, in the
    /// runtime's way; the control is the same with the empty loop, so entering the executor cancels.
    fn measure<F, Fut>(&self, h: &Harness, test: F) -> Measurement
    where
        F: Fn(u64) -> Fut,
        Fut: Future<Output = ()> + 'static;
    /// Runs `body` inside the executor (the harness loop then runs on its thread as a task would).
    fn in_context(&self, h: &Harness, body: Body) -> Measurement;
    /// The runtime's cooperative yield.
    fn yield_now() -> impl Future<Output = ()> + Send;
    /// A semaphore with `permits` permits.
    fn semaphore(permits: usize) -> Self::Semaphore;
    /// P: acquire one permit and keep it (a later [`LocalRuntime::v`] returns it).
    fn p(semaphore: &Self::Semaphore) -> impl Future<Output = ()> + Send;
    /// V: one permit back.
    fn v(semaphore: &Self::Semaphore);
}

/// `operation` behind a boxed trait object, as `async-trait` and service stacks call across a component
/// boundary without a new task.
fn boxed_operation(x: u64) -> Pin<Box<dyn Future<Output = u64>>> {
    Box::pin(async move { call_operation(x) })
}

/// `context`: [`LocalRuntime::in_context`] on a new executor.
///
/// Errors: the runtime could not start.
pub fn in_context<R: LocalRuntime>(h: &Harness, body: Body) -> anyhow::Result<Measurement> {
    Ok(R::start()?.in_context(h, body))
}

/// `msg.call`: awaiting a boxed `dyn Future` (the async-trait shape); or spawning a task that computes the
/// answer and awaiting it.
///
/// Errors: the runtime could not start.
pub fn call<R: LocalRuntime>(new_task: NewTask, h: &Harness) -> anyhow::Result<Measurement> {
    let rt = R::start()?;
    Ok(if new_task == NewTask::Yes {
        let spawner = rt.spawner();
        rt.measure(h, |n| {
            let spawner = spawner.clone();
            async move {
                for i in 0..n {
                    black_box(R::spawn_in(&spawner, async move { call_operation(i) }).await);
                }
            }
        })
    } else {
        rt.measure(h, |n| async move {
            for i in 0..n {
                black_box(boxed_operation(i).await);
            }
        })
    })
}

/// `spawn.create`: spawning an empty task plus awaiting it.
///
/// Errors: a kind other than a task; the runtime could not start.
pub fn spawn_join<R: LocalRuntime>(kind: SpawnKind, h: &Harness) -> anyhow::Result<Measurement> {
    match kind {
        SpawnKind::Task => {}
        other @ (SpawnKind::Thread | SpawnKind::Process) => return Err(not_offered(R::RUNTIME, "kind", other)),
    }
    let rt = R::start()?;
    let spawner = rt.spawner();
    Ok(rt.measure(h, |n| {
        let spawner = spawner.clone();
        async move {
            for _ in 0..n {
                black_box(R::spawn_in(&spawner, async { black_box(0u8) }).await);
            }
        }
    }))
}

/// `sync.sem` with the runtime's semaphore; the switch partner is a task.
///
/// Errors: the runtime could not start.
pub fn semaphore<R: LocalRuntime>(op: SemOp, h: &Harness) -> anyhow::Result<Measurement> {
    let rt = R::start()?;
    let sem = Arc::new(R::semaphore(op.initial_permits() as usize));
    Ok(match op {
        SemOp::P => rt.measure(h, |n| {
            let sem = sem.clone();
            async move {
                for _ in 0..n {
                    R::p(&sem).await;
                }
            }
        }),
        SemOp::V => rt.measure(h, |n| {
            let sem = sem.clone();
            async move { (0..n).for_each(|_| R::v(&sem)) }
        }),
        SemOp::Pair => rt.measure(h, |n| {
            let sem = sem.clone();
            async move {
                for _ in 0..n {
                    R::v(&sem);
                    R::p(&sem).await;
                }
            }
        }),
        SemOp::Switch => {
            let (ping, pong) = (sem, Arc::new(R::semaphore(0)));
            let stop = Arc::new(AtomicBool::new(false));
            let partner = {
                let (ping, pong, stop) = (ping.clone(), pong.clone(), stop.clone());
                rt.spawn(async move {
                    loop {
                        R::p(&ping).await;
                        if stop.load(Ordering::Acquire) {
                            break;
                        }
                        R::v(&pong);
                    }
                })
            };
            let m = rt.measure(h, |n| {
                let (ping, pong) = (ping.clone(), pong.clone());
                async move {
                    for _ in 0..n {
                        R::v(&ping);
                        R::p(&pong).await;
                    }
                }
            });
            stop.store(true, Ordering::Release);
            R::v(&ping);
            rt.finish(partner);
            m
        }
    })
}

/// `sched.switch`: two tasks; the timed task yields, the partner (which only yields) runs once, and control
/// comes back: one round trip through the executor's run queue.
///
/// Errors: the runtime could not start.
pub fn switch_round_trip<R: LocalRuntime>(h: &Harness) -> anyhow::Result<Outcome> {
    let rt = R::start()?;
    let stop = Arc::new(AtomicBool::new(false));
    let partner_stop = stop.clone();
    let partner = rt.spawn(async move {
        while !partner_stop.load(Ordering::Relaxed) {
            R::yield_now().await;
        }
    });
    let m = rt.measure(h, |n| async move {
        for _ in 0..n {
            R::yield_now().await;
        }
    });
    stop.store(true, Ordering::Relaxed);
    rt.finish(partner);
    Ok(m.into())
}

/// Implements `Context` and `Primitives` for the runtime `$runtime` by the generic bodies of this module on its
/// executor type `$local`.
macro_rules! local_primitives {
    ($runtime:ty, $local:ty) => {
        impl overhead_runtime_api::primitives::Context for $runtime {
            /// [`crate::local_runtime::in_context`] on this runtime's executor.
            fn in_context(
                &self,
                h: &overhead_harness::Harness,
                body: overhead_runtime_api::primitives::Body,
            ) -> anyhow::Result<overhead_harness::Measurement> {
                $crate::local_runtime::in_context::<$local>(h, body)
            }
        }
        impl overhead_runtime_api::primitives::Primitives for $runtime {
            /// [`crate::local_runtime::call`] on this runtime's executor.
            fn call(
                &self,
                new_task: overhead_runtime_api::primitives::NewTask,
                h: &overhead_harness::Harness,
            ) -> anyhow::Result<overhead_harness::Measurement> {
                $crate::local_runtime::call::<$local>(new_task, h)
            }
            /// [`crate::local_runtime::spawn_join`] on this runtime's executor.
            fn spawn_join(
                &self,
                kind: overhead_runtime_api::primitives::SpawnKind,
                h: &overhead_harness::Harness,
            ) -> anyhow::Result<overhead_harness::Measurement> {
                $crate::local_runtime::spawn_join::<$local>(kind, h)
            }
            /// [`crate::local_runtime::semaphore`] on this runtime's executor (the partner is a task).
            fn semaphore(
                &self,
                op: overhead_runtime_api::primitives::SemOp,
                _partner_cpu: usize,
                h: &overhead_harness::Harness,
            ) -> anyhow::Result<overhead_harness::Measurement> {
                $crate::local_runtime::semaphore::<$local>(op, h)
            }
            /// [`crate::local_runtime::switch_round_trip`] on this runtime's executor, unless the runtime's offers
            /// say it has no yield that gives way (monoio): then the error, not a partner that never runs.
            fn switch_round_trip(
                &self,
                _cpus: [usize; 2],
                h: &overhead_harness::Harness,
            ) -> anyhow::Result<overhead_record::Outcome> {
                use overhead_runtime_api::RuntimeUnderTest as _;
                if let Some(why) = self.offers().raw_switch.lacks() {
                    anyhow::bail!("{}: no raw switch: {why}", self.name());
                }
                $crate::local_runtime::switch_round_trip::<$local>(h)
            }
        }
    };
}
pub(crate) use local_primitives;

/// The semaphore of a [`LocalRuntime`] whose `Semaphore` is tokio's runtime-agnostic one (tokio's own, and
/// monoio's, which has none): [`LocalRuntime::semaphore`], [`LocalRuntime::p`] (acquire one permit and
/// forget it, so that it stays taken) and [`LocalRuntime::v`] (one permit back).
macro_rules! tokio_semaphore {
    () => {
        fn semaphore(permits: usize) -> ::tokio::sync::Semaphore {
            ::tokio::sync::Semaphore::new(permits)
        }

        async fn p(semaphore: &::tokio::sync::Semaphore) {
            semaphore.acquire().await.expect("the semaphore is never closed").forget();
        }

        fn v(semaphore: &::tokio::sync::Semaphore) {
            semaphore.add_permits(1);
        }
    };
}
pub(crate) use tokio_semaphore;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smol_rt::SmolLocal;
    use crate::tokio_rt::TokioLocal;
    use overhead_harness::testing::quick_harness;

    /// Each primitive measures on a tiny harness (the partners end, or this would hang), and a thread is no
    /// task of either runtime.
    fn every_primitive_measures<R: LocalRuntime>() {
        let h = quick_harness();
        let reps = h.config.repetitions;
        for new_task in [NewTask::No, NewTask::Yes] {
            assert_eq!(call::<R>(new_task, &h).unwrap().samples_ns.len(), reps, "{}", R::RUNTIME);
        }
        assert_eq!(spawn_join::<R>(SpawnKind::Task, &h).unwrap().samples_ns.len(), reps);
        assert!(spawn_join::<R>(SpawnKind::Thread, &h).is_err());
        for op in SemOp::ALL {
            assert_eq!(semaphore::<R>(op, &h).unwrap().samples_ns.len(), reps, "{} {op:?}", R::RUNTIME);
        }
        assert_eq!(switch_round_trip::<R>(&h).unwrap().measurement.samples_ns.len(), reps);
        let body: Body = Box::new(|h: &Harness| h.measure(overhead_harness::empty_loop, overhead_harness::empty_loop));
        assert_eq!(in_context::<R>(&h, body).unwrap().samples_ns.len(), reps);
    }

    #[test]
    fn every_primitive_measures_on_both_runtimes() {
        every_primitive_measures::<TokioLocal>();
        every_primitive_measures::<SmolLocal>();
    }

    /// A V by one task is the P the other task was blocked in, every time, and nothing more: the semaphore
    /// switch's handoff on both runtimes.
    fn semaphore_hands_each_permit_to_the_waiting_task<R: LocalRuntime>() {
        let rt = R::start().unwrap();
        let (ping, pong) = (Arc::new(R::semaphore(0)), Arc::new(R::semaphore(0)));
        let partner = {
            let (ping, pong) = (ping.clone(), pong.clone());
            rt.spawn(async move {
                for _ in 0..100 {
                    R::p(&ping).await;
                    R::v(&pong);
                }
            })
        };
        let rounds = rt.spawn(async move {
            for _ in 0..100 {
                R::v(&ping);
                R::p(&pong).await;
            }
        });
        rt.finish(rounds);
        rt.finish(partner);
    }

    #[test]
    fn semaphore_handoff_on_both_runtimes() {
        semaphore_hands_each_permit_to_the_waiting_task::<TokioLocal>();
        semaphore_hands_each_permit_to_the_waiting_task::<SmolLocal>();
    }
}
