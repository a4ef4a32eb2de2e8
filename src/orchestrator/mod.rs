//! The orchestrator (docs/ARCHITECTURE.md "The data flow"): turns the CLI's choices into a plan, runs it in rounds of
//! probe processes with a watchdog, and writes the run record after every probe.

mod machine_state;
mod plan;
mod probe;
mod rounds;
mod run;

pub use crate::record::RoundPolicy;
pub use plan::{build_plan, select_experiments, select_runtimes};
pub use probe::run_probe;
pub use run::{run, RunOptions, RunOutcome};
