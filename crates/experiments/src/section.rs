//! A section of the full report, registered by the experiments it presents (docs/ARCHITECTURE.md
//! "Renderers"): each experiment names its sections ([`super::Experiment::sections`]), so adding an
//! experiment with a table of its own is one folder and one line in [`super::registry`], report included.

use overhead_record::RunRecord;
use overhead_render::figure::Figure;
use overhead_render::Format;

/// A section of the full report: what the full report, `overhead report --table KEY` and its help read.
/// A section that presents several experiments (the `mem` family's, seed 004's primitives table) is one
/// `static` that each of them names; the report lists it once.
#[derive(Debug, Clone, Copy)]
pub struct Section {
    /// The `--table` value; unique in the report.
    pub key: &'static str,
    /// Its heading in the full report.
    pub title: &'static str,
    /// One line for `--help`.
    pub about: &'static str,
    /// Its place in the full report, lowest first (the seeds' tables from 10 in steps of 10; a new
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
    names.sort_by_key(|name| (overhead_runtimes::column_rank(name), *name));
    names.dedup();
    names
}

/// A group of figures on the HTML page, registered like a [`Section`] by the experiments it shows
/// ([`super::Experiment::figures`]); a group several experiments name is one `const` they share.
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
