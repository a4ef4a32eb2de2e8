//! Many more smol tasks than executor threads on a barrier (seed 001 §8.2 experiment 2; issue 25 item 3):
//! an `Executor` with one pinned thread per CPU; the spawner is a task too, as tokio's is
//! (`src/runtimes/tokio_rt/activity_barrier.rs`).

use std::future::Future;
use std::sync::Arc;

use ::smol::lock::{Barrier, Semaphore};
use ::smol::Executor;

use super::fan_out::spawn_all;
use super::Smol;
use crate::activity_barrier::{ActivityBarrier, BarrierKind, Variant};
use crate::yield_barrier::YieldBarrier;
use overhead_harness::empty_loop;
use overhead_harness::Harness;
use overhead_record::Outcome;

/// The seed's barrier in a task: arrive, then `yield_now` until released.
async fn yield_wait(b: &YieldBarrier, sense: &mut bool) {
    if !b.arrive(sense) {
        while !b.released(*sense) {
            ::smol::future::yield_now().await;
        }
    }
}

/// One batch of `just_sync`: A tasks held by a semaphore gate until all are spawned, each running
/// `body()`'s future (n episodes, or the empty loop), joined.
async fn gated<F, Fut>(ex: &Executor<'static>, a: usize, body: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let gate = Arc::new(Semaphore::new(0));
    let mut tasks = Vec::with_capacity(a);
    for _ in 0..a {
        let (gate, work) = (gate.clone(), body());
        tasks.push(ex.spawn(async move {
            gate.acquire().await.forget();
            work.await
        }));
    }
    gate.add_permits(a);
    for task in tasks {
        task.await;
    }
}

impl ActivityBarrier for Smol {
    /// `barrier:yield` is [`YieldBarrier`] with `yield_now().await`, `barrier:blocking`
    /// `smol::lock::Barrier` (async-lock). `just_sync`: each batch spawns the A tasks held at a gate, opens
    /// it, and they pass the barrier `n` times; the control batch spawns, gates and joins the same tasks
    /// running the empty loop, so only the episodes remain.
    fn activity_barrier(
        &self,
        variant: Variant,
        barrier: BarrierKind,
        a: usize,
        cpus: &[usize],
        h: &Harness,
    ) -> anyhow::Result<Outcome> {
        let pool = super::pool(cpus)?;
        let pool = &pool;
        let control = |n: u64| pool.on_worker(move |_| async move { empty_loop(n) });
        let measurement = match (variant, barrier) {
            (Variant::JustSpawn, _) => h.measure(
                |n| {
                    pool.on_worker(move |ex| async move {
                        let mut tasks = Vec::with_capacity(a);
                        for _ in 0..n {
                            spawn_all(&ex, a as u64, || async {}, &mut tasks).await;
                        }
                    })
                },
                control,
            ),
            (Variant::SpawnSync, BarrierKind::Yield) => h.measure(
                |n| {
                    pool.on_worker(move |ex| async move {
                        let mut tasks = Vec::with_capacity(a);
                        for _ in 0..n {
                            // A fresh barrier per spawn, as the seed's lived in the spawn descriptor.
                            let b = Arc::new(YieldBarrier::new(a));
                            let spawn = || {
                                let b = b.clone();
                                async move { yield_wait(&b, &mut false).await }
                            };
                            spawn_all(&ex, a as u64, spawn, &mut tasks).await;
                        }
                    })
                },
                control,
            ),
            (Variant::SpawnSync, BarrierKind::Blocking) => h.measure(
                |n| {
                    pool.on_worker(move |ex| async move {
                        let mut tasks = Vec::with_capacity(a);
                        for _ in 0..n {
                            let b = Arc::new(Barrier::new(a));
                            let spawn = || {
                                let b = b.clone();
                                async move {
                                    b.wait().await;
                                }
                            };
                            spawn_all(&ex, a as u64, spawn, &mut tasks).await;
                        }
                    })
                },
                control,
            ),
            (Variant::JustSync, BarrierKind::Yield) => h.measure(
                |n| {
                    pool.on_worker(move |ex| async move {
                        let b = Arc::new(YieldBarrier::new(a));
                        gated(&ex, a, || {
                            let b = b.clone();
                            async move {
                                let mut sense = false;
                                for _ in 0..n {
                                    yield_wait(&b, &mut sense).await;
                                }
                            }
                        })
                        .await
                    })
                },
                |n| pool.on_worker(move |ex| async move { gated(&ex, a, move || async move { empty_loop(n) }).await }),
            ),
            (Variant::JustSync, BarrierKind::Blocking) => h.measure(
                |n| {
                    pool.on_worker(move |ex| async move {
                        let b = Arc::new(Barrier::new(a));
                        gated(&ex, a, || {
                            let b = b.clone();
                            async move {
                                for _ in 0..n {
                                    b.wait().await;
                                }
                            }
                        })
                        .await
                    })
                },
                |n| pool.on_worker(move |ex| async move { gated(&ex, a, move || async move { empty_loop(n) }).await }),
            ),
        };
        let mut outcome = Outcome::from(measurement);
        outcome.notes.extend(pool.notes());
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use crate::activity_barrier::{ActivityBarrier as _, BarrierKind, Variant};

    /// Every variant with both barriers ends (a lost wake-up or a barrier short of a task would hang).
    #[test]
    fn every_variant_passes_its_barrier() {
        let h = overhead_harness::testing::quick_harness();
        let cpus = overhead_machine::allowed_cpus();
        let cpus = &cpus[..cpus.len().min(2)];
        for variant in Variant::ALL {
            for barrier in [BarrierKind::Yield, BarrierKind::Blocking] {
                let outcome = super::Smol.activity_barrier(variant, barrier, 8, cpus, &h).unwrap();
                assert_eq!(outcome.measurement.samples_ns.len(), h.config.repetitions, "{variant:?} {barrier:?}");
            }
        }
    }
}
