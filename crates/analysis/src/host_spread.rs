//! Flags against the host's typical spread (docs/METHOD.md §21). On a shared host a point's processes differ
//! by 20% and more because the host moves and slows the vCPUs between them, and then `noisy` and `unstable`,
//! judged against fixed fractions, mark nearly every row: true of each, and so of no use in telling one row
//! from another. The run states its typical spread once, per family, and the report marks the points whose
//! spread is beyond [`FACTOR`] times their family's typical value; the record keeps the absolute flags as
//! they were. Where a family's typical spread is already below the absolute thresholds (a quiet machine),
//! every absolute flag passes the host's test too, so the report reads as it did.
//!
//! The idea is the one behind moderated statistics (Smyth 2004) and JMH's run-to-run "error" reading:
//! judge one measurement's variability against what measurements like it show in the same conditions.

use std::collections::BTreeMap;

use overhead_record::{family_of, FamilySpread, HostRelativeFlags, HostSpread, PointRecord, RunRecord};
use overhead_stats::percentile;

/// A family needs this many measured points for a typical spread; below it its flags stay absolute.
pub const MIN_POINTS: usize = 5;

/// A point is flagged for this host when its spread exceeds this many times its family's typical spread.
pub const FACTOR: f64 = 2.0;

/// A point's relative CI half-width: half the CI over the median; `None` when the median is not positive.
fn ci_half_width(p: &PointRecord) -> Option<f64> {
    let s = &p.summary;
    (s.median > 0.0 && s.ci_high.is_finite() && s.ci_low.is_finite()).then(|| (s.ci_high - s.ci_low) / 2.0 / s.median)
}

/// A point's between-process standard deviation over its estimate; `None` with fewer than two processes.
fn process_spread(p: &PointRecord) -> Option<f64> {
    let t = p.two_level.as_ref()?;
    (t.estimate.abs() > 0.0).then(|| t.between_process_var.max(0.0).sqrt() / t.estimate.abs())
}

/// The median of `values`, or `None` for none.
fn median(mut values: Vec<f64>) -> Option<f64> {
    values.retain(|v| v.is_finite());
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    Some(percentile(&values, 0.5))
}

/// The points that speak for the host: measured, above the timing resolution (a `<res` point's interval is
/// the clock's, not the host's).
fn judged(record: &RunRecord) -> impl Iterator<Item = &PointRecord> {
    record.points.iter().filter(|p| !p.below_resolution)
}

/// The run's typical spreads, per family of at least [`MIN_POINTS`] points and over every point.
pub fn host_spread(record: &RunRecord) -> Option<HostSpread> {
    let mut per_family: BTreeMap<String, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    for p in judged(record) {
        let entry = per_family.entry(family_of(&p.spec.experiment).to_string()).or_default();
        entry.0.extend(ci_half_width(p));
        entry.1.extend(process_spread(p));
    }
    let families = per_family
        .into_iter()
        .filter(|(_, (hw, _))| hw.len() >= MIN_POINTS)
        .filter_map(|(family, (hw, spread))| {
            let points = hw.len();
            let spread = median(spread).unwrap_or(0.0);
            Some((family, FamilySpread { ci_half_width: median(hw)?, process_spread: spread, points }))
        })
        .collect();
    let all: Vec<f64> = judged(record).filter_map(process_spread).collect();
    let points = all.len();
    Some(HostSpread { families, process_spread: median(all)?, points, factor: FACTOR })
}

/// Derives the run's typical spread and each point's flags against it, replacing what was there.
/// Idempotent.
pub fn apply(record: &mut RunRecord) {
    record.host_spread = host_spread(record);
    let Some(spread) = record.host_spread.clone() else {
        record.points.iter_mut().for_each(|p| p.for_host = None);
        return;
    };
    for p in &mut record.points {
        p.for_host = spread.families.get(family_of(&p.spec.experiment)).map(|family| HostRelativeFlags {
            noisy: p.noisy && ci_half_width(p).is_some_and(|hw| hw > spread.factor * family.ci_half_width),
            unstable: p.unstable && process_spread(p).is_some_and(|s| s > spread.factor * family.process_spread),
        });
    }
}

/// The header's line, or `None` without a spread: "processes of one point differ by 22% here (median over
/// 480 points); noisy and unstable mark points beyond twice their family's typical spread; CIs include it".
pub fn header_line(record: &RunRecord) -> Option<String> {
    let spread = record.host_spread.as_ref()?;
    let absolute = record.points.iter().filter(|p| p.noisy || p.unstable).count();
    let shown = record.points.iter().filter(|p| p.shown_noisy() || p.shown_unstable()).count();
    Some(format!(
        "processes of one point differ by {:.0}% here (median over {} points; CIs include it); noisy and \
         unstable mark the points beyond {}× their family's typical spread: {shown} of {} ({absolute} against \
         the fixed thresholds)",
        spread.process_spread * 100.0,
        spread.points,
        spread.factor,
        record.points.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};
    use overhead_stats::TwoLevel;

    /// A point of `family` whose CI is ± `hw` of its median and whose processes differ by `spread`; the
    /// absolute flags as the merge would set them at 5% and 2%.
    fn measured(experiment: &str, k: usize, hw: f64, spread: f64) -> PointRecord {
        let mut p = point(experiment, "os", &[("k", &k.to_string())], 100.0);
        p.summary.ci_low = 100.0 * (1.0 - hw);
        p.summary.ci_high = 100.0 * (1.0 + hw);
        let processes: Vec<Vec<f64>> = [1.0 - spread, 1.0, 1.0 + spread].iter().map(|f| vec![100.0 * f; 5]).collect();
        p.two_level = TwoLevel::of(&processes);
        p.noisy = hw > 0.05;
        p.unstable = p.two_level.as_ref().is_some_and(|t| t.is_unstable(0.02));
        p
    }

    /// On a noisy host (every point ± 20%, processes 20% apart) the absolute flags mark every point and the
    /// host's mark only the one far beyond its family: the record keeps both.
    #[test]
    fn on_a_noisy_host_only_the_outlier_is_flagged() {
        let mut record = sample_record();
        record.points = (0..10).map(|k| measured("sync.faa", k, 0.20, 0.20)).collect();
        record.points.push(measured("sync.faa", 10, 0.70, 0.80));
        apply(&mut record);
        assert!(record.points.iter().all(|p| p.noisy && p.unstable), "absolute flags kept");
        let shown: Vec<usize> = (0..11).filter(|&k| record.points[k].shown_noisy()).collect();
        assert_eq!(shown, [10]);
        assert!(record.points[10].shown_unstable() && !record.points[0].shown_unstable());
        let spread = record.host_spread.as_ref().unwrap();
        assert!((spread.families["sync"].ci_half_width - 0.20).abs() < 1e-9, "{spread:?}");
        let line = header_line(&record).unwrap();
        assert!(line.contains("1 of 11 (11 against the fixed thresholds)"), "{line}");
        let once = serde_json::to_string(&record).unwrap();
        apply(&mut record);
        assert_eq!(serde_json::to_string(&record).unwrap(), once, "idempotent");
    }

    /// On a quiet machine (± 1%, processes 0.5% apart) a point that is noisy by the fixed threshold is
    /// noisy for the host too: the flags read as they did.
    #[test]
    fn on_a_quiet_machine_the_flags_are_as_before() {
        let mut record = sample_record();
        record.points = (0..10).map(|k| measured("sync.faa", k, 0.01, 0.005)).collect();
        record.points.push(measured("sync.faa", 10, 0.08, 0.05));
        apply(&mut record);
        for p in &record.points {
            assert_eq!((p.shown_noisy(), p.shown_unstable()), (p.noisy, p.unstable), "{}", p.name);
        }
        assert!(record.points[10].shown_noisy());
    }

    /// A family with fewer than five points has no typical spread: its flags stay absolute.
    #[test]
    fn a_small_family_keeps_the_absolute_flags() {
        let mut record = sample_record();
        record.points = (0..4).map(|k| measured("mem.c2c", k, 0.20, 0.20)).collect();
        apply(&mut record);
        assert!(record.points.iter().all(|p| p.for_host.is_none() && p.shown_noisy()));
    }
}
