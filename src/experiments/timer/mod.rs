//! The `timer` family (seed 002, Kiszka, *Timer optimisations, continued*): what timers cost, as wake-up
//! latency and as time stolen from a background task.

mod signal_timer;
mod stolen;
mod wakeup;

pub use stolen::Stolen;
pub use wakeup::Wakeup;
