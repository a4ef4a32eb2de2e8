//! What is derived from the probes' answers into the record (docs/ARCHITECTURE.md "Layout"): a point from the
//! processes that measured it, with its two-level estimate and flags.

mod merge;

pub use merge::{add_distinct_notes, cycle_floor_ns, merge_processes, Flagging, Process};
