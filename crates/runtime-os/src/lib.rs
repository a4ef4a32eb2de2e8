//! The `os` runtime: kernel threads and processes, futexes and pipes, and the locks and barriers built
//! on them.

mod activity_barrier;
pub mod channels;
mod contention;
pub mod fan_out;
pub mod futex;
pub mod futex_lock;
pub mod hashed_faa;
pub mod hot_team;
pub mod ipc;
pub mod pipe;
mod plugin;
mod primitives;
pub mod pthread_barrier;
mod rwlock;
pub mod sem;
pub mod spin_lock;
pub mod timed_wait;
pub mod wake_all;
mod yield_round;

pub use plugin::Os;
