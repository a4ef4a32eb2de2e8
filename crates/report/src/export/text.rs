//! The text renderings: the report of a record and the tables of a comparison, for a terminal (box
//! drawing) or as GitHub Markdown. The sections themselves are the report's (`report::SECTIONS`); this
//! file only puts them behind the [`Exporter`] trait.

use super::Exporter;
use crate::{compare_tables, render, Format};
use overhead_analysis::compare::Comparison;
use overhead_record::RunRecord;

/// The whole text report of a record in one style: header, every point, every section that has something
/// to show, the skipped points (`report::render`).
pub struct TextReport(pub Format);

impl Exporter<RunRecord> for TextReport {
    fn render(&self, record: &RunRecord) -> anyhow::Result<String> {
        Ok(render(record, self.0))
    }
}

/// The tables of a comparison in one style: every point's change against the baseline, the family
/// geometric means, the points one side lacks (`report::compare_tables`).
pub struct TextComparison(pub Format);

impl Exporter<Comparison> for TextComparison {
    fn render(&self, comparison: &Comparison) -> anyhow::Result<String> {
        Ok(compare_tables(comparison, self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::sample_record;

    #[test]
    fn the_text_report_is_the_report_in_its_style() {
        let record = sample_record();
        for style in [Format::Table, Format::Md] {
            assert_eq!(TextReport(style).render(&record).unwrap(), render(&record, style));
        }
    }
}
