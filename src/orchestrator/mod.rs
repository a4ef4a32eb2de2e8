//! The orchestrator (DESIGN.md "The data flow"): turns the CLI's choices into a plan, runs each point
//! in a probe process with a watchdog, and writes the run record after every point.

mod plan;
mod probe;
pub mod protocol;
mod run;

pub use plan::{build_plan, select_experiments, validate_runtimes};
pub use probe::run_probe;
pub use run::{run, RunOptions, RunOutcome};
