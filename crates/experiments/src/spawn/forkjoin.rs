//! `spawn.forkjoin`: a fork-join episode of one empty task per CPU.

use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use overhead_harness::Harness;
use overhead_record::Metric;
use overhead_runtime_api::fan_out::ForkJoinMechanism;
use overhead_runtime_api::{Capability, RuntimeUnderTest};

use super::one_cpu_only;

/// `spawn.forkjoin`'s parameters: the runtime's fan-out mechanism and the team size.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct Params {
    mechanism: ForkJoinMechanism,
    threads: usize,
}

/// Ben-Asher & Feitelson 1991 §6.1 (Fig. 4): `lparfor i; 1; proc_no` of empty activities, repeated, the empty loop
/// subtracted; the time per episode (fork, one empty task per CPU, join) for 1…CPUs CPUs, and per
/// spawn (`per_spawn_ns`, the episode over the task count). Mechanisms (`mechanism`):
///
/// - `os`/`spawn`: `std::thread::scope` creates one kernel thread per CPU, each pins itself to its CPU,
///   and the parent joins them all — what a kernel-thread fork-join costs.
/// - `os`/`hot_team`: threads created once and pinned, woken per episode through a spin barrier, the
///   parent being member 0 (an OpenMP hot team with active waiting; EPCC syncbench PARALLEL).
/// - `rayon`/`broadcast`: `rayon::broadcast` from worker 0, one job on every worker of a pinned pool;
///   `rayon`/`scope`: a `rayon::scope` spawning one job per CPU (idle workers steal them, or not).
/// - `tokio`/`spawn`: a parent task on the multi-thread runtime spawns one task per worker and awaits
///   every `JoinHandle`.
/// - `openmp`/`parallel`: an empty `#pragma omp parallel` region of a pinned libgomp team
///   ([`openmp::Team::forkjoin`]), against the same C loop without the region ([`openmp::Team::empty_loop`]):
///   EPCC syncbench PARALLEL, the region's fork (waking the pool) and join (its end barrier).
/// - `fiber-*`/`spawn`: spawn + join of one fiber; fibers run on one CPU, so only `threads:1` runs.
pub struct ForkJoin;

/// What a `spawn.forkjoin` point reports beside its median (its `extra`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ForkJoinResult {
    /// Activities per episode: one per CPU of the point.
    pub tasks: f64,
    /// The episode's time per activity (ns).
    pub per_spawn_ns: f64,
}

impl ForkJoin {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::spawn::FORKJOIN;
}

impl Experiment for ForkJoin {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: ForkJoin::ID,
            summary: "fork-join episode of one empty task per CPU, CPUs 1…N: threads (spawn, hot team), rayon, tokio, \
                      omp parallel",
            source: "Ben-Asher & Feitelson 1991 §6.1, Fig. 4; EPCC syncbench PARALLEL",
            metric: Metric::PerOp,
            requires: &[Capability::ForkJoin],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn RuntimeUnderTest) -> Vec<Planned> {
        let mut out = Vec::new();
        for &mechanism in runtime.offers().fork_join.has().unwrap_or_default() {
            for threads in ctx.thread_counts(1) {
                let params = Params { mechanism, threads };
                let spec = ctx.spec_of(self.id(), runtime, &params, ctx.team_cpus(threads));
                out.push(one_cpu_only(spec, runtime, threads));
            }
        }
        out
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let Params { mechanism, .. } = point.params()?;
        let outcome = point.in_process(|r| r.fan_out())?.fork_join(mechanism, &spec.cpus, h)?;
        let tasks = spec.cpus.len() as f64;
        let median = outcome.measurement.summary().map_or(f64::NAN, |s| s.median);
        Ok(outcome.with_result(&ForkJoinResult { tasks, per_spawn_ns: median / tasks }))
    }
}
