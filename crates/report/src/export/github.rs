//! A CI step's summary (`--format github`): Markdown for `$GITHUB_STEP_SUMMARY`, which GitHub shows on the
//! run's page. It opens with one verdict line (how many families and points are flagged slower or faster),
//! then the families and the flagged points with their ratios and CIs, then where the rest is. For a run
//! with sides it reads the sides' verdicts (docs/METHOD.md §17); for `overhead compare A B` the comparison's;
//! for a plain record, the summary `overhead run` prints, as a code block.

use std::fmt::Write as _;
use std::path::Path;

use super::Exporter;
use crate::{compare_tables, Format};
use overhead_analysis::compare::Comparison;
use overhead_analysis::gate::Judged;
use overhead_record::{RunRecord, SideScope};

/// A record's step summary: its sides' verdicts, or its one-screen summary.
pub struct GithubSummary;

impl Exporter<RunRecord> for GithubSummary {
    fn render(&self, record: &RunRecord) -> anyhow::Result<String> {
        let Some(sides) = &record.sides else {
            let summary = crate::summary::run_summary(record, Path::new("results.json"));
            return Ok(format!("## overhead run\n\n```text\n{summary}```\n"));
        };
        let mut verdicts = Verdicts::default();
        for r in sides.ratios.iter().filter(|r| r.flagged) {
            verdicts.add(r.scope == SideScope::Family, r.ratio);
        }
        let judged = Judged::of_sides(&sides.ratios);
        let mut out = format!("## overhead: {} against {}\n\n", side_names(record), sides.baseline());
        let _ = writeln!(out, "{}\n", verdicts.line(judged));
        out += &crate::sides::sides_section(record, Format::Md);
        Ok(blank_lines_around_tables(&out))
    }
}

/// A comparison's step summary: the verdict line, then its tables in Markdown.
pub struct GithubComparison;

impl Exporter<Comparison> for GithubComparison {
    fn render(&self, comparison: &Comparison) -> anyhow::Result<String> {
        let mut verdicts = Verdicts::default();
        for family in &comparison.families {
            for v in family.others.iter().flatten().filter(|v| v.flagged) {
                verdicts.add(true, v.ratio.ratio);
            }
        }
        for point in &comparison.points {
            for v in point.others.iter().flatten() {
                if let (true, Some(r)) = (v.significant, v.ratio) {
                    verdicts.add(false, r.ratio);
                }
            }
        }
        let others = comparison.labels[1..].join(", ");
        let mut out = format!("## overhead: {others} against {}\n\n", comparison.labels[0]);
        let _ = writeln!(out, "{}\n", verdicts.line(Judged::of_comparison(comparison)));
        out += &compare_tables(comparison, Format::Md);
        Ok(blank_lines_around_tables(&out))
    }
}

/// `markdown` with a blank line before and after every table, which GitHub needs to see one after a paragraph.
fn blank_lines_around_tables(markdown: &str) -> String {
    let mut out = String::new();
    let mut previous_in_table = false;
    let mut previous_blank = true;
    for line in markdown.lines() {
        let in_table = line.starts_with('|');
        let blank = line.trim().is_empty();
        if in_table != previous_in_table && !blank && !previous_blank {
            out.push('\n');
        }
        out += line;
        out.push('\n');
        (previous_in_table, previous_blank) = (in_table, blank);
    }
    out
}

/// The sides' names, in their order.
fn side_names(record: &RunRecord) -> String {
    let names: Vec<&str> =
        record.sides.iter().flat_map(|s| s.sides.iter().skip(1)).map(|s| s.spec.name.as_str()).collect();
    names.join(", ")
}

/// Flagged changes counted by scope and direction.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Verdicts {
    families_slower: usize,
    families_faster: usize,
    points_slower: usize,
    points_faster: usize,
}

impl Verdicts {
    fn add(&mut self, family: bool, ratio: f64) {
        match (family, ratio > 1.0) {
            (true, true) => self.families_slower += 1,
            (true, false) => self.families_faster += 1,
            (false, true) => self.points_slower += 1,
            (false, false) => self.points_faster += 1,
        }
    }

    /// `**No change shown**: …` or `**2 families slower**, 1 faster; 11 of 492 points flagged (…)`, and how
    /// many points could not be judged when any: `; 228 of 594 points not judged`.
    fn line(&self, judged: Judged) -> String {
        let mut points = format!(
            "{} of {} points flagged ({} slower, {} faster)",
            self.points_slower + self.points_faster,
            judged.points - judged.unjudged,
            self.points_slower,
            self.points_faster
        );
        if judged.unjudged > 0 {
            points += &format!("; {} of {} points not judged", judged.unjudged, judged.points);
        }
        if self.families_slower + self.families_faster == 0 {
            return format!("**No family changed** beyond its CI; {points}.");
        }
        format!(
            "**{} {} slower**, {} faster; {points}.",
            self.families_slower,
            if self.families_slower == 1 { "family" } else { "families" },
            self.families_faster
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verdict_line_counts_by_scope_and_direction() {
        let mut v = Verdicts::default();
        assert_eq!(
            v.line(Judged { points: 10, unjudged: 0 }),
            "**No family changed** beyond its CI; 0 of 10 points flagged (0 slower, 0 faster)."
        );
        v.add(true, 1.12);
        v.add(false, 1.3);
        v.add(false, 0.8);
        assert_eq!(
            v.line(Judged { points: 10, unjudged: 0 }),
            "**1 family slower**, 0 faster; 2 of 10 points flagged (1 slower, 1 faster)."
        );
        assert!(v
            .line(Judged { points: 594, unjudged: 228 })
            .ends_with("2 of 366 points flagged (1 slower, 1 faster); 228 of 594 points not judged."));
    }

    #[test]
    fn tables_get_blank_lines_around_them() {
        let md = "text\n| a |\n|---|\n| 1 |\nmore\n\n| b |\n";
        assert_eq!(blank_lines_around_tables(md), "text\n\n| a |\n|---|\n| 1 |\n\nmore\n\n| b |\n");
    }

    #[test]
    fn a_record_without_sides_gets_its_summary_in_a_code_block() {
        let record = overhead_record::fixture::sample_record();
        let text = GithubSummary.render(&record).unwrap();
        assert!(text.starts_with("## overhead run\n\n```text\noverhead run on "), "{text}");
        assert!(text.ends_with("```\n"), "{text}");
    }
}
