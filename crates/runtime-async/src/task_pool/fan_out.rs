//! Fork-join fan-out on a task pool (Ben-Asher & Feitelson 1991 §6–7): a parent task spawning tasks and awaiting each one, the
//! spawns of remote generators, and the granularity sweep's runs.

use std::future::Future;
use std::hint::black_box;

use super::{Spawn, Task, TaskPool};
use overhead_harness::{empty_loop, Harness};
use overhead_record::Outcome;
use overhead_runtime_api::fan_out::{measure_team_warm, measure_warm, per_executor_spawn, ForkJoinMechanism};
use overhead_runtime_api::grain_sweep::{Granularity, Remarks, Sweep};
use overhead_runtime_api::grain_work::reads_per_task;
use overhead_runtime_api::offer::not_offered;

/// Inside a task: `n` spawns of `make()`'s future (from a pool thread they go to its local queue — tokio's
/// first to its LIFO slot — where idle threads steal them), then awaits every task. `tasks` is cleared and
/// refilled; give it the capacity for `n` beforehand so the loop does not reallocate.
///
/// Panics if a task panicked.
pub async fn spawn_all<S: Spawn, Fut>(spawner: &S, n: u64, mut make: impl FnMut() -> Fut, tasks: &mut Vec<S::Task<()>>)
where
    Fut: Future<Output = ()> + Send + 'static,
{
    tasks.clear();
    for _ in 0..n {
        tasks.push(spawner.spawn(make()));
    }
    for task in tasks.drain(..) {
        task.await;
    }
}

/// [`spawn_all`] of `n` tasks running `f`.
///
/// Panics if a task panicked.
pub async fn spawn_all_of<S: Spawn, F>(spawner: &S, n: u64, f: F, tasks: &mut Vec<S::Task<()>>)
where
    F: Fn() + Send + Copy + 'static,
{
    spawn_all(spawner, n, || async move { f() }, tasks).await;
}

/// An empty task body.
fn empty() {
    black_box(());
}

/// Constructs of `tasks` empty tasks on a pool pinned to `cpus`: each batch is one parent task that runs its
/// constructs one after the other; its task vector, allocated once per batch, is reused by every construct
/// of the batch. `control(pool, n)` is the batch without constructs.
///
/// Errors: the pool could not start.
fn constructs<P: TaskPool>(
    cpus: &[usize],
    tasks: u64,
    h: &Harness,
    mut control: impl FnMut(&P, u64),
) -> anyhow::Result<Outcome> {
    let pool = P::start(cpus)?;
    let m = measure_warm(
        h,
        |n| {
            pool.on_worker(|spawner| async move {
                let mut handles = Vec::with_capacity(tasks as usize);
                for _ in 0..n {
                    spawn_all_of(&spawner, tasks, empty, &mut handles).await;
                }
            })
        },
        |n| control(&pool, n),
    );
    let mut outcome = Outcome::from(m);
    outcome.notes.extend(pool.notes());
    Ok(outcome)
}

/// `spawn`: a parent task spawns one task per pool thread and awaits each. The parent task is started once
/// per batch, in the test and in the control alike; its task vector is allocated once per batch, outside the
/// episodes.
///
/// Errors: another mechanism; the pool could not start.
pub fn fork_join<P: TaskPool>(mechanism: ForkJoinMechanism, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome> {
    use ForkJoinMechanism as M;
    match mechanism {
        M::Spawn => {}
        other @ (M::HotTeam | M::Broadcast | M::Scope | M::Parallel | M::Pool) => {
            return Err(not_offered(P::RUNTIME, "mechanism", other))
        }
    }
    constructs::<P>(cpus, cpus.len() as u64, h, |pool, n| pool.on_worker(move |_| async move { empty_loop(n) }))
}

/// A parent task that spawns `tasks` tasks and awaits them all; each batch is one parent task (in the control
/// too, with nothing to spawn); its task vector, allocated once per batch, is reused by every construct of the
/// batch.
///
/// Errors: the pool could not start.
pub fn bulk<P: TaskPool>(cpus: &[usize], tasks: u64, h: &Harness) -> anyhow::Result<Outcome> {
    constructs::<P>(cpus, tasks, h, |pool, _| pool.on_worker(|_| async {}))
}

/// A pool whose only thread is pinned to the executor CPU; generators spawn an empty task from outside and
/// block on it (tokio: `Handle::spawn`, `block_on` of its `JoinHandle`; smol: `Executor::spawn`,
/// `smol::block_on` of its `Task`).
///
/// Errors: the pool runs on its caller's thread ([`TaskPool::CALLERS_THREAD`]), or could not start.
pub fn remote<P: TaskPool>(executor: usize, generators: &[usize], h: &Harness) -> anyhow::Result<Outcome> {
    if let Some(why) = P::CALLERS_THREAD {
        anyhow::bail!("{}: no remote spawn: {why}", P::RUNTIME);
    }
    let pool = P::start(&[executor])?;
    let notes = pool.notes().into_iter().collect();
    let report = measure_team_warm(h, generators, |_, n| {
        for _ in 0..n {
            pool.block_on(pool.spawn(async { black_box(()) }));
        }
    });
    Ok(per_executor_spawn(report, generators.len(), notes))
}

/// One run of the granularity sweep is a parent task on a pool thread that spawns every task and awaits them
/// all. The task vector is lent to the parent and given back; it grows to `tasks` on the first run of a count
/// (a warm-up run), so timed runs do not allocate it.
///
/// Errors: the pool could not start.
pub fn granularity<P: TaskPool>(run: &Granularity<'_>, sweep: &mut Sweep<'_>) -> anyhow::Result<Remarks> {
    let pool = P::start(run.cpus)?;
    let (work, work_reads) = (run.work, run.work_reads);
    let mut handles: Vec<Task<P, ()>> = Vec::new();
    sweep(work, &mut |tasks| {
        let reads = reads_per_task(work_reads, tasks);
        let mut lent = std::mem::take(&mut handles);
        lent.reserve(tasks as usize);
        handles = pool.on_worker(move |spawner| async move {
            spawn_all_of(&spawner, tasks, move || work.task(reads), &mut lent).await;
            lent
        });
    });
    Ok(Remarks { notes: pool.notes().into_iter().collect(), ..Remarks::default() })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    use crate::smol_rt::SmolPool;
    use crate::task_pool::TaskPool;
    use crate::tokio_rt::TokioPool;

    /// A construct runs its body exactly `n` times and returns only after the last one, and the task vector
    /// keeps its capacity (so timed constructs do not allocate it).
    fn spawn_all_runs_every_task_once<P: TaskPool>(runs: &'static AtomicU64) {
        const N: u64 = 300;
        let cpus = overhead_machine::allowed_cpus();
        let pool = P::start(&cpus[..cpus.len().min(2)]).unwrap();
        let handles = pool.on_worker(move |spawner| async move {
            let mut handles = Vec::with_capacity(N as usize);
            let count = move || {
                runs.fetch_add(1, Ordering::Relaxed);
            };
            super::spawn_all_of(&spawner, N, count, &mut handles).await;
            handles
        });
        assert!(handles.is_empty() && handles.capacity() >= N as usize);
        assert_eq!(runs.load(Ordering::Relaxed), N, "{}", P::RUNTIME);
    }

    #[test]
    fn spawn_all_runs_every_task_once_on_both_runtimes() {
        static TOKIO: AtomicU64 = AtomicU64::new(0);
        static SMOL: AtomicU64 = AtomicU64::new(0);
        spawn_all_runs_every_task_once::<TokioPool>(&TOKIO);
        spawn_all_runs_every_task_once::<SmolPool>(&SMOL);
    }
}
