//! `sync.barrier`: one barrier episode across a team of threads.

use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use overhead_harness::Harness;
use overhead_record::Metric;
use overhead_runtime_api::contention::BarrierImpl;
use overhead_runtime_api::{Capability, RuntimeUnderTest};

/// `sync.barrier`'s parameters: `impl` is one the runtime offers ([`overhead_runtime_api::Offers::barrier`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Params {
    #[serde(rename = "impl")]
    implementation: BarrierImpl,
    threads: usize,
}

/// Ben-Asher & Feitelson 1991 §8.2 experiment 1 (Fig. 9): T threads, one per CPU, pass a barrier over and over; the time
/// per episode (slowest thread), against the empty loop. Implementations: std's `Barrier` (mutex and
/// condition variable), a sense-reversing spin barrier (the study's counter-and-flag `sync`) and POSIX
/// `pthread_barrier_wait` (glibc's futex barrier; `impl:pthread`) for `os`; `#pragma omp barrier` in one
/// region of a pinned libgomp team for `openmp` (EPCC's BARRIER), against the same region with an empty loop.
pub struct Barrier;

impl Barrier {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::sync::BARRIER;
}

impl Experiment for Barrier {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Barrier::ID,
            summary: "barrier episode, std Barrier vs. spin barrier vs. pthread_barrier_wait vs. omp barrier, \
                      threads 2…CPUs",
            source: "Ben-Asher & Feitelson 1991 §8.2 experiment 1, Fig. 9; EPCC syncbench BARRIER",
            metric: Metric::PerOp,
            requires: &[Capability::Barrier],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn RuntimeUnderTest) -> Vec<Planned> {
        let counts = ctx.thread_counts(2);
        let mut out = Vec::new();
        for &implementation in runtime.offers().barrier.has().unwrap_or_default() {
            let params = |threads| Params { implementation, threads };
            if counts.is_empty() {
                let spec = ctx.spec_of(self.id(), runtime, &params(2), ctx.team_cpus(1));
                out.push(Planned::Skip(spec, format!("needs 2 usable CPUs; this run may use {}", ctx.cpus.len())));
            }
            for &threads in &counts {
                out.push(Planned::Run(ctx.spec_of(self.id(), runtime, &params(threads), ctx.team_cpus(threads))));
            }
        }
        out
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let Params { implementation, .. } = point.params()?;
        point.in_process(|r| r.contention())?.barrier(implementation, &spec.cpus, h)
    }
}
