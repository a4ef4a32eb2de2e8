//! `base.loop`: the cost of one iteration of the harness's own control loop.

use crate::experiments::{empty_loop, Experiment, Outcome, PlanContext, Planned};
use crate::harness::Harness;
use crate::record::{Metric, PointSpec};

/// Seed 004's "loop control overhead" row: a counted loop whose body only keeps its index alive,
/// against a control that runs no loop at all (so only the two clock reads cancel).
pub struct LoopOverhead;

impl Experiment for LoopOverhead {
    fn id(&self) -> &'static str {
        "base.loop"
    }
    fn summary(&self) -> &'static str {
        "one iteration of the control loop, against no loop"
    }
    fn source(&self) -> &'static str {
        "seed 004 timing table, \"loop control overhead\""
    }
    fn metric(&self) -> Metric {
        Metric::PerOp
    }
    fn points(&self, ctx: &PlanContext, runtime: &str) -> Vec<Planned> {
        vec![Planned::Run(ctx.spec(self.id(), runtime, &[], vec![ctx.home_cpu()]))]
    }
    fn run(&self, _spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
        Ok(h.measure(empty_loop, |_| {}).into())
    }
}
