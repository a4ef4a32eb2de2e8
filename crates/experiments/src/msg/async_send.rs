//! `msg.async`: an asynchronous send and its receive, with no context switch.

use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use overhead_harness::Harness;
use overhead_record::Metric;
use overhead_runtime_api::Capability;

/// Souvatzis's "asynchronous send/receive": one activity sends a message to a channel and receives it
/// back itself, so the receive never blocks and nothing switches. `os`: `std::sync::mpsc::channel`;
/// `fiber-*`: the runtime's channel; `tokio`: `tokio::sync::mpsc::unbounded_channel`;
/// `mpi`: one rank, MPI_Isend to itself, MPI_Recv, MPI_Wait. Per send + receive.
pub struct AsyncSend;

impl AsyncSend {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::msg::ASYNC;
}

impl Experiment for AsyncSend {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: AsyncSend::ID,
            summary: "asynchronous send + receive of a u64 on one activity, no switch",
            source: "Souvatzis timing table, \"asynchronous send/receive\"",
            metric: Metric::PerOp,
            requires: &[Capability::Channel],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        super::single_per_impl(ctx, self.id(), runtime)
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let super::ImplParams { implementation } = point.params()?;
        Ok(point.in_process(|r| r.messages())?.async_message(implementation, h)?.into())
    }
    /// The other rank of a runtime launched as MPI ranks (`mpi`): follows rank 0's batches.
    fn follow(&self, point: &Point<'_>) -> anyhow::Result<()> {
        point.in_process(|r| r.messages())?.follow()
    }
}
