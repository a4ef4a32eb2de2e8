//! The experiments' own sections and figure groups (docs/ARCHITECTURE.md "Renderers"), one file per table
//! or group, drawn from the record alone with the generic pieces of [`overhead_render`]. They live here, not
//! beside the experiments, so that the crates holding timed loops depend on no table, plot or template crate,
//! and editing a table's wording rebuilds the report alone. Adding an experiment with a table of its own is
//! one file here and one line in [`EXPERIMENT_SECTIONS`] (or [`EXPERIMENT_FIGURES`]).

pub mod convert;
pub mod flavors;
pub mod grain;
pub mod grain_figures;
pub mod ipc;
pub mod mem;
pub mod mpi;
pub mod networked_case;
pub mod primitives;
pub mod rpc;
pub mod timers;
pub mod wake;
pub mod yield_and_oversub;

/// The sections that present experiments, each listed once however many experiments it presents; the
/// report puts them among its generic ones by [`Section::position`].
pub const EXPERIMENT_SECTIONS: &[&Section] = &[
    &primitives::PRIMITIVES,
    &networked_case::NETWORKED_CASE,
    &yield_and_oversub::YIELD_AND_OVERSUB,
    &flavors::SECTION,
    &convert::SECTION,
    &timers::SECTION,
    &wake::SECTION,
    &ipc::IPC,
    &rpc::SECTION,
    &mem::SECTION,
    &mpi::SECTION,
    &grain::SECTION,
];

/// The figure groups that show experiments, placed among the page's generic ones by [`Figures::position`].
pub const EXPERIMENT_FIGURES: &[&Figures] =
    &[&mem::shares::SHARES, &grain_figures::GRANULARITY, &mpi::FIGURES, &wake::FIGURES];

use overhead_record::Catalog as _;
use overhead_record::RunRecord;
use overhead_render::figure::Figure;
use overhead_render::Format;

/// A section of the full report: what the full report, `overhead report --table KEY` and its help read.
/// A section that presents several experiments (the `mem` family's, the primitives table) is one `const`.
#[derive(Debug, Clone, Copy)]
pub struct Section {
    /// The `--table` value; unique in the report.
    pub key: &'static str,
    /// Its heading in the full report.
    pub title: &'static str,
    /// One line for `--help`.
    pub about: &'static str,
    /// Its place in the full report, lowest first (the studies' tables from 10 in steps of 10; a new
    /// section picks a free number where it belongs).
    pub position: u16,
    /// Renders it from the record; an empty string when the record has nothing for it.
    pub render: fn(&RunRecord, Format) -> String,
}

/// The runtimes of `experiment`'s points in `record`, in the registry's column order (names it does not know,
/// from another build's record, after them by name).
pub fn runtimes_of<'a>(record: &'a RunRecord, experiment: &str) -> Vec<&'a str> {
    let mut names: Vec<&str> =
        record.points.iter().filter(|p| p.spec.experiment == experiment).map(|p| p.spec.runtime.as_str()).collect();
    names.sort_by_key(|name| (record.catalog.runtime_rank(name), *name));
    names.dedup();
    names
}

/// A group of figures on the HTML page, registered like a [`Section`] ([`EXPERIMENT_FIGURES`]).
#[derive(Debug, Clone, Copy)]
pub struct Figures {
    /// The group's anchor on the page; unique.
    pub id: &'static str,
    /// Its name in the page's navigation.
    pub short: &'static str,
    /// Its heading.
    pub title: &'static str,
    /// One sentence: how to read the group.
    pub intro: &'static str,
    /// Its place on the page, lowest first (the report's choice between implementations at 5, curves at 10,
    /// heat maps 30, distributions 40, speed 50).
    pub position: u16,
    /// Draws its figures from the record; none when the record has nothing for it.
    ///
    /// Errors: a plot could not be drawn.
    pub draw: fn(&RunRecord) -> anyhow::Result<Vec<Figure>>,
}
