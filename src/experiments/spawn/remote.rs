//! `spawn.remote`: one CPU executes single-task spawns made by generators on the other CPUs.

use std::hint::black_box;

use anyhow::Context as _;

use crate::experiments::context::runtime_of;
use crate::experiments::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned};
use crate::harness::{Harness, Mode};
use crate::machine::pin_current_thread;
use crate::record::{Metric, PointSpec};
use crate::runtimes::{rayon_rt, tokio_rt, Runtime};

use super::{measure_team_warm, pool_notes, SEED_001_RUNTIMES};

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
            runtimes: SEED_001_RUNTIMES,
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &str) -> Vec<Planned> {
        let counts = generator_counts(ctx);
        let fiber = matches!(Runtime::parse(runtime), Some(Runtime::Fiber(_)));
        if counts.is_empty() || fiber {
            let spec = ctx.spec(self.id(), runtime, &[("generators", "1".into())], vec![ctx.home_cpu()]);
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
                let spec = ctx.spec(self.id(), runtime, &[("generators", g.to_string())], ctx.team_cpus(g + 1));
                Planned::Run(spec)
            })
            .collect()
    }
    fn run(&self, spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
        anyhow::ensure!(spec.cpus.len() >= 2, "spawn.remote needs an executor CPU and at least one generator CPU");
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
            Runtime::Fiber(_) | Runtime::OpenMp => {
                return Err(crate::experiments::context::unimplemented_runtime(spec))
            }
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
