//! Every output of a run record or a comparison, one file per format behind one [`Exporter`] trait (as
//! hyperfine's `src/export/<format>.rs`): the terminal and Markdown text (`text`), the HTML pages (`html`),
//! and the machine-readable exports of a record — CSV for spreadsheets, Bencher's Metric Format and
//! github-action-benchmark's `customSmallerIsBetter` for CI dashboards. Each machine-readable export holds
//! every measured point, named as in the record (`experiment/runtime:R/key:value/…`), its median and the
//! bounds of its 95% CI in ns. [`for_record`] and [`for_comparison`] say which format writes what; a
//! format without an exporter for a subject is one its command refuses. Renderers read only the record
//! (docs/ARCHITECTURE.md "Renderers").

mod bmf;
mod csv;
mod github;
mod github_benchmark;
mod html;
mod text;

use crate::OutputFormat;
use overhead_analysis::compare::Comparison;
use overhead_record::{PointRecord, RunRecord};

/// Writes one subject — a run record, or a comparison of records — in one format: the whole file's or
/// page's text.
pub trait Exporter<Subject: ?Sized>: Sync {
    /// The text of `subject` in this exporter's format.
    ///
    /// Errors: the serializer or the page's template failed (a bug, reported with its cause; a NaN median
    /// is written as `null` in JSON and empty in CSV, not an error).
    fn render(&self, subject: &Subject) -> anyhow::Result<String>;
}

/// The exporter that writes a run record in `format`: every format writes one (`overhead report
/// --format`, `overhead run --export`, and the `report.html` of every run).
pub fn for_record(format: OutputFormat) -> &'static dyn Exporter<RunRecord> {
    match format {
        OutputFormat::Table => &text::TextReport(crate::Format::Table),
        OutputFormat::Md => &text::TextReport(crate::Format::Md),
        OutputFormat::Html => &html::HtmlReport,
        OutputFormat::Csv => &csv::Csv,
        OutputFormat::Bmf => &bmf::Bmf,
        OutputFormat::GithubBenchmark => &github_benchmark::GithubBenchmark,
        OutputFormat::Github => &github::GithubSummary,
    }
}

/// The exporter that writes a comparison of records in `format` (`overhead compare --format`), or `None`
/// for a format that holds a record's points, not changes between records (`csv`, `bmf`,
/// `github-benchmark`).
pub fn for_comparison(format: OutputFormat) -> Option<&'static dyn Exporter<Comparison>> {
    match format {
        OutputFormat::Table => Some(&text::TextComparison(crate::Format::Table)),
        OutputFormat::Md => Some(&text::TextComparison(crate::Format::Md)),
        OutputFormat::Html => Some(&html::HtmlComparison),
        OutputFormat::Github => Some(&github::GithubComparison),
        OutputFormat::Csv | OutputFormat::Bmf | OutputFormat::GithubBenchmark => None,
    }
}

/// The flags of a point, as the results table prints them: `noisy`, `unstable`, `<res`, `slow`, `host-state`.
pub fn flags(p: &PointRecord) -> Vec<&'static str> {
    [
        (p.shown_noisy(), "noisy"),
        (p.shown_unstable(), "unstable"),
        (p.below_resolution, "<res"),
        (p.slow, "slow"),
        (p.host_state, "host-state"),
    ]
    .into_iter()
    .filter_map(|(set, name)| set.then_some(name))
    .collect()
}

/// A finite number, or `None` (JSON `null`, an empty CSV cell).
fn finite(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use overhead_record::fixture::sample_record;

    #[test]
    fn every_file_export_holds_every_point() {
        let record = sample_record();
        assert!(!record.points.is_empty());
        // The machine-readable files; the step summary (`github`) is prose with the key costs only.
        let files =
            OutputFormat::ALL.into_iter().filter(|f| f.export_file_name().is_some() && *f != OutputFormat::Github);
        for format in files {
            let text = for_record(format).render(&record).unwrap();
            for p in &record.points {
                assert!(text.contains(&p.name), "{format:?} lacks {}", p.name);
            }
        }
    }

    #[test]
    fn flags_follow_the_point() {
        let mut p = sample_record().points[0].clone();
        (p.noisy, p.unstable, p.below_resolution, p.slow) = (true, false, true, false);
        assert_eq!(flags(&p), ["noisy", "<res"]);
    }
}
