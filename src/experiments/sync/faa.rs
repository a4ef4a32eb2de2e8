//! `sync.faa`: fetch-and-add on one shared variable vs. one variable per thread.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::experiments::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned, OS_ONLY};
use crate::harness::Harness;
use crate::record::{Metric, PointSpec};

/// One counter alone on a 128-byte block: two 64-byte lines, so the adjacent-line prefetcher cannot
/// make neighbours share.
#[repr(align(128))]
#[derive(Default)]
struct PaddedCounter(AtomicU64);

/// Seed 001 §8.1 (Fig. 8): every thread adds 1 to a counter in a loop, all on the same variable
/// (`variable:shared`, the line bounces between CPUs) or each on its own line (`variable:distinct`);
/// threads 1…CPUs, started together. The time is per operation of one thread while the others run
/// theirs (the slowest thread's time), against the empty loop.
pub struct Faa;

impl Experiment for Faa {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: "sync.faa",
            summary: "hardware fetch-and-add, one shared line vs. one line per thread, threads 1…CPUs",
            source: "seed 001 §8.1, Fig. 8",
            metric: Metric::PerOp,
            runtimes: OS_ONLY,
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &str) -> Vec<Planned> {
        let mut out = Vec::new();
        for variable in ["shared", "distinct"] {
            for threads in ctx.thread_counts(1) {
                let params =
                    [("impl", "hw".to_string()), ("variable", variable.into()), ("threads", threads.to_string())];
                out.push(Planned::Run(ctx.spec(self.id(), runtime, &params, ctx.team_cpus(threads))));
            }
        }
        out
    }
    fn run(&self, spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
        let shared = spec.param("variable") == Some("shared");
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
