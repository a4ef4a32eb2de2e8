//! Many more tokio tasks than workers on a barrier (seed 001 §8.2 experiment 2): the multi-thread
//! scheduler with one pinned worker per CPU; the spawner is a task too, which never gives up its worker
//! while spawning, so the spinners cannot slow it down.

use std::future::Future;
use std::sync::Arc;

use super::fan_out::{on_worker, spawn_all};
use super::Tokio;
use crate::activity_barrier::{ActivityBarrier, BarrierKind, Variant};
use crate::fan_out::pool_notes;
use crate::yield_barrier::YieldBarrier;
use overhead_harness::empty_loop;
use overhead_harness::Harness;
use overhead_record::Outcome;

/// The seed's barrier in a task: arrive, then `yield_now` until released.
async fn yield_wait(b: &YieldBarrier, sense: &mut bool) {
    if !b.arrive(sense) {
        while !b.released(*sense) {
            ::tokio::task::yield_now().await;
        }
    }
}

/// One batch of `just_sync`: A tasks held by a semaphore gate until all are spawned, each running
/// `body()`'s future (n episodes, or the empty loop), joined.
async fn gated<F, Fut>(a: usize, body: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let gate = Arc::new(::tokio::sync::Semaphore::new(0));
    let mut handles = Vec::with_capacity(a);
    for _ in 0..a {
        let (gate, work) = (gate.clone(), body());
        handles.push(::tokio::spawn(async move {
            gate.acquire().await.expect("gate never closed").forget();
            work.await
        }));
    }
    gate.add_permits(a);
    for handle in handles {
        handle.await.expect("activity panicked");
    }
}

impl ActivityBarrier for Tokio {
    /// `barrier:yield` is [`YieldBarrier`] with `yield_now().await`, `barrier:blocking`
    /// `tokio::sync::Barrier`. `just_sync`: each batch spawns the A tasks held at a gate, opens it, and
    /// they pass the barrier `n` times; the control batch spawns, gates and joins the same tasks running
    /// the empty loop, so only the episodes remain.
    fn activity_barrier(
        &self,
        variant: Variant,
        barrier: BarrierKind,
        a: usize,
        cpus: &[usize],
        h: &Harness,
    ) -> anyhow::Result<Outcome> {
        let (rt, refused) = super::multi_thread(cpus)?;
        let rt = &rt;
        let control = |n: u64| on_worker(rt, async move { empty_loop(n) });
        let measurement = match (variant, barrier) {
            (Variant::JustSpawn, _) => h.measure(
                |n| {
                    on_worker(rt, async move {
                        let mut handles = Vec::with_capacity(a);
                        for _ in 0..n {
                            spawn_all(a as u64, || async {}, &mut handles).await;
                        }
                    })
                },
                control,
            ),
            (Variant::SpawnSync, BarrierKind::Yield) => h.measure(
                |n| {
                    on_worker(rt, async move {
                        let mut handles = Vec::with_capacity(a);
                        for _ in 0..n {
                            // A fresh barrier per spawn, as the seed's lived in the spawn descriptor.
                            let b = Arc::new(YieldBarrier::new(a));
                            spawn_all(
                                a as u64,
                                || {
                                    let b = b.clone();
                                    async move { yield_wait(&b, &mut false).await }
                                },
                                &mut handles,
                            )
                            .await;
                        }
                    })
                },
                control,
            ),
            (Variant::SpawnSync, BarrierKind::Blocking) => h.measure(
                |n| {
                    on_worker(rt, async move {
                        let mut handles = Vec::with_capacity(a);
                        for _ in 0..n {
                            let b = Arc::new(::tokio::sync::Barrier::new(a));
                            spawn_all(
                                a as u64,
                                || {
                                    let b = b.clone();
                                    async move {
                                        b.wait().await;
                                    }
                                },
                                &mut handles,
                            )
                            .await;
                        }
                    })
                },
                control,
            ),
            (Variant::JustSync, BarrierKind::Yield) => h.measure(
                |n| {
                    on_worker(rt, async move {
                        let b = Arc::new(YieldBarrier::new(a));
                        gated(a, || {
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
                |n| on_worker(rt, gated(a, move || async move { empty_loop(n) })),
            ),
            (Variant::JustSync, BarrierKind::Blocking) => h.measure(
                |n| {
                    on_worker(rt, async move {
                        let b = Arc::new(::tokio::sync::Barrier::new(a));
                        gated(a, || {
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
                |n| on_worker(rt, gated(a, move || async move { empty_loop(n) })),
            ),
        };
        let mut outcome = Outcome::from(measurement);
        outcome.notes.extend(pool_notes(&refused));
        Ok(outcome)
    }
}
