//! The `sched` family: handing the CPU from one activity to another (seed 001 §5, seed 004 `csloop`).

mod broadcast;
mod switch;
mod yield_round;

pub use broadcast::Broadcast;
pub use switch::Switch;
pub use yield_round::Params as YieldParams;
pub use yield_round::Yield;
