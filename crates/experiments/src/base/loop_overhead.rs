//! `base.loop`: the cost of one iteration of the harness's own control loop.

use crate::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use overhead_harness::Harness;
use overhead_record::Metric;
use overhead_runtime_api::Capability;

/// Souvatzis's "loop control overhead" row: a counted loop whose body only keeps its index alive,
/// against a control that runs no loop at all (so only the two clock reads cancel).
pub struct LoopOverhead;

impl LoopOverhead {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::base::LOOP;
}

impl Experiment for LoopOverhead {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: LoopOverhead::ID,
            summary: "one iteration of the control loop, against no loop",
            source: "Souvatzis timing table, \"loop control overhead\"",
            metric: Metric::PerOp,
            requires: &[Capability::Context],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        ctx.single(self.id(), runtime)
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        Ok(point.in_process(|r| r.context())?.in_context(h, Box::new(|h| h.measure(empty_loop, |_| {})))?.into())
    }
}
