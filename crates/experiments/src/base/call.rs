//! `base.call`: a call to a function the compiler may not inline.

use std::hint::black_box;

use crate::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use overhead_harness::Harness;
use overhead_record::Metric;
use overhead_runtime_api::Capability;

/// The callee: one argument in, one result out, nothing else.
#[inline(never)]
fn callee(x: u64) -> u64 {
    x.wrapping_add(1)
}

/// Souvatzis's "local call" row: a non-inlined call and return inside the control loop, against the
/// control loop alone.
pub struct Call;

impl Call {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::base::CALL;
}

impl Experiment for Call {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Call::ID,
            summary: "non-inlined function call and return, against the empty loop",
            source: "Souvatzis timing table, \"local call\"",
            metric: Metric::PerOp,
            requires: &[Capability::Context],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        ctx.single(self.id(), runtime)
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let test = |n: u64| {
            for i in 0..n {
                black_box(callee(black_box(i)));
            }
        };
        Ok(point.in_process(|r| r.context())?.in_context(h, Box::new(move |h| h.measure(test, empty_loop)))?.into())
    }
}
