//! `sync.faa`: fetch-and-add on one shared variable vs. one variable per thread.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::experiments::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned};
use crate::harness::Harness;
use crate::record::{Metric, PointSpec};
use crate::runtimes::openmp;

/// One counter alone on a 128-byte block: two 64-byte lines, so the adjacent-line prefetcher cannot
/// make neighbours share.
#[repr(align(128))]
#[derive(Default)]
struct PaddedCounter(AtomicU64);

/// Seed 001 §8.1 (Fig. 8): every thread adds 1 to a counter in a loop, all on the same variable
/// (`variable:shared`, the line bounces between CPUs) or each on its own line (`variable:distinct`);
/// threads 1…CPUs, started together. The time is per operation of one thread while the others run
/// theirs (the slowest thread's time), against the empty loop.
///
/// `os` (`impl:hw`): Rust atomics on a harness thread team. `openmp` (`impl:omp_atomic`): `#pragma omp
/// atomic` in one parallel region of a pinned libgomp team, against the same region with an empty loop;
/// the region ends when its slowest thread does, so the time is again the slowest thread's.
pub struct Faa;

impl Experiment for Faa {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: "sync.faa",
            summary: "fetch-and-add (hw atomic, omp atomic), one shared line vs. one line per thread, threads 1…CPUs",
            source: "seed 001 §8.1, Fig. 8",
            metric: Metric::PerOp,
            runtimes: &["os", "openmp"],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &str) -> Vec<Planned> {
        let implementation = if runtime == "openmp" { "omp_atomic" } else { "hw" };
        let mut out = Vec::new();
        for variable in ["shared", "distinct"] {
            for threads in ctx.thread_counts(1) {
                let params = [
                    ("impl", implementation.to_string()),
                    ("variable", variable.into()),
                    ("threads", threads.to_string()),
                ];
                out.push(Planned::Run(ctx.spec(self.id(), runtime, &params, ctx.team_cpus(threads))));
            }
        }
        out
    }
    fn run(&self, spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
        let shared = spec.param("variable") == Some("shared");
        if spec.runtime == "openmp" {
            return omp_atomic(spec, h, if shared { openmp::Variable::Shared } else { openmp::Variable::Distinct });
        }
        let counters: Vec<PaddedCounter> = (0..spec.cpus.len()).map(|_| PaddedCounter::default()).collect();
        let report = h.measure_team(
            &spec.cpus,
            |thread, n| {
                let counter = &counters[if shared { 0 } else { thread }].0;
                for _ in 0..n {
                    counter.fetch_add(1, Ordering::Relaxed);
                }
            },
            |_, n| empty_loop(n),
        );
        let notes =
            report.pin_failures.iter().map(|(cpu, e)| format!("thread for CPU {cpu} not pinned: {e}")).collect();
        Ok(Outcome { measurement: report.measurement, notes, extra: Default::default(), details: Default::default() })
    }
}

/// The `openmp` point: `reps` `omp atomic` increments per thread in one region, against the region with an
/// empty loop (the region's fork-join cancels).
fn omp_atomic(spec: &PointSpec, h: &Harness, variable: openmp::Variable) -> anyhow::Result<Outcome> {
    let team = openmp::Team::pinned(&spec.cpus)?;
    let measurement = h.measure(
        |n| {
            std::hint::black_box(team.faa(n, variable));
        },
        |n| team.team_loop(n),
    );
    let mut outcome = Outcome::from(measurement);
    outcome.notes = team.notes();
    Ok(outcome)
}
