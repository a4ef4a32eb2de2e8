//! The `grain` family: how the granularity of tasks decides the cost of a fixed amount of work, and
//! how the work spreads over the CPUs (seed 001 §7).

pub(crate) mod search;
mod sweep;
mod tally;
mod work;

pub use sweep::{tables, Sweep, MAX_TASKS, STOP_FACTOR};
pub use tally::Tally;
pub use work::{reads_per_task, Work};
