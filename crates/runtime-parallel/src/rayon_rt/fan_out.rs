//! Fork-join fan-out on rayon's pool (Ben-Asher & Feitelson 1991 §6–7): `broadcast`, and a `scope` spawning jobs.

use std::hint::black_box;

use super::Rayon;
use overhead_harness::empty_loop;
use overhead_harness::Harness;
use overhead_record::Outcome;
use overhead_runtime_api::fan_out::{
    measure_team_warm, measure_warm, per_executor_spawn, pool_notes, FanOut, ForkJoinMechanism,
};
use overhead_runtime_api::grain_sweep::{GrainSweep, Granularity, Remarks, Sweep};
use overhead_runtime_api::grain_work::reads_per_task;
use overhead_runtime_api::offer::not_offered;

/// Called on a worker of the pool (inside `install`): one `rayon::scope` that spawns `n` jobs of `f`
/// (one heap job each, pushed on the caller's deque and stolen by idle workers) and returns when all
/// have run. The caller runs jobs too while it waits, as rayon's scope does.
pub fn scope<F: Fn() + Sync>(n: u64, f: &F) {
    rayon::scope(|s| {
        for _ in 0..n {
            s.spawn(move |_| f());
        }
    });
}

/// An empty job body.
fn empty() {
    black_box(());
}

impl FanOut for Rayon {
    /// `broadcast`: `rayon::broadcast` from worker 0, one job on every worker of a pinned pool; `scope`:
    /// a `rayon::scope` spawning one job per CPU (idle workers steal them, or not).
    fn fork_join(&self, mechanism: ForkJoinMechanism, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome> {
        use ForkJoinMechanism as M;
        let broadcast = match mechanism {
            M::Broadcast => true,
            M::Scope => false,
            other @ (M::Spawn | M::HotTeam | M::Parallel | M::Pool) => {
                return Err(not_offered("rayon", "mechanism", other))
            }
        };
        let (pool, refused) = super::pool(cpus)?;
        let tasks = cpus.len() as u64;
        let m = pool.install(|| {
            measure_warm(
                h,
                |n| {
                    for _ in 0..n {
                        if broadcast {
                            rayon::broadcast(|_| empty());
                        } else {
                            scope(tasks, &empty);
                        }
                    }
                },
                empty_loop,
            )
        });
        let mut outcome = Outcome::from(m);
        outcome.notes.extend(pool_notes(&refused));
        Ok(outcome)
    }

    /// One `scope` with `tasks` spawns from worker 0 of a pinned pool; the control is a batch without
    /// constructs.
    fn bulk(&self, cpus: &[usize], tasks: u64, h: &Harness) -> anyhow::Result<Outcome> {
        let (pool, refused) = super::pool(cpus)?;
        let m = pool.install(|| measure_warm(h, |n| (0..n).for_each(|_| scope(tasks, &empty)), |_| {}));
        let mut outcome = Outcome::from(m);
        outcome.notes.extend(pool_notes(&refused));
        Ok(outcome)
    }

    /// A one-worker pool pinned to the executor CPU; generators call `install` of an empty closure
    /// (inject the job, wake the worker, block on its latch).
    fn remote(&self, executor: usize, generators: &[usize], h: &Harness) -> anyhow::Result<Outcome> {
        let (pool, refused) = super::pool(&[executor])?;
        let notes = pool_notes(&refused).into_iter().collect();
        let report = measure_team_warm(h, generators, |_, n| {
            for _ in 0..n {
                pool.install(|| black_box(()));
            }
        });
        Ok(per_executor_spawn(report, generators.len(), notes))
    }
}

impl GrainSweep for Rayon {
    /// One run from inside the pool (`install`): a scope spawning every task from worker 0.
    fn granularity(&self, run: &Granularity<'_>, _h: &Harness, sweep: &mut Sweep<'_>) -> anyhow::Result<Remarks> {
        let (pool, refused) = super::pool(run.cpus)?;
        let (work, work_reads) = (run.work, run.work_reads);
        sweep(work, &mut |tasks| {
            let reads = reads_per_task(work_reads, tasks);
            pool.install(|| scope(tasks, &|| work.task(reads)));
        });
        Ok(Remarks { notes: pool_notes(&refused).into_iter().collect(), ..Remarks::default() })
    }
}
