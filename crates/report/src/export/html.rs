//! The HTML pages behind the [`Exporter`] trait: the report of a record (`overhead report --format html`,
//! and `report.html` beside every run's `results.json`) and the page of a comparison (`overhead compare
//! --format html`). The pages themselves are made in `report::html`.

use super::Exporter;
use crate::html::{compare_html, html_report};
use overhead_analysis::compare::Comparison;
use overhead_record::RunRecord;

/// A record's report as one self-contained page: key costs, plots, the studies' tables, every point.
pub struct HtmlReport;

impl Exporter<RunRecord> for HtmlReport {
    fn render(&self, record: &RunRecord) -> anyhow::Result<String> {
        html_report(record)
    }
}

/// A comparison as one self-contained page: changes coloured by significance.
pub struct HtmlComparison;

impl Exporter<Comparison> for HtmlComparison {
    fn render(&self, comparison: &Comparison) -> anyhow::Result<String> {
        compare_html(comparison)
    }
}
