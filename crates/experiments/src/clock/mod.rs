//! The `clock` family: reading time and converting it (Kiszka's first concerns; docs/METHOD.md §8),
//! and how the CPUs' counters and processing rates agree (Ben-Asher & Feitelson 1991 §2).

mod convert;
mod counter_rate;
mod hardware;
mod offset;
mod offset_estimate;
mod race;
mod rate;
mod read;

pub use convert::Params as ConvertParams;
pub use convert::{Convert, ConvertResult};
pub use offset::Offset;
pub use rate::Rate;
pub use read::Read;
