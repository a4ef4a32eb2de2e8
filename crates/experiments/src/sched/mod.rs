//! The `sched` family: handing the CPU from one activity to another (Ben-Asher & Feitelson 1991 §5, Souvatzis `csloop`).

mod broadcast;
mod switch;
mod yield_round;

pub use broadcast::Broadcast;
pub use switch::Switch;
pub use yield_round::Params as YieldParams;
pub use yield_round::Yield;
