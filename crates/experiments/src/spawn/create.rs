//! `spawn.create`: create an empty activity and wait for its end.

use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use overhead_harness::Harness;
use overhead_record::Metric;
use overhead_runtime_api::primitives::SpawnKind;
use overhead_runtime_api::{Capability, RuntimeUnderTest};

/// `spawn.create`'s parameters: `kind` is one the runtime offers ([`overhead_runtime_api::Offers::spawn_join`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Params {
    kind: SpawnKind,
}

/// Souvatzis's "process create/destroy" for kernel activities: `std::thread::spawn` of an empty closure
/// plus `join`, and `fork` of a child that `_exit`s plus `waitpid` (lmbench's `lat_proc fork`).
/// The new activity inherits the creator's CPU, so the point measures creation on one CPU. For the
/// fiber runtimes: `spawn` of an empty fiber plus `join` (a pooled stack, two switches); for tokio:
/// `tokio::spawn` of an empty task plus awaiting its `JoinHandle` (`kind:task`).
pub struct Create;

impl Create {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::spawn::CREATE;
}

impl Experiment for Create {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Create::ID,
            summary: "create + join an empty thread; fork + wait a process; spawn + join a fiber or tokio task",
            source: "Souvatzis timing table, \"process create/destroy\"; lmbench lat_proc fork",
            metric: Metric::PerOp,
            requires: &[Capability::SpawnJoin],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn RuntimeUnderTest) -> Vec<Planned> {
        let kinds = runtime.offers().spawn_join.has().unwrap_or_default();
        kinds
            .iter()
            .map(|&kind| Planned::Run(ctx.spec_of(self.id(), runtime, &Params { kind }, vec![ctx.home_cpu()])))
            .collect()
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let Params { kind } = point.params()?;
        Ok(point.in_process(|r| r.primitives())?.spawn_join(kind, h)?.into())
    }
}
