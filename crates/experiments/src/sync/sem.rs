//! `sync.sem`: semaphore P only, V only, a pair, and a handoff that requires a context switch.

use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use overhead_harness::Harness;
use overhead_record::Metric;
use overhead_runtime_api::primitives::SemOp;
use overhead_runtime_api::Capability;

/// The four semaphore rows of Souvatzis's table. `op:p`: P on a semaphore with plenty of permits (never
/// blocks); `op:v`: V with no waiter; `op:pair`: V then P; `op:switch`: two activities on one CPU pass a
/// permit back and forth through two semaphores, each handoff a V that wakes a blocked P plus a context
/// switch (reported per handoff, half a round trip). `os` uses POSIX `sem_t` on two threads pinned to
/// the same CPU, `fiber-*` the runtime's semaphores, `tokio` `tokio::sync::Semaphore`.
pub struct Sem;

impl Sem {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::sync::SEM;
}

impl Experiment for Sem {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Sem::ID,
            summary: "semaphore P only, V only, P+V pair, and a handoff requiring a context switch",
            source: "Souvatzis timing table, \"semaphore P only / V only / pair / requiring context switch\"",
            metric: Metric::PerOp,
            requires: &[Capability::Semaphore],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        let home = ctx.home_cpu();
        SemOp::ALL
            .into_iter()
            .map(|op| {
                let cpus = if op == SemOp::Switch { vec![home, home] } else { vec![home] };
                Planned::Run(ctx.spec_of(self.id(), runtime, &Params { op }, cpus))
            })
            .collect()
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let Params { op } = point.params()?;
        let m = point.in_process(|r| r.primitives())?.semaphore(op, spec.cpus[spec.cpus.len() - 1], h)?;
        // A switch round trip is two handoffs; the row is per handoff.
        Ok(if op == SemOp::Switch { m.per(2.0) } else { m }.into())
    }
}

/// `sync.sem`'s parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Params {
    op: SemOp,
}
