//! The `clock` family: reading time and converting it (seed 002's first concerns; DESIGN.md "Method" 1).

mod convert;
mod read;

pub use convert::Convert;
pub use read::Read;
