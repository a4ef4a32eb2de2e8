//! `spawn.remote`: one CPU executes single-task spawns made by generators on the other CPUs.

use std::hint::black_box;

use anyhow::Context as _;

use crate::experiments::context::runtime_of;
use crate::experiments::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned};
use crate::harness::{Harness, Mode};
use crate::machine::pin_current_thread;
use crate::record::{Metric, PointSpec};
use crate::runtimes::{openmp, rayon_rt, tokio_rt, Runtime};

use super::{measure_team_warm, pool_notes};
use crate::runtimes::Capability;
/// `spawn.remote`'s parameters: threads that spawn onto the one executor CPU.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct Params {
    generators: usize,
}

/// Seed 001 §6.2 (Fig. 5): the executor CPU (`cpus[0]`) runs nothing but the activities that
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

impl Experiment for Remote {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: "spawn.remote",
            summary: "single-task spawns onto one executor CPU from 1…CPUs−1 generators; time per spawn",
            source: "seed 001 §6.2, Fig. 5",
            metric: Metric::PerOp,
            requires: &[Capability::ForkJoin],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &str) -> Vec<Planned> {
        let counts = generator_counts(ctx);
        let fiber = matches!(Runtime::parse(runtime), Some(Runtime::Fiber(_)));
        if counts.is_empty() || fiber {
            let spec = ctx.spec_of(self.id(), runtime, &Params { generators: 1 }, vec![ctx.home_cpu()]);
            let reason = if fiber {
                format!("{runtime} runs on one CPU; the executor and its generators need CPUs of their own")
            } else {
                format!("needs 2 usable CPUs (an executor and a generator); this run may use {}", ctx.cpus.len())
            };
            return vec![Planned::Skip(spec, reason)];
        }
        counts
            .into_iter()
            .map(|g| {
                let spec = ctx.spec_of(self.id(), runtime, &Params { generators: g }, ctx.team_cpus(g + 1));
                Planned::Run(spec)
            })
            .collect()
    }
    fn run(&self, spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
        let Params { generators } = spec.params_as()?;
        anyhow::ensure!(
            spec.cpus.len() == generators + 1 && generators > 0,
            "{}: spawn.remote needs an executor CPU and one CPU per generator, got CPUs {:?}",
            spec.name(),
            spec.cpus
        );
        let executor = spec.cpus[0];
        let generators = &spec.cpus[1..];
        let mut notes = Vec::new();
        let report = match runtime_of(&spec.runtime)? {
            Runtime::Os => {
                let probe = std::thread::Builder::new().spawn(move || pin_current_thread(executor));
                if let Err(e) = probe.context("creating a thread")?.join().unwrap_or(Ok(())) {
                    notes.push(format!("a new thread could not move itself to CPU {executor}: {e}"));
                }
                measure_team_warm(h, generators, |_, n| {
                    for _ in 0..n {
                        let task = std::thread::spawn(move || {
                            let _ = pin_current_thread(executor);
                        });
                        black_box(task.join().ok());
                    }
                })
            }
            Runtime::Rayon => {
                let (pool, refused) = rayon_rt::pool(&[executor])?;
                notes.extend(pool_notes(&refused));
                measure_team_warm(h, generators, |_, n| {
                    for _ in 0..n {
                        pool.install(|| black_box(()));
                    }
                })
            }
            Runtime::Tokio => {
                let (rt, refused) = tokio_rt::multi_thread(&[executor])?;
                notes.extend(pool_notes(&refused));
                let handle = rt.handle();
                measure_team_warm(h, generators, |_, n| {
                    for _ in 0..n {
                        let task = handle.spawn(async { black_box(()) });
                        handle.block_on(task).expect("an empty tokio task panicked");
                    }
                })
            }
            Runtime::OpenMp => return omp_remote(spec, h),
            Runtime::Fiber(_) => return Err(crate::experiments::context::unimplemented_runtime(spec)),
        };
        let g = generators.len() as f64;
        let mut outcome = Outcome::from(report);
        outcome.notes.extend(notes);
        // Every generator ran a batch of n spawns at once: the executor ran g·n of them in that time.
        outcome.measurement = outcome.measurement.per(g);
        let median = outcome.measurement.summary().map_or(f64::NAN, |s| s.median);
        outcome.extra.insert("generators".into(), g);
        outcome.extra.insert("round_trip_ns".into(), median * g);
        Ok(outcome)
    }
}

/// The `openmp` point (see [`Remote`]): ns per task, with thread 0's share of the tasks.
///
/// Errors: no OpenMP in this build, or libgomp gave another team size.
fn omp_remote(spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
    // Made on the probe thread, pinned to the executor CPU: it is the team's master, thread 0.
    let team = openmp::Team::pinned(&spec.cpus)?;
    // Tasks run per thread over every test batch (sizing and warm-up included), summed untimed after each.
    let mut ran = vec![0u64; team.threads()];
    team.remote(1);
    let m = h.measure_with_reset(
        |n| team.remote(n),
        |n| team.remote_control(n),
        |_| ran.iter_mut().zip(team.tasks_per_thread()).for_each(|(sum, c)| *sum += c),
    );
    let share = executor_share_pct(&ran);
    let mut outcome = Outcome::from(m);
    outcome.notes = team.notes();
    outcome.notes.push(format!(
        "OpenMP cannot direct a task at one thread: the executor (thread 0, CPU {}) ran {share:.1}% of the tasks, \
         the generators the rest (at the barrier, or at once when libgomp's queue was full)",
        spec.cpus[0]
    ));
    outcome.extra.insert("generators".into(), (spec.cpus.len() - 1) as f64);
    outcome.extra.insert("executor_share_pct".into(), share);
    Ok(outcome)
}

/// Thread 0's share of the tasks counted per thread (thread 0 first), in percent; NaN when none ran.
fn executor_share_pct(per_thread: &[u64]) -> f64 {
    let total: u64 = per_thread.iter().sum();
    match (per_thread.first(), total) {
        (Some(&first), 1..) => 100.0 * first as f64 / total as f64,
        _ => f64::NAN,
    }
}

/// Generator counts 1…CPUs−1: every count in `--full`, otherwise powers of two and the largest.
fn generator_counts(ctx: &PlanContext) -> Vec<usize> {
    let max = ctx.cpus.len().saturating_sub(1);
    let mut counts: Vec<usize> = match ctx.mode {
        Mode::Full => (1..=max).collect(),
        _ => (0..usize::BITS).map(|s| 1usize << s).take_while(|&g| g <= max).collect(),
    };
    if max >= 1 && !counts.contains(&max) {
        counts.push(max);
    }
    counts
}
