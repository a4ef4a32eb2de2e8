//! `overhead compare --format html`: the comparison as one self-contained page — every point with each
//! record's median and its change against the baseline (the ratio's 95% CI; green faster, red slower,
//! grey not significant), the geometric means per family, and the points one record lacks. The numbers
//! come from [`overhead_analysis::compare`]; this file only lays them out.

use serde::Serialize;

use crate::compare::change_text;
use overhead_analysis::compare::Comparison;

use crate::format_ns;

const COMPARE_TEMPLATE: &str = include_str!("compare.html");

#[derive(Serialize)]
struct ComparePage {
    baseline: String,
    others: Vec<String>,
    /// A line per record (runs, speed, state, run level's source) and the speed and build findings.
    records: Vec<String>,
    rows: Vec<CompareRow>,
    families: Vec<CompareRow>,
    only_in: Vec<(String, Vec<String>)>,
    significant: usize,
    compared: usize,
}

/// One row: a name, the baseline's cell, and a cell per other record.
#[derive(Serialize)]
struct CompareRow {
    name: String,
    baseline: String,
    cells: Vec<ChangeCell>,
}

#[derive(Serialize)]
struct ChangeCell {
    median: String,
    change: String,
    /// `better`, `worse` or `same` (not significant, or no CI): the cell's colour.
    class: &'static str,
}

/// The comparison as an HTML document.
///
/// Errors: the template failed (a bug).
pub fn compare_html(c: &Comparison) -> anyhow::Result<String> {
    let class = |ratio: f64, significant: bool| match (significant, ratio < 1.0) {
        (false, _) => "same",
        (true, true) => "better",
        (true, false) => "worse",
    };
    let rows = c
        .points
        .iter()
        .map(|p| CompareRow {
            name: p.name.clone(),
            baseline: format_ns(p.baseline),
            cells: p
                .others
                .iter()
                .map(|v| match v {
                    None => ChangeCell { median: "—".into(), change: "—".into(), class: "same" },
                    Some(v) => ChangeCell {
                        median: format_ns(v.median),
                        change: crate::compare::change_cell(v),
                        class: v.ratio.map_or("same", |r| class(r.ratio, v.significant)),
                    },
                })
                .collect(),
        })
        .collect();
    let families = c
        .families
        .iter()
        .map(|f| CompareRow {
            name: f.family.clone(),
            baseline: String::new(),
            cells: f
                .others
                .iter()
                .map(|m| match m {
                    None => ChangeCell { median: String::new(), change: "—".into(), class: "same" },
                    Some(f) => ChangeCell {
                        median: format!("{} points", f.points),
                        change: change_text(&f.ratio, f.flagged),
                        class: class(f.ratio.ratio, f.flagged),
                    },
                })
                .collect(),
        })
        .collect();
    let versus = c.points.iter().flat_map(|p| p.others.iter().flatten());
    let page = ComparePage {
        baseline: c.labels[0].clone(),
        others: c.labels[1..].to_vec(),
        records: crate::compare::sides_lines(c, "").lines().map(str::to_owned).collect(),
        rows,
        families,
        only_in: c.only_in.clone(),
        significant: versus.clone().filter(|v| v.significant).count(),
        compared: versus.count(),
    };
    super::render("compare.html", COMPARE_TEMPLATE, &page)
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_analysis::compare::{compare, ComparedRuns};
    use overhead_analysis::run_level::RunLevel;
    use overhead_record::fixture::run_summary;

    fn side(label: &str, scale: f64) -> ComparedRuns {
        let points = [("sync.faa/runtime:os/threads:2", 10.0 * scale), ("base.loop/runtime:os", 1.0)];
        ComparedRuns { label: label.into(), runs: vec![run_summary(label, &points, 0.01)], level: RunLevel::assumed() }
    }

    #[test]
    fn a_slower_record_is_marked_worse_and_an_equal_one_same() {
        let html = compare_html(&compare(&[side("a.json", 1.0), side("b.json", 1.5)])).unwrap();
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.contains("class=\"worse\">+50.0%"), "{html}");
        assert!(html.contains("class=\"same\">+0.0%"), "{html}");
        assert!(html.contains("b.json"));
    }
}
