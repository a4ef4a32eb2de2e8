//! `sync.faa`: fetch-and-add on one shared variable vs. one variable per thread, with the hardware's
//! atomic add and with Ben-Asher & Feitelson's own lock-based `faa`.

use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use overhead_harness::Harness;
use overhead_record::Metric;
use overhead_runtime_api::contention::{AtomicImpl, FetchAndAdd, Variable};
use overhead_runtime_api::{Capability, RuntimeUnderTest};

/// `sync.faa`'s parameters: `impl` is one the runtime offers ([`overhead_runtime_api::Offers::atomic`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Params {
    #[serde(rename = "impl")]
    implementation: AtomicImpl,
    variable: Variable,
    threads: usize,
}

/// Ben-Asher & Feitelson 1991 §8.1 (Fig. 8): every thread adds 1 to a counter in a loop, all on the same variable
/// (`variable:shared`, the line bounces between CPUs) or each on its own line (`variable:distinct`);
/// threads 1…CPUs, started together. The time is per operation of one thread while the others run
/// theirs (the slowest thread's time), against the empty loop.
///
/// `impl:hw` is the CPU's atomic add (`lock xadd` on x86-64); `impl:hashed_lock` is the study's own
/// implementation ([`HashedFaa`]): the address hashed to one of 256 test-and-set spin locks, the add
/// done under the lock, so adds to one variable serialise on its lock and adds to distinct variables
/// take distinct locks (each thread's padded counter has its own). Both run on a harness thread team (`os`).
/// `openmp` (`impl:omp_atomic`): `#pragma omp atomic` in one parallel region of a pinned libgomp team,
/// against the same region with an empty loop; the region ends when its slowest thread does, so the time
/// is again the slowest thread's.
pub struct Faa;

impl Faa {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::sync::FAA;
}

impl Experiment for Faa {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Faa::ID,
            summary: "fetch-and-add, hardware atomic vs. Ben-Asher & Feitelson's hashed spin locks vs. omp atomic, one shared \
                      line vs. one line per thread, threads 1…CPUs",
            source: "Ben-Asher & Feitelson 1991 §8.1, Fig. 8",
            metric: Metric::PerOp,
            requires: &[Capability::Atomic],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn RuntimeUnderTest) -> Vec<Planned> {
        let mut out = Vec::new();
        for &implementation in runtime.offers().atomic.has().unwrap_or_default() {
            for variable in [Variable::Shared, Variable::Distinct] {
                for threads in ctx.thread_counts(1) {
                    let params = Params { implementation, variable, threads };
                    out.push(Planned::Run(ctx.spec_of(self.id(), runtime, &params, ctx.team_cpus(threads))));
                }
            }
        }
        out
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let Params { implementation, variable, .. } = point.params()?;
        point.in_process(|r| r.contention())?.fetch_and_add(FetchAndAdd { implementation, variable }, &spec.cpus, h)
    }
}
