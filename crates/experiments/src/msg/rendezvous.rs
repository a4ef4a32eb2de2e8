//! `msg.rendezvous`: a synchronous call answered by a server activity.

use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use overhead_harness::Harness;
use overhead_record::Metric;
use overhead_runtime_api::Capability;

/// Souvatzis's "rendezvous" (SR's `call` answered by an `in` statement): the client blocks until a
/// server activity has received the request and replied. `os`: a server thread on the same CPU and two
/// zero-capacity `sync_channel`s (true rendezvous); `fiber-*`: the runtime's rendezvous; `tokio`: a
/// server task, an mpsc request queue and a `oneshot` reply per call (tokio's idiom); `mpi`: two ranks on the
/// same CPU, MPI_Ssend of the request, MPI_Recv of the reply. Per call.
pub struct Rendezvous;

impl Rendezvous {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::msg::RENDEZVOUS;
}

impl Experiment for Rendezvous {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Rendezvous::ID,
            summary: "synchronous call answered by a server activity (request, accept, reply)",
            source: "Souvatzis timing table, \"rendezvous\"",
            metric: Metric::Rtt,
            requires: &[Capability::Rendezvous],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        super::per_impl(runtime.offers().rendezvous, |p| ctx.same_cpu_pair(self.id(), runtime, p))
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let super::ImplParams { implementation } = point.params()?;
        let mut outcome: Outcome =
            point.in_process(|r| r.messages())?.rendezvous(implementation, spec.cpus[1], h)?.into();
        outcome.notes.extend(implementation.wait_strategy().map(str::to_owned));
        Ok(outcome)
    }
    /// The other rank of a runtime launched as MPI ranks (`mpi`): follows rank 0's batches.
    fn follow(&self, point: &Point<'_>) -> anyhow::Result<()> {
        point.in_process(|r| r.messages())?.follow()
    }
}
