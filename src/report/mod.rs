//! Renderers: they read only the run record, never the probes (DESIGN.md "Renderers"), so a report can
//! be made again later, on another machine.

mod fits;
mod primitives;
mod seed001;
mod table;
mod units;

pub use primitives::primitives_table;
pub use seed001::seed001_tables;
pub use table::{render, Format};
pub use units::format_ns;

/// A section of the full report: its title and what renders it from the record (empty: not shown).
pub type Section = (&'static str, fn(&crate::record::RunRecord, Format) -> String);

/// The sections after the results table, in order. Each renderer returns an empty string when the record
/// has nothing for it, so a run of a few experiments prints only what applies.
pub const SECTIONS: &[Section] = &[
    ("Seed 004 timing table: primitives by runtime", primitives_table),
    ("Seed 001 tables: yield round vs. load; barriers with activities ≫ CPUs", seed001_tables),
    ("Fits (seed 001 style)", fits::fits_section),
];
