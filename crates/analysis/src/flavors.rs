//! A runtime's flavors side by side (tokio's `current_thread` and `multi_thread`, docs/METHOD.md §1): the
//! points of one experiment and runtime that differ only in `flavor:`, and each later flavor's median over
//! the first's. What choosing a flavor costs, read from the record alone; the report only formats it.

use overhead_record::{PointRecord, RatioCi};
use overhead_schema::runtimes::FLAVOR_KEY;

use super::choose::points_ratio;

/// One setting measured in several flavors of one runtime.
#[derive(Debug, Clone, PartialEq)]
pub struct FlavorRow<'a> {
    /// The experiment's ID.
    pub experiment: &'a str,
    /// The runtime's name (`tokio`).
    pub runtime: &'a str,
    /// The setting: the points' parameters without `flavor:`.
    pub setting: Vec<(String, String)>,
    /// Each flavor and its point, in the record's order (plan order: the registry's order of the flavors).
    pub flavors: Vec<(&'a str, &'a PointRecord)>,
    /// Each later flavor's median over the first's with its 95% interval (the narrower of the conservative
    /// and the paired one, [`points_ratio`]); `None` where neither exists.
    pub ratios: Vec<Option<RatioCi>>,
}

/// Every setting that two or more flavors of one runtime measured, in the order its first point appears.
pub fn flavor_rows(points: &[PointRecord]) -> Vec<FlavorRow<'_>> {
    let mut rows: Vec<FlavorRow> = Vec::new();
    for p in points {
        let Some(flavor) = p.spec.param(FLAVOR_KEY) else { continue };
        let setting: Vec<(String, String)> = p.spec.params.iter().filter(|(k, _)| k != FLAVOR_KEY).cloned().collect();
        let same = |r: &FlavorRow| {
            r.experiment == p.spec.experiment && r.runtime == p.spec.runtime.as_str() && r.setting == setting
        };
        match rows.iter_mut().find(|r| same(r)) {
            Some(row) if !row.flavors.iter().any(|(f, _)| *f == flavor) => row.flavors.push((flavor, p)),
            Some(_) => {}
            None => rows.push(FlavorRow {
                experiment: &p.spec.experiment,
                runtime: &p.spec.runtime,
                setting,
                flavors: vec![(flavor, p)],
                ratios: Vec::new(),
            }),
        }
    }
    rows.retain(|r| r.flavors.len() >= 2);
    for row in &mut rows {
        let first = row.flavors[0].1;
        row.ratios = row.flavors[1..].iter().map(|(_, p)| points_ratio(p, first).0).collect();
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::point;

    fn measured(params: &[(&str, &str)], (low, median, high): (f64, f64, f64)) -> PointRecord {
        let mut p = point("spawn.forkjoin", "tokio", params, median);
        (p.summary.ci_low, p.summary.median, p.summary.ci_high) = (low, median, high);
        p
    }

    /// Two flavors of one setting make a row with the second's ratio over the first; a setting one flavor
    /// measured alone, and a runtime without flavors, make none.
    #[test]
    fn a_setting_measured_in_two_flavors_is_a_row_with_their_ratio() {
        let current = measured(&[("flavor", "current_thread"), ("threads", "1")], (230.0, 240.0, 250.0));
        let multi = measured(&[("flavor", "multi_thread"), ("threads", "1")], (270.0, 288.0, 300.0));
        let multi_two = measured(&[("flavor", "multi_thread"), ("threads", "2")], (800.0, 860.0, 900.0));
        let os = point("spawn.forkjoin", "os", &[("threads", "1")], 30_000.0);
        let points = vec![current, multi, multi_two, os];
        let rows = flavor_rows(&points);
        assert_eq!(rows.len(), 1);
        let row = &rows[0];
        assert_eq!(row.setting, [("threads".to_string(), "1".to_string())]);
        let names: Vec<&str> = row.flavors.iter().map(|(f, _)| *f).collect();
        assert_eq!(names, ["current_thread", "multi_thread"]);
        let ratio = row.ratios[0].expect("both CIs are positive");
        assert!((ratio.ratio - 1.2).abs() < 1e-12 && ratio.low < 1.2 && ratio.high > 1.2, "{ratio:?}");
        assert!((ratio.low - 270.0 / 250.0).abs() < 1e-12, "the conservative interval: {ratio:?}");
    }
}
