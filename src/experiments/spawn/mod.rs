//! The `spawn` family: creating, running and ending an activity (seed 001 §6, seed 004).

mod create;

pub use create::Create;
