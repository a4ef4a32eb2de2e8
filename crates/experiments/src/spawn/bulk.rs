//! `spawn.bulk`: one construct of many empty tasks, executed by all the CPUs.

use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use overhead_harness::Harness;
use overhead_record::Metric;
use overhead_runtime_api::{Capability, RuntimeUnderTest};

use super::one_cpu_only;

/// Empty tasks per construct (Ben-Asher & Feitelson 1991 §6.3 spawned `ITER × proc_no` at once).
pub const TASKS: u64 = 1000;
/// `spawn.bulk`'s parameters: empty tasks per construct, and the team size.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct Params {
    tasks: u64,
    threads: usize,
}

/// Ben-Asher & Feitelson 1991 §6.3 (Fig. 6): `pparfor i; 1; lim` of `tasks` empty activities at once, run by the CPUs of
/// the point (1…CPUs); the time per spawn is the construct's time over `tasks` (`construct_ns` is the
/// whole construct). There is no contention from new descriptors, only from executing them. Per
/// runtime: `os` creates `tasks` kernel threads in one scope, thread `i` pinned to CPU `i mod CPUs`;
/// `rayon` one `scope` with `tasks` spawns from worker 0 of a pinned pool; `tokio` a parent task that
/// spawns `tasks` tasks and awaits them all; `fiber-*` (one CPU) `tasks` fiber spawns, then the joins.
/// The control is a batch without constructs (for `tokio`, the same parent task with nothing to spawn).
///
/// `openmp`: one `#pragma omp parallel` region of a pinned libgomp team in which one thread (`single`)
/// creates `tasks` empty `#pragma omp task`s, joined at the end of `single` ([`openmp::Team::bulk`]). Its
/// control is the same region and `single` looping `tasks` times without creating a task
/// ([`openmp::Team::single_loop`]), so the region's fork-join and the `single` cancel; what remains per
/// spawn is creating and queueing one task, running it (by any thread, at the barrier, or by its creator
/// once libgomp's queue is full), and the barrier's wait for the last task, less one empty iteration. The
/// control per construct is in `extra` as `control_construct_ns` (the other runtimes' control is empty).
pub struct Bulk;

/// What a `spawn.bulk` point reports beside its median (its `extra`; openmp adds its own
/// `control_construct_ns`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BulkResult {
    /// Tasks spawned per construct.
    pub tasks: f64,
    /// The whole construct: spawning and joining every task (ns).
    pub construct_ns: f64,
}

impl Bulk {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::spawn::BULK;
}

impl Experiment for Bulk {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Bulk::ID,
            summary: "one construct of 1000 empty tasks run by 1…CPUs CPUs; time per spawn",
            source: "Ben-Asher & Feitelson 1991 §6.3, Fig. 6",
            metric: Metric::PerOp,
            requires: &[Capability::ForkJoin],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn RuntimeUnderTest) -> Vec<Planned> {
        ctx.thread_counts(1)
            .into_iter()
            .map(|threads| {
                let params = Params { tasks: TASKS, threads };
                let spec = ctx.spec_of(self.id(), runtime, &params, ctx.team_cpus(threads));
                one_cpu_only(spec, runtime, threads)
            })
            .collect()
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let Params { tasks, .. } = point.params()?;
        anyhow::ensure!(tasks > 0, "{}: spawn.bulk needs at least one task", spec.name());
        let mut outcome = point.in_process(|r| r.fan_out())?.bulk(&spec.cpus, tasks, h)?;
        outcome.measurement = outcome.measurement.per(tasks as f64);
        let median = outcome.measurement.summary().map_or(f64::NAN, |s| s.median);
        Ok(outcome.with_result(&BulkResult { tasks: tasks as f64, construct_ns: median * tasks as f64 }))
    }
}
