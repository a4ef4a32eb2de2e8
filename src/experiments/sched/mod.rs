//! The `sched` family: handing the CPU from one activity to another (seed 001 §5, seed 004 `csloop`).

mod switch;

pub use switch::Switch;
