//! `msg.call`: an inter-task call, answered in the caller's activity or by a new one.

use crate::experiments::context::primitives_of;
use crate::experiments::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned};
use crate::harness::Harness;
use crate::record::{Metric, PointSpec};
use crate::runtimes::Capability;

/// Seed 004's "interresource call, no new process" and "…, new process". `new_task:no`: the call goes
/// through an opaque operation reference and runs in the caller's activity (`os`, `fiber-*`: a
/// `&dyn Fn`; `tokio`: awaiting a boxed `dyn Future`, the async-trait shape). `new_task:yes`: the
/// callee runs in a new activity and the caller waits for its result (`os`: a thread, spawn + join;
/// `fiber-*`: `spawn` + `join`; `tokio`: `tokio::spawn` + awaiting the `JoinHandle`). Per call.
pub struct Call;

impl Experiment for Call {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: "msg.call",
            summary: "inter-task call answered in the caller's activity, or by a new activity",
            source: "seed 004 timing table, \"interresource call, no new process / new process\"",
            metric: Metric::Rtt,
            requires: &[Capability::Call],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &str) -> Vec<Planned> {
        ["no", "yes"]
            .iter()
            .map(|new| {
                Planned::Run(ctx.spec(self.id(), runtime, &[("new_task", new.to_string())], vec![ctx.home_cpu()]))
            })
            .collect()
    }
    fn run(&self, spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
        let new_task = match spec.param("new_task") {
            Some("no") => false,
            Some("yes") => true,
            other => anyhow::bail!("unknown msg.call new_task {other:?}; expected no or yes"),
        };
        Ok(primitives_of(spec)?.call(new_task, h)?.into())
    }
}
