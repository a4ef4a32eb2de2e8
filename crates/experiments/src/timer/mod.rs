//! The `timer` family (Kiszka 2006, Kiszka, *Timer optimisations, continued*): what a timer subsystem's hot
//! paths cost, and what timers cost as wake-up latency and as time stolen from a background task.

mod hotpath;
mod signal_timer;
mod stolen;
mod wakeup;

pub use hotpath::HotPath;
pub use hotpath::HotPathResult;
pub use hotpath::Params as HotPathParams;
pub use stolen::Stolen;
pub use wakeup::{latency_outcome, Wakeup};
