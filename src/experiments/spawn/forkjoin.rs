//! `spawn.forkjoin`: a fork-join episode of one empty task per CPU.

use std::hint::black_box;

use crate::experiments::context::{in_context, runtime_of};
use crate::experiments::fits::{fit_series, FitSpec, Model};
use crate::experiments::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned};
use crate::harness::{Harness, Measurement};
use crate::record::{FitRecord, Metric, PointRecord, PointSpec};
use crate::runtimes::os::hot_team::with_hot_team;
use crate::runtimes::{openmp, rayon_rt, tokio_rt, Runtime};

use super::fanout::{fiber_spawn_all, on_worker, os_pinning_notes, os_threads, tokio_spawn_all};
use super::{measure_warm, one_cpu_only, pool_notes};
use crate::runtimes::Capability;
/// `spawn.forkjoin`'s parameters: the runtime's fan-out mechanism and the team size.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Params {
    mechanism: String,
    threads: usize,
}

/// Seed 001 §6.1 (Fig. 4): `lparfor i; 1; proc_no` of empty activities, repeated, the empty loop
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

impl Experiment for ForkJoin {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: "spawn.forkjoin",
            summary: "fork-join episode of one empty task per CPU, CPUs 1…N: threads (spawn, hot team), rayon, tokio, \
                      omp parallel",
            source: "seed 001 §6.1, Fig. 4; EPCC syncbench PARALLEL",
            metric: Metric::PerOp,
            requires: &[Capability::ForkJoin],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &str) -> Vec<Planned> {
        let mechanisms: &[&str] = match runtime {
            "os" => &["spawn", "hot_team"],
            "rayon" => &["broadcast", "scope"],
            "openmp" => &["parallel"],
            _ => &["spawn"],
        };
        let mut out = Vec::new();
        for mechanism in mechanisms {
            for threads in ctx.thread_counts(1) {
                let params = Params { mechanism: mechanism.to_string(), threads };
                let spec = ctx.spec_of(self.id(), runtime, &params, ctx.team_cpus(threads));
                out.push(one_cpu_only(spec, runtime, threads));
            }
        }
        out
    }
    fn run(&self, spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
        let cpus = spec.cpus.clone();
        let tasks = cpus.len() as u64;
        let empty = || {
            black_box(());
        };
        let mut notes = Vec::new();
        let Params { mechanism, .. } = spec.params_as()?;
        let m: Measurement = match (runtime_of(&spec.runtime)?, mechanism.as_str()) {
            (Runtime::Os, "spawn") => {
                notes = os_pinning_notes(&cpus)?;
                measure_warm(
                    h,
                    |n| {
                        for _ in 0..n {
                            os_threads(&cpus, tasks, &empty);
                        }
                    },
                    empty_loop,
                )
            }
            (Runtime::Os, "hot_team") => {
                let (m, refused) = with_hot_team(
                    &cpus,
                    |_| empty(),
                    |team| {
                        measure_warm(
                            h,
                            |n| {
                                for _ in 0..n {
                                    team.region();
                                }
                            },
                            empty_loop,
                        )
                    },
                );
                notes.extend(refused.iter().map(|(cpu, e)| format!("team thread for CPU {cpu} not pinned: {e}")));
                m
            }
            (Runtime::Rayon, mechanism @ ("broadcast" | "scope")) => {
                let (pool, refused) = rayon_rt::pool(&cpus)?;
                let broadcast = mechanism == "broadcast";
                let m = pool.install(|| {
                    measure_warm(
                        h,
                        |n| {
                            for _ in 0..n {
                                if broadcast {
                                    rayon::broadcast(|_| empty());
                                } else {
                                    super::fanout::rayon_scope(tasks, &empty);
                                }
                            }
                        },
                        empty_loop,
                    )
                });
                notes.extend(pool_notes(&refused));
                m
            }
            (Runtime::Tokio, "spawn") => {
                let (rt, refused) = tokio_rt::multi_thread(&cpus)?;
                // The parent task is started once per batch, in the test and in the control alike; its
                // handle vector is allocated once per batch, outside the episodes.
                let m = measure_warm(
                    h,
                    |n| {
                        on_worker(&rt, async move {
                            let mut handles = Vec::with_capacity(tasks as usize);
                            for _ in 0..n {
                                tokio_spawn_all(tasks, empty, &mut handles).await;
                            }
                        })
                    },
                    |n| on_worker(&rt, async move { empty_loop(n) }),
                );
                notes.extend(pool_notes(&refused));
                m
            }
            (Runtime::OpenMp, "parallel") => {
                // Made here, on the probe thread pinned to cpus[0]: it is the team's master (thread 0).
                let team = openmp::Team::pinned(&cpus)?;
                let m = measure_warm(h, |n| team.forkjoin(n), |n| team.empty_loop(n));
                notes = team.notes();
                m
            }
            (Runtime::Fiber(backend), "spawn") => in_context(Runtime::Fiber(backend), h, move |h| {
                let mut handles = Vec::with_capacity(tasks as usize);
                measure_warm(
                    h,
                    |n| {
                        for _ in 0..n {
                            fiber_spawn_all(tasks, empty, &mut handles);
                        }
                    },
                    empty_loop,
                )
            })?,
            (_, other) => anyhow::bail!("spawn.forkjoin: runtime {} has no mechanism {other:?}", spec.runtime),
        };
        let mut outcome = Outcome::from(m);
        outcome.notes = notes;
        let median = outcome.measurement.summary().map_or(f64::NAN, |s| s.median);
        outcome.extra.insert("tasks".into(), tasks as f64);
        outcome.extra.insert("per_spawn_ns".into(), median / tasks as f64);
        Ok(outcome)
    }
    /// Seed 001 found the episode "slightly superlinear" in the PEs: `a + b·threads` per mechanism shows
    /// the per-CPU increment.
    fn fits(&self, points: &[&PointRecord]) -> Vec<FitRecord> {
        fit_series(points, FitSpec { x: "threads", x_unit: "CPUs, one task each", model: Model::Linear })
    }
}
