//! `msg.switch`: message passing that requires a context switch.

use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use overhead_harness::Harness;
use overhead_record::Metric;
use overhead_runtime_api::Capability;

/// Souvatzis's "message passing requiring context switch": the timed activity sends to a partner that
/// is blocked receiving, then blocks receiving the partner's echo; each message wakes a blocked
/// receiver and switches to it. Reported per message (half a round trip). `os`: two threads pinned to
/// the same CPU with `std::sync::mpsc`; `fiber-*`: two fibers and the runtime's channels; `tokio`: two
/// tasks and unbounded mpsc channels; `mpi`: two ranks on the same CPU, MPI_Send/MPI_Recv ping-pong of 8 bytes,
/// with OpenMPI told to yield while idle (a rank that polled would hold the CPU for its time slice).
pub struct Switch;

impl Switch {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::msg::SWITCH;
}

impl Experiment for Switch {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Switch::ID,
            summary: "message to a blocked receiver and its echo back, per message (half a round trip)",
            source: "Souvatzis timing table, \"message passing requiring context switch\"",
            metric: Metric::OneWay,
            requires: &[Capability::MessageSwitch],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        super::per_impl(runtime.offers().message_switch, |p| ctx.same_cpu_pair(self.id(), runtime, p))
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let super::ImplParams { implementation } = point.params()?;
        Ok(point.in_process(|r| r.messages())?.message_round_trip(implementation, spec.cpus[1], h)?.per(2.0).into())
    }
    /// The other rank of a runtime launched as MPI ranks (`mpi`): follows rank 0's batches.
    fn follow(&self, point: &Point<'_>) -> anyhow::Result<()> {
        point.in_process(|r| r.messages())?.follow()
    }
}
