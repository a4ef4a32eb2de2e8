//! Renderers: they read only the run record, never the probes (docs/ARCHITECTURE.md "Renderers"), so a report can
//! be made again later, on another machine.

mod convert;
mod fits;
mod grain;
mod latency;
mod matrix;
mod primitives;
mod seed001;
mod speed;
mod table;
mod time;
mod timers;
mod units;

pub use convert::convert_table;
pub use grain::grain_table;
pub use latency::latency_table;
pub use matrix::{matrices_section, render_matrix};
pub use primitives::primitives_table;
pub use seed001::seed001_tables;
pub use table::{render, Format};
pub use time::time_spent;
pub use timers::timers_table;
pub use units::format_ns;

/// A section of the full report: its title and what renders it from the record (empty: not shown).
pub type Section = (&'static str, fn(&crate::record::RunRecord, Format) -> String);

/// The sections after the results table, in order. Each renderer returns an empty string when the record
/// has nothing for it, so a run of a few experiments prints only what applies.
pub const SECTIONS: &[Section] = &[
    ("Seed 004 timing table: primitives by runtime", primitives_table),
    ("Seed 001 tables: yield round vs. load; barriers with activities ≫ CPUs", seed001_tables),
    ("Seed 002 conversion table: cost and worst error by routine", convert_table),
    ("Seed 002 timer tables: conversions and time per hot-path operation", timers_table),
    ("Fits (seed 001 style)", fits::fits_section),
    ("Matrices", matrices_section),
    ("Latency distributions", latency_table),
    ("Seed 001 Table 4: granularity (grain.sweep)", grain_table),
];
