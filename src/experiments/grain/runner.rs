//! One run of the granularity sweep's work on each runtime: the whole work split into `tasks` tasks,
//! spread over the point's CPUs, returning when the last task has finished (seed 001 §7's
//! `pparfor j; 1; i … epar`).

use std::sync::atomic::{AtomicU64, Ordering};

use crate::experiments::spawn::fanout::{on_worker, rayon_scope, tokio_spawn_all};
use crate::runtimes::openmp::Team;
use crate::runtimes::os::hot_team::HotTeam;

use super::work::{reads_per_task, Work};

/// Seed 001 §7's spawn descriptor for kernel threads: a pinned hot team whose members claim the next
/// activity with one fetch-and-add on a shared counter until all are taken, as ParC's processors each
/// take "a new activity once every scheduling round" from the descriptor in global memory.
#[derive(Default)]
pub struct Descriptor {
    next: AtomicU64,
    tasks: AtomicU64,
    reads: AtomicU64,
}

impl Descriptor {
    /// A member's part of one run: claim and run tasks until none is left.
    #[inline]
    pub fn claim_and_run(&self, work: &Work) {
        let tasks = self.tasks.load(Ordering::Relaxed);
        let reads = self.reads.load(Ordering::Relaxed);
        while self.next.fetch_add(1, Ordering::Relaxed) < tasks {
            work.task(reads);
        }
    }

    /// Posts a run of `tasks` tasks over `work_reads` reads; the team's fork barrier publishes it.
    #[inline]
    pub fn post(&self, work_reads: u64, tasks: u64) {
        self.tasks.store(tasks, Ordering::Relaxed);
        self.reads.store(reads_per_task(work_reads, tasks), Ordering::Relaxed);
        self.next.store(0, Ordering::Relaxed);
    }
}

/// `os`: one run on a hot team (`crate::runtimes::os::hot_team::with_hot_team`) whose job is
/// [`Descriptor::claim_and_run`] on `desc`.
pub fn os_run<J: Fn(usize) + Sync>(team: &mut HotTeam<'_, J>, desc: &Descriptor, work_reads: u64, tasks: u64) {
    desc.post(work_reads, tasks);
    team.region();
}

/// `rayon`: one run from inside the pool (`install`): a scope with `tasks` spawned tasks.
pub fn rayon_run(pool: &rayon::ThreadPool, work: &'static Work, work_reads: u64, tasks: u64) {
    let reads = reads_per_task(work_reads, tasks);
    pool.install(|| rayon_scope(tasks, &|| work.task(reads)));
}

/// `tokio`: one run as a parent task on a worker that spawns `tasks` tasks and awaits them all.
/// `handles` is lent to the parent and given back; it grows to `tasks` on the first run of a count
/// (a warm-up run), so timed runs do not allocate it.
pub fn tokio_run(
    rt: &::tokio::runtime::Runtime,
    handles: &mut Vec<::tokio::task::JoinHandle<()>>,
    work: &'static Work,
    work_reads: u64,
    tasks: u64,
) {
    let reads = reads_per_task(work_reads, tasks);
    let mut lent = std::mem::take(handles);
    lent.reserve(tasks as usize);
    *handles = on_worker(rt, async move {
        tokio_spawn_all(tasks, move || work.task(reads), &mut lent).await;
        lent
    });
}

/// `openmp`: one run is one call of the C kernel [`Team::grain`]: `work_reads` reads of a shared
/// `volatile int` split into `tasks` `omp task`s (the remainder spread one read each over the first
/// tasks, where the Rust runtimes drop it: at most `tasks − 1` reads), created by thread 0 inside
/// `single` and run by the team. Each thread counts its tasks; `super::tally::OmpTally` collects them.
pub fn omp_run(team: &Team, work_reads: u64, tasks: u64) {
    team.grain(work_reads, tasks);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtimes::os::hot_team::with_hot_team;
    use crate::runtimes::{rayon_rt, tokio_rt};

    fn cpus() -> Vec<usize> {
        let all = crate::machine::allowed_cpus();
        all[..all.len().min(2)].to_vec()
    }

    /// On every runtime one run executes exactly `tasks` tasks: the per-CPU counts add up to the task
    /// count, whatever CPUs ran them.
    #[test]
    fn per_cpu_counts_add_up_to_the_task_count() {
        let cpus = cpus();
        let work = Work::new(*cpus.iter().max().unwrap()).leak();
        let sum = |w: &Work| w.take_counts().iter().sum::<u64>();

        let desc = Descriptor::default();
        with_hot_team(
            &cpus,
            |_| desc.claim_and_run(work),
            |team| {
                for tasks in [1, 7, 1000] {
                    os_run(team, &desc, 10_000, tasks);
                    assert_eq!(sum(work), tasks, "os, {tasks} tasks");
                }
            },
        );

        let (pool, _) = rayon_rt::pool(&cpus).unwrap();
        for tasks in [1, 7, 1000] {
            rayon_run(&pool, work, 10_000, tasks);
            assert_eq!(sum(work), tasks, "rayon, {tasks} tasks");
        }

        let (rt, _) = tokio_rt::multi_thread(&cpus).unwrap();
        let mut handles = Vec::new();
        for tasks in [1, 7, 1000] {
            tokio_run(&rt, &mut handles, work, 10_000, tasks);
            assert_eq!(sum(work), tasks, "tokio, {tasks} tasks");
        }
        assert!(handles.capacity() >= 1000, "the handle vector comes back for reuse");
    }
}
