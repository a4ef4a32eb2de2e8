//! `msg.call`: an inter-task call, answered in the caller's activity or by a new one.

use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use overhead_harness::Harness;
use overhead_record::Metric;
use overhead_runtime_api::primitives::NewTask;
use overhead_runtime_api::Capability;

/// `msg.call`'s parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Params {
    new_task: NewTask,
}

/// Souvatzis's "interresource call, no new process" and "…, new process". `new_task:no`: the call goes
/// through an opaque operation reference and runs in the caller's activity (`os`, `fiber-*`: a
/// `&dyn Fn`; `tokio`: awaiting a boxed `dyn Future`, the async-trait shape). `new_task:yes`: the
/// callee runs in a new activity and the caller waits for its result (`os`: a thread, spawn + join;
/// `fiber-*`: `spawn` + `join`; `tokio`: `tokio::spawn` + awaiting the `JoinHandle`). Per call.
pub struct Call;

impl Call {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::msg::CALL;
}

impl Experiment for Call {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Call::ID,
            summary: "inter-task call answered in the caller's activity, or by a new activity",
            source: "Souvatzis timing table, \"interresource call, no new process / new process\"",
            metric: Metric::Rtt,
            requires: &[Capability::Call],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        [NewTask::No, NewTask::Yes]
            .into_iter()
            .map(|new_task| Planned::Run(ctx.spec_of(self.id(), runtime, &Params { new_task }, vec![ctx.home_cpu()])))
            .collect()
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let params: Params = point.params()?;
        Ok(point.in_process(|r| r.primitives())?.call(params.new_task, h)?.into())
    }
}
