//! The `os` runtime: kernel threads and processes, futexes and pipes.

pub mod futex;
pub mod hot_team;
pub mod pipe;
pub mod sem;
