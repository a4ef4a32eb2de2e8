//! The orchestrator (docs/ARCHITECTURE.md "The data flow"): turns the CLI's choices into a plan, runs it in rounds of
//! probe processes with a watchdog, and writes the run record as it goes (at most once a second, and at the end).

mod between_probes;
mod machine_state;
mod minimum_plan;
mod plan;
mod point_state;
pub mod probe_process;
mod progress;
mod record_writer;
mod rounds;
mod run;
mod schedule;
mod side_plans;
mod sides;
mod simulate;

pub use minimum_plan::Schedule;
pub use overhead_record::RoundPolicy;
pub use plan::{build_plan, build_plan_where, select_experiments, select_runtimes};
pub use run::{flagging_of, new_record, run, RunOptions, RunOutcome};
pub use side_plans::{merge as merge_side_plans, plan_json, plan_of as side_plan_of, SideSkips};
pub use sides::{check_sides, parse_side, SideRun};
pub use simulate::{simulate, RecordedCosts, RecordedPoint, SimulatedPoint, Simulation, Source};

#[cfg(test)]
mod plan_size_tests;
#[cfg(test)]
mod round_rules_tests;
