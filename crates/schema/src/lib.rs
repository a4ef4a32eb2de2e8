//! The vocabulary a record shares with the code that measures it, below both: the run modes and a probe
//! process's harness settings, what the harness hands back for a point (`Measurement`), and the keys of the
//! machine's speed around it (docs/ARCHITECTURE.md "Layers"). The harness re-exports these; the crates that
//! read records (record, analysis, history, render) depend on this crate and never on the harness, so that
//! reading a record links no timed loop.

mod config;
pub mod experiments;
mod measurement;
mod param_enum;
pub mod placement;
pub mod runtimes;
pub mod speed;
pub mod variants;

pub use config::{HarnessConfig, Mode};
pub use measurement::{CountsPerOp, Measurement, TeamReport};

/// serde, for [`param_enum!`]'s expansion in the crates that use it.
pub use serde;

/// Pairs of (control, test) batches run after the timed ones, untimed, with the kernel's counters open, in
/// every mode ([`HarnessConfig::counted_pairs`]): what `Measurement::counts_per_op` is the median of
/// (`overhead_harness::Harness::counted_pairs`).
pub const COUNTED_PAIRS: usize = 2;
