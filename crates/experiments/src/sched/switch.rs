//! `sched.switch`: a futex handoff round trip between two kernel threads.

use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use overhead_harness::Harness;
use overhead_record::Metric;
use overhead_runtime_api::primitives::SwitchKind;
use overhead_runtime_api::{Capability, RuntimeUnderTest};

/// `sched.switch`'s parameters (besides the placement the plan adds): the runtime's switch mechanism
/// ([`overhead_runtime_api::Offers::raw_switch`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Params {
    mechanism: SwitchKind,
}

/// Souvatzis's `csloop`: a switch round trip, per runtime. `os`: two threads pass control back and forth
/// through one futex word, each round trip two wake-ups and, on the same CPU, two context switches
/// (`perf bench sched pipe` with futexes instead of pipes), same CPU and other CPUs. `fiber-*`: the
/// back-end's raw switch to a partner context and back, no scheduler. `tokio`: a yield that runs one
/// other task and comes back. Against the empty loop.
pub struct Switch;

impl Switch {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::sched::SWITCH;
}

impl Experiment for Switch {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Switch::ID,
            summary: "switch round trip: futex handoff between threads (same/other CPU), raw fiber switch, tokio yield",
            source: "Ben-Asher & Feitelson 1991 §5 (context-switch overhead); Souvatzis csloop; perf bench sched",
            metric: Metric::Rtt,
            requires: &[Capability::RawSwitch],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn RuntimeUnderTest) -> Vec<Planned> {
        let Some(mechanism) = runtime.offers().raw_switch.has() else { return Vec::new() };
        let params = Params { mechanism: mechanism.kind };
        if mechanism.across_cpus {
            ctx.pair_points(self.id(), runtime, &params)
        } else {
            ctx.same_cpu_pair(self.id(), runtime, &params)
        }
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let cpus = [spec.cpus[0], spec.cpus[spec.cpus.len() - 1]];
        point.in_process(|r| r.primitives())?.switch_round_trip(cpus, h)
    }
}
