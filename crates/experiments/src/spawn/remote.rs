//! `spawn.remote`: one CPU executes single-task spawns made by generators on the other CPUs.

use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use overhead_harness::{Harness, Mode};
use overhead_record::Metric;
use overhead_runtime_api::{Capability, RuntimeUnderTest};

/// `spawn.remote`'s parameters: threads that spawn onto the one executor CPU.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct Params {
    generators: usize,
}

/// Ben-Asher & Feitelson 1991 §6.2 (Fig. 5): the executor CPU (`cpus[0]`) runs nothing but the activities that
/// `generators` threads, pinned one per other CPU, keep spawning onto it, each generator spawning one
/// empty task and waiting for its end, over and over. The time is per spawn as the executor sees it:
/// a batch's time over the spawns of all generators (one generator: a full round trip each time; more:
/// the executor need not wait for the next). Against the generators' empty loop. Per runtime:
///
/// - `rayon`: a one-worker pool pinned to the executor CPU; generators call `install` of an empty
///   closure (inject the job, wake the worker, block on its latch).
/// - `tokio`: a multi-thread runtime whose only worker is pinned to the executor CPU; generators call
///   `Handle::spawn` of an empty task and `Handle::block_on` its `JoinHandle`.
/// - `os`: a queue to a pinned executor thread would be a message, not a spawn. Instead each generator
///   creates a kernel thread that moves itself to the executor CPU (`sched_setaffinity`) and ends, and
///   joins it: creation runs on the generator's CPU, so kernel threads need not bottleneck on the
///   executor the way a shared descriptor list does.
/// - `openmp`: the closest form ([`openmp::Team::remote`]): one region of a pinned team of
///   `generators + 1` threads, thread 0 (the executor, on `cpus[0]`, the timing thread) creating no task
///   and waiting at a barrier, where it runs queued tasks, while threads 1… create the batch's empty tasks
///   between them without waiting for each (OpenMP has no per-task join from another thread). OpenMP
///   cannot direct a task at one thread, so generators run tasks too; `extra.executor_share_pct` says
///   which share of all the test batches' tasks thread 0 ran. Per op: one task, against the same region
///   with the generators' loops empty ([`openmp::Team::remote_control`]); no `round_trip_ns`.
///
/// Needs two CPUs; fibers (one CPU) do not run it.
pub struct Remote;

impl Remote {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::spawn::REMOTE;
}

impl Experiment for Remote {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Remote::ID,
            summary: "single-task spawns onto one executor CPU from 1…CPUs−1 generators; time per spawn",
            source: "Ben-Asher & Feitelson 1991 §6.2, Fig. 5",
            metric: Metric::PerOp,
            requires: &[Capability::ForkJoin],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn RuntimeUnderTest) -> Vec<Planned> {
        let name = runtime.name();
        let counts = generator_counts(ctx);
        let reason = match runtime.one_thread() {
            Some(why) => Some(format!("{name} {why}; the executor and its generators need CPUs of their own")),
            None if counts.is_empty() => {
                Some(format!("needs 2 usable CPUs (an executor and a generator); this run may use {}", ctx.cpus.len()))
            }
            None => None,
        };
        if let Some(reason) = reason {
            let spec = ctx.spec_of(self.id(), runtime, &Params { generators: 1 }, vec![ctx.home_cpu()]);
            return vec![Planned::Skip(spec, reason)];
        }
        counts
            .into_iter()
            .map(|g| Planned::Run(ctx.spec_of(self.id(), runtime, &Params { generators: g }, ctx.team_cpus(g + 1))))
            .collect()
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let Params { generators } = point.params()?;
        anyhow::ensure!(
            spec.cpus.len() == generators + 1 && generators > 0,
            "{}: spawn.remote needs an executor CPU and one CPU per generator, got CPUs {:?}",
            spec.name(),
            spec.cpus
        );
        point.in_process(|r| r.fan_out())?.remote(spec.cpus[0], &spec.cpus[1..], h)
    }
}

/// Generator counts 1…CPUs−1: every count in `--full`, otherwise one fewer than each team of
/// [`PlanContext::thread_counts`] from 2 (the executor takes one CPU of the team: 1, one L3 domain's, one
/// package's and every CPU's less one; `--quick` 1 and every CPU's less one), so the points follow the
/// topology's levels, not the CPU count.
fn generator_counts(ctx: &PlanContext) -> Vec<usize> {
    let max = ctx.cpus.len().saturating_sub(1);
    let mut counts: Vec<usize> = match ctx.mode {
        Mode::Full => (1..=max).collect(),
        _ => ctx.thread_counts(2).into_iter().map(|team| team - 1).collect(),
    };
    if max >= 1 && !counts.contains(&max) {
        counts.push(max);
    }
    counts
}
