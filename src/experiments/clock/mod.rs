//! The `clock` family: reading time (seed 002's first concern; DESIGN.md "Method" 1).

mod read;

pub use read::Read;
