//! Fork-join fan-out on tokio's multi-thread scheduler (seed 001 §6–7): a parent task spawning tasks and
//! awaiting every `JoinHandle`.

use std::future::Future;
use std::hint::black_box;

use super::Tokio;
use crate::fan_out::{measure_team_warm, measure_warm, per_executor_spawn, pool_notes, FanOut, ForkJoinMechanism};
use crate::grain_sweep::{GrainSweep, Granularity, Remarks, Sweep};
use crate::grain_work::reads_per_task;
use crate::offer::not_offered;
use overhead_harness::empty_loop;
use overhead_harness::Harness;
use overhead_record::Outcome;

/// Inside a task: `n` spawns of `make()`'s future (from a worker the first goes to its LIFO slot, the
/// rest to its run queue, where idle workers steal them), then awaits every `JoinHandle`. `handles` is
/// cleared and refilled; give it the capacity for `n` beforehand so the loop does not reallocate.
///
/// Panics if a task panicked.
pub async fn spawn_all<Fut>(n: u64, mut make: impl FnMut() -> Fut, handles: &mut Vec<::tokio::task::JoinHandle<()>>)
where
    Fut: Future<Output = ()> + Send + 'static,
{
    handles.clear();
    for _ in 0..n {
        handles.push(::tokio::spawn(make()));
    }
    for handle in handles.drain(..) {
        handle.await.expect("a spawned tokio task panicked");
    }
}

/// [`spawn_all`] of `n` tasks running `f`.
///
/// Panics if a task panicked.
pub async fn spawn_all_of<F>(n: u64, f: F, handles: &mut Vec<::tokio::task::JoinHandle<()>>)
where
    F: Fn() + Send + Copy + 'static,
{
    spawn_all(n, || async move { f() }, handles).await;
}

/// Runs `parent` as a task on one of `rt`'s workers and blocks the calling thread until it ends: the
/// parent of a tokio fan-out is itself a task, as rayon's parent is a worker (spawning from a worker
/// uses the worker's local queue; spawning from outside goes through the shared inject queue).
///
/// Panics if the parent task panicked.
pub fn on_worker<T: Send + 'static>(
    rt: &::tokio::runtime::Runtime,
    parent: impl Future<Output = T> + Send + 'static,
) -> T {
    rt.block_on(rt.spawn(parent)).expect("the parent tokio task panicked")
}

/// An empty task body.
fn empty() {
    black_box(());
}

/// Constructs of `tasks` empty tasks on a runtime pinned to `cpus`: each batch is one parent task that
/// runs its constructs one after the other; its handle vector, allocated once per batch, is reused by
/// every construct of the batch. `control(rt, n)` is the batch without constructs.
///
/// Errors: tokio could not start.
fn constructs(
    cpus: &[usize],
    tasks: u64,
    h: &Harness,
    mut control: impl FnMut(&::tokio::runtime::Runtime, u64),
) -> anyhow::Result<Outcome> {
    let (rt, refused) = super::multi_thread(cpus)?;
    let m = measure_warm(
        h,
        |n| {
            on_worker(&rt, async move {
                let mut handles = Vec::with_capacity(tasks as usize);
                for _ in 0..n {
                    spawn_all_of(tasks, empty, &mut handles).await;
                }
            })
        },
        |n| control(&rt, n),
    );
    let mut outcome = Outcome::from(m);
    outcome.notes.extend(pool_notes(&refused));
    Ok(outcome)
}

impl FanOut for Tokio {
    /// A parent task spawns one task per worker and awaits every `JoinHandle`. The parent task is started
    /// once per batch, in the test and in the control alike; its handle vector is allocated once per
    /// batch, outside the episodes.
    fn fork_join(&self, mechanism: ForkJoinMechanism, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome> {
        use ForkJoinMechanism as M;
        match mechanism {
            M::Spawn => {}
            other @ (M::HotTeam | M::Broadcast | M::Scope | M::Parallel | M::Pool) => {
                return Err(not_offered("tokio", "mechanism", other))
            }
        }
        constructs(cpus, cpus.len() as u64, h, |rt, n| on_worker(rt, async move { empty_loop(n) }))
    }

    /// A parent task that spawns `tasks` tasks and awaits them all; each batch is one parent task (in the
    /// control too, with nothing to spawn); its handle vector, allocated once per batch, is reused by
    /// every construct of the batch.
    fn bulk(&self, cpus: &[usize], tasks: u64, h: &Harness) -> anyhow::Result<Outcome> {
        constructs(cpus, tasks, h, |rt, _| on_worker(rt, async {}))
    }

    /// A multi-thread runtime whose only worker is pinned to the executor CPU; generators call
    /// `Handle::spawn` of an empty task and `Handle::block_on` its `JoinHandle`.
    fn remote(&self, executor: usize, generators: &[usize], h: &Harness) -> anyhow::Result<Outcome> {
        let (rt, refused) = super::multi_thread(&[executor])?;
        let notes = pool_notes(&refused).into_iter().collect();
        let handle = rt.handle();
        let report = measure_team_warm(h, generators, |_, n| {
            for _ in 0..n {
                let task = handle.spawn(async { black_box(()) });
                handle.block_on(task).expect("an empty tokio task panicked");
            }
        });
        Ok(per_executor_spawn(report, generators.len(), notes))
    }
}

impl GrainSweep for Tokio {
    /// One run is a parent task on a worker that spawns every task and awaits them all. The handle vector
    /// is lent to the parent and given back; it grows to `tasks` on the first run of a count (a warm-up
    /// run), so timed runs do not allocate it.
    fn granularity(&self, run: &Granularity<'_>, _h: &Harness, sweep: &mut Sweep<'_>) -> anyhow::Result<Remarks> {
        let (rt, refused) = super::multi_thread(run.cpus)?;
        let (work, work_reads) = (run.work, run.work_reads);
        let mut handles: Vec<::tokio::task::JoinHandle<()>> = Vec::new();
        sweep(work, &mut |tasks| {
            let reads = reads_per_task(work_reads, tasks);
            let mut lent = std::mem::take(&mut handles);
            lent.reserve(tasks as usize);
            handles = on_worker(&rt, async move {
                spawn_all_of(tasks, move || work.task(reads), &mut lent).await;
                lent
            });
        });
        Ok(Remarks { notes: pool_notes(&refused).into_iter().collect(), ..Remarks::default() })
    }
}
