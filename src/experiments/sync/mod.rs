//! The `sync` family: fetch-and-add and barriers (seed 001 §8; seed 004's semaphores later).

mod barrier;
mod faa;
mod sem;

pub use barrier::Barrier;
pub use faa::Faa;
pub use sem::Sem;
