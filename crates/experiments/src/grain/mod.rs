//! The `grain` family: how the granularity of tasks decides the cost of a fixed amount of work, and
//! how the work spreads over the CPUs (Ben-Asher & Feitelson 1991 §7).

pub mod search;
mod sweep;

pub use overhead_runtime_api::grain_tally::Tally;
pub use overhead_runtime_api::grain_work::{reads_per_task, Work};
pub use sweep::{tables, Sweep, SweepResult, MAX_TASKS, STOP_FACTOR};
