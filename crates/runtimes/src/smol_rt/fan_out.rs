//! Fork-join fan-out on a smol `Executor` pool (seed 001 §6–7; issue 25 item 3): a parent task spawning
//! tasks and awaiting every `Task`.

use std::future::Future;
use std::hint::black_box;

use ::smol::{Executor, Task};

use super::Smol;
use crate::fan_out::{measure_team_warm, measure_warm, per_executor_spawn, FanOut, ForkJoinMechanism};
use crate::grain_sweep::{GrainSweep, Granularity, Remarks, Sweep};
use crate::grain_work::reads_per_task;
use crate::offer::not_offered;
use overhead_harness::empty_loop;
use overhead_harness::Harness;
use overhead_record::Outcome;

/// Inside a task of `ex`: `n` spawns of `make()`'s future on `ex` (from an executor thread they go to
/// its local queue, where idle threads steal them), then awaits every `Task`. `tasks` is cleared and
/// refilled; give it the capacity for `n` beforehand so the loop does not reallocate.
pub async fn spawn_all<Fut>(ex: &Executor<'static>, n: u64, mut make: impl FnMut() -> Fut, tasks: &mut Vec<Task<()>>)
where
    Fut: Future<Output = ()> + Send + 'static,
{
    tasks.clear();
    for _ in 0..n {
        tasks.push(ex.spawn(make()));
    }
    for task in tasks.drain(..) {
        task.await;
    }
}

/// [`spawn_all`] of `n` tasks running `f`.
pub async fn spawn_all_of<F>(ex: &Executor<'static>, n: u64, f: F, tasks: &mut Vec<Task<()>>)
where
    F: Fn() + Send + Copy + 'static,
{
    spawn_all(ex, n, || async move { f() }, tasks).await;
}

/// An empty task body.
fn empty() {
    black_box(());
}

/// Constructs of `tasks` empty tasks on a pool pinned to `cpus`: each batch is one parent task that runs
/// its constructs one after the other; its task vector, allocated once per batch, is reused by every
/// construct of the batch. `control(pool, n)` is the batch without constructs.
///
/// Errors: the executor's threads could not start.
fn constructs(
    cpus: &[usize],
    tasks: u64,
    h: &Harness,
    mut control: impl FnMut(&super::Pool, u64),
) -> anyhow::Result<Outcome> {
    let pool = super::pool(cpus)?;
    let m = measure_warm(
        h,
        |n| {
            pool.on_worker(|ex| async move {
                let mut handles = Vec::with_capacity(tasks as usize);
                for _ in 0..n {
                    spawn_all_of(&ex, tasks, empty, &mut handles).await;
                }
            })
        },
        |n| control(&pool, n),
    );
    let mut outcome = Outcome::from(m);
    outcome.notes.extend(pool.notes());
    Ok(outcome)
}

impl FanOut for Smol {
    /// A parent task spawns one task per executor thread and awaits every `Task`. The parent task is
    /// started once per batch, in the test and in the control alike; its task vector is allocated once
    /// per batch, outside the episodes.
    fn fork_join(&self, mechanism: ForkJoinMechanism, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome> {
        use ForkJoinMechanism as M;
        match mechanism {
            M::Spawn => {}
            other @ (M::HotTeam | M::Broadcast | M::Scope | M::Parallel | M::Pool) => {
                return Err(not_offered("smol", "mechanism", other))
            }
        }
        constructs(cpus, cpus.len() as u64, h, |pool, n| pool.on_worker(move |_| async move { empty_loop(n) }))
    }

    /// A parent task that spawns `tasks` tasks and awaits them all; each batch is one parent task (in the
    /// control too, with nothing to spawn); its task vector, allocated once per batch, is reused by every
    /// construct of the batch.
    fn bulk(&self, cpus: &[usize], tasks: u64, h: &Harness) -> anyhow::Result<Outcome> {
        constructs(cpus, tasks, h, |pool, _| pool.on_worker(|_| async {}))
    }

    /// An executor whose only thread is pinned to the executor CPU; generators call `Executor::spawn` of
    /// an empty task and `smol::block_on` its `Task`.
    fn remote(&self, executor: usize, generators: &[usize], h: &Harness) -> anyhow::Result<Outcome> {
        let pool = super::pool(&[executor])?;
        let notes = pool.notes().into_iter().collect();
        let ex = pool.executor();
        let report = measure_team_warm(h, generators, |_, n| {
            for _ in 0..n {
                ::smol::block_on(ex.spawn(async { black_box(()) }));
            }
        });
        Ok(per_executor_spawn(report, generators.len(), notes))
    }
}

impl GrainSweep for Smol {
    /// One run is a parent task on an executor thread that spawns every task and awaits them all. The task
    /// vector is lent to the parent and given back; it grows to `tasks` on the first run of a count (a
    /// warm-up run), so timed runs do not allocate it.
    fn granularity(&self, run: &Granularity<'_>, _h: &Harness, sweep: &mut Sweep<'_>) -> anyhow::Result<Remarks> {
        let pool = super::pool(run.cpus)?;
        let (work, work_reads) = (run.work, run.work_reads);
        let mut handles: Vec<Task<()>> = Vec::new();
        sweep(work, &mut |tasks| {
            let reads = reads_per_task(work_reads, tasks);
            let mut lent = std::mem::take(&mut handles);
            lent.reserve(tasks as usize);
            handles = pool.on_worker(move |ex| async move {
                spawn_all_of(&ex, tasks, move || work.task(reads), &mut lent).await;
                lent
            });
        });
        Ok(Remarks { notes: pool.notes().into_iter().collect(), ..Remarks::default() })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    /// A construct runs its body exactly `n` times and returns only after the last one.
    #[test]
    fn spawn_all_runs_every_task_once() {
        const N: u64 = 300;
        static RUNS: AtomicU64 = AtomicU64::new(0);
        let cpus = overhead_machine::allowed_cpus();
        let pool = super::super::pool(&cpus[..cpus.len().min(2)]).unwrap();
        let handles = pool.on_worker(|ex| async move {
            let mut handles = Vec::with_capacity(N as usize);
            super::spawn_all_of(
                &ex,
                N,
                || {
                    RUNS.fetch_add(1, Ordering::Relaxed);
                },
                &mut handles,
            )
            .await;
            handles
        });
        assert!(handles.is_empty() && handles.capacity() >= N as usize);
        assert_eq!(RUNS.load(Ordering::Relaxed), N);
    }
}
