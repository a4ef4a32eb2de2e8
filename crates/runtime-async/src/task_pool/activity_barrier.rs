//! Many more tasks than pool threads on a barrier (Ben-Asher & Feitelson 1991 §8.2 experiment 2): a pool with one pinned thread
//! per CPU; the spawner is a task too, which never gives up its thread while spawning, so the spinners cannot
//! slow it down.

use std::future::Future;
use std::sync::Arc;

use super::fan_out::spawn_all;
use super::{Spawn, TaskPool};
use overhead_harness::{empty_loop, Harness, Measurement};
use overhead_record::Outcome;
use overhead_runtime_api::activity_barrier::{BarrierKind, Oversubscribed, Variant};
use overhead_runtime_api::yield_barrier::YieldBarrier;

/// The study's barrier in a task: arrive, then the runtime's `yield_now` until released.
async fn yield_wait<P: TaskPool>(b: &YieldBarrier, sense: &mut bool) {
    if !b.arrive(sense) {
        while !b.released(*sense) {
            P::yield_now().await;
        }
    }
}

/// One batch of `just_sync`: `a` tasks held by a gate until all are spawned, each running `body()`'s future
/// (n episodes, or the empty loop), joined.
async fn gated<P: TaskPool, F, Fut>(spawner: &P::Spawner, a: usize, body: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let gate = Arc::new(P::gate());
    let mut tasks = Vec::with_capacity(a);
    for _ in 0..a {
        let (gate, work) = (gate.clone(), body());
        tasks.push(spawner.spawn(async move {
            P::pass(&gate).await;
            work.await
        }));
    }
    P::open(&gate, a);
    for task in tasks {
        task.await;
    }
}

/// `barrier:yield` is [`YieldBarrier`] with the runtime's `yield_now`, `barrier:blocking` the runtime's own
/// async barrier (tokio's `sync::Barrier`, smol's `lock::Barrier`). `just_sync`: each batch spawns the `a`
/// tasks held at a gate (the runtime's semaphore), opens it, and they pass the barrier `n` times; the control
/// batch spawns, gates and joins the same tasks running the empty loop, so only the episodes remain.
///
/// Errors: the pool could not start.
pub fn activity_barrier<P: TaskPool>(point: Oversubscribed<'_>, h: &Harness) -> anyhow::Result<Outcome> {
    let Oversubscribed { variant, barrier, activities: a, cpus } = point;
    let pool = P::start(cpus)?;
    let measurement = match (variant, barrier) {
        (Variant::JustSpawn, _) => just_spawn(&pool, a, h),
        (Variant::SpawnSync, BarrierKind::Yield) => spawn_sync_yield(&pool, a, h),
        (Variant::SpawnSync, BarrierKind::Blocking) => spawn_sync_blocking(&pool, a, h),
        (Variant::JustSync, BarrierKind::Yield) => just_sync_yield(&pool, a, h),
        (Variant::JustSync, BarrierKind::Blocking) => just_sync_blocking(&pool, a, h),
    };
    let mut outcome = Outcome::from(measurement);
    outcome.notes.extend(pool.notes());
    Ok(outcome)
}

/// Times batches of `round(spawner, n)`, each run as one worker task (the parent of the tasks the round
/// spawns, as rayon's parent is a worker), against `control`.
fn on_worker_batches<P: TaskPool, Fut>(
    pool: &P,
    h: &Harness,
    round: impl Fn(P::Spawner, u64) -> Fut,
    control: impl FnMut(u64),
) -> Measurement
where
    Fut: Future<Output = ()> + Send + 'static,
{
    h.measure(|n| pool.on_worker(|spawner| round(spawner, n)), control)
}

/// The control of the spawning variants: a worker task running the empty loop.
fn control<P: TaskPool>(pool: &P, n: u64) {
    pool.on_worker(move |_| async move { empty_loop(n) })
}

/// The control of the synchronising variants: the same `a` gated tasks each running the empty loop.
fn gated_control<P: TaskPool>(pool: &P, a: usize, n: u64) {
    pool.on_worker(
        move |spawner| async move { gated::<P, _, _>(&spawner, a, move || async move { empty_loop(n) }).await },
    )
}

/// `just_spawn`: `n` rounds of spawning `a` empty tasks and joining them.
fn just_spawn<P: TaskPool>(pool: &P, a: usize, h: &Harness) -> Measurement {
    on_worker_batches(
        pool,
        h,
        move |spawner, n| async move {
            let mut tasks = Vec::with_capacity(a);
            for _ in 0..n {
                spawn_all(&spawner, a as u64, || async {}, &mut tasks).await;
            }
        },
        |n| control(pool, n),
    )
}

/// `spawn_sync` with the yielding barrier: `n` rounds of spawning `a` tasks that meet at a fresh barrier.
fn spawn_sync_yield<P: TaskPool>(pool: &P, a: usize, h: &Harness) -> Measurement {
    on_worker_batches(
        pool,
        h,
        move |spawner, n| async move {
            let mut tasks = Vec::with_capacity(a);
            for _ in 0..n {
                // A fresh barrier per spawn, as the study's lived in the spawn descriptor.
                let b = Arc::new(YieldBarrier::new(a));
                let spawn = || {
                    let b = b.clone();
                    async move { yield_wait::<P>(&b, &mut false).await }
                };
                spawn_all(&spawner, a as u64, spawn, &mut tasks).await;
            }
        },
        |n| control(pool, n),
    )
}

/// `spawn_sync` with the runtime's blocking barrier.
fn spawn_sync_blocking<P: TaskPool>(pool: &P, a: usize, h: &Harness) -> Measurement {
    on_worker_batches(
        pool,
        h,
        move |spawner, n| async move {
            let mut tasks = Vec::with_capacity(a);
            for _ in 0..n {
                let b = Arc::new(P::barrier(a));
                let spawn = || {
                    let b = b.clone();
                    async move { P::barrier_wait(&b).await }
                };
                spawn_all(&spawner, a as u64, spawn, &mut tasks).await;
            }
        },
        |n| control(pool, n),
    )
}

/// `just_sync` with the yielding barrier: `a` gated tasks meeting `n` times at one barrier.
fn just_sync_yield<P: TaskPool>(pool: &P, a: usize, h: &Harness) -> Measurement {
    on_worker_batches(
        pool,
        h,
        move |spawner, n| async move {
            let b = Arc::new(YieldBarrier::new(a));
            gated::<P, _, _>(&spawner, a, || {
                let b = b.clone();
                async move {
                    let mut sense = false;
                    for _ in 0..n {
                        yield_wait::<P>(&b, &mut sense).await;
                    }
                }
            })
            .await
        },
        |n| gated_control(pool, a, n),
    )
}

/// `just_sync` with the runtime's blocking barrier.
fn just_sync_blocking<P: TaskPool>(pool: &P, a: usize, h: &Harness) -> Measurement {
    on_worker_batches(
        pool,
        h,
        move |spawner, n| async move {
            let b = Arc::new(P::barrier(a));
            gated::<P, _, _>(&spawner, a, || {
                let b = b.clone();
                async move {
                    for _ in 0..n {
                        P::barrier_wait(&b).await;
                    }
                }
            })
            .await
        },
        |n| gated_control(pool, a, n),
    )
}

#[cfg(test)]
mod tests {
    use crate::smol_rt::SmolPool;
    use crate::task_pool::TaskPool;
    use crate::tokio_rt::TokioPool;
    use overhead_runtime_api::activity_barrier::{BarrierKind, Variant};

    /// Every variant with both barriers ends (a lost wake-up or a barrier short of a task would hang).
    fn every_variant_passes_its_barrier<P: TaskPool>() {
        let h = overhead_harness::testing::quick_harness();
        let cpus = overhead_machine::allowed_cpus();
        let cpus = &cpus[..cpus.len().min(2)];
        for variant in Variant::ALL {
            for barrier in [BarrierKind::Yield, BarrierKind::Blocking] {
                let outcome =
                    super::activity_barrier::<P>(super::Oversubscribed { variant, barrier, activities: 8, cpus }, &h)
                        .unwrap();
                let what = format!("{} {variant:?} {barrier:?}", P::RUNTIME);
                assert_eq!(outcome.measurement.samples_ns.len(), h.config.repetitions, "{what}");
            }
        }
    }

    #[test]
    fn every_variant_passes_its_barrier_on_both_runtimes() {
        every_variant_passes_its_barrier::<TokioPool>();
        every_variant_passes_its_barrier::<SmolPool>();
    }
}
