//! The `timer` family: what a timer subsystem's hot paths cost (seed 002).

mod hotpath;

pub use hotpath::HotPath;
