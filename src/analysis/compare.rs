//! `overhead compare`: every point of one or more records against a baseline record, as a ratio of medians
//! with a 95% CI, whether the difference is significant, and geometric means per family (as Google
//! Benchmark's `compare.py` and criterion's change report say whether a change is real).
//!
//! The ratio's CI is built on the log scale from the two medians' own CIs: each CI gives its median's
//! standard error there, `ln(high / low) / (2 z)` with `z` the normal quantile of the CI's level, the two
//! records being independent runs the errors add in quadrature, and the ratio's CI is
//! `r · exp(±1.96 · √(se_a² + se_b²))`. A difference is significant when that CI excludes 1. (Seed 004's
//! table uses the more conservative box `a.ci_low / b.ci_high … a.ci_high / b.ci_low`, which excludes 1 only
//! when the two CIs do not overlap: far fewer than 5% false alarms, and far more missed changes.)

use std::collections::BTreeMap;

use statrs::distribution::{ContinuousCDF, Normal};

use crate::record::{RatioCi, Summaries};
use crate::stats::Summary;

/// The normal quantile of a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

/// One record for the comparison: a label (its path) and its points.
#[derive(Debug, Clone)]
pub struct Side {
    pub label: String,
    pub points: Summaries,
}

/// One other record's value of a point against the baseline's.
#[derive(Debug, Clone, PartialEq)]
pub struct Versus {
    /// The other record's median (ns).
    pub median: f64,
    /// other / baseline, with its 95% CI; `None` when either CI is missing or reaches zero.
    pub ratio: Option<RatioCi>,
    /// The ratio's CI excludes 1.
    pub significant: bool,
}

/// A point of the baseline, with each other record's value (`None` where that record lacks it).
#[derive(Debug, Clone, PartialEq)]
pub struct PointComparison {
    pub name: String,
    /// The baseline's median (ns).
    pub baseline: f64,
    pub others: Vec<Option<Versus>>,
}

/// The geometric mean of the ratios of one family's shared points, per other record: the ratio with its
/// 95% CI and how many points it is over (`None` where no point with a CI is shared).
#[derive(Debug, Clone, PartialEq)]
pub struct FamilyMean {
    /// `base`, `clock`, …: the point name up to its first `.`.
    pub family: String,
    pub others: Vec<Option<(RatioCi, usize)>>,
}

/// The whole comparison: the baseline first in `labels`.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub labels: Vec<String>,
    /// The baseline's points, in name order.
    pub points: Vec<PointComparison>,
    pub families: Vec<FamilyMean>,
    /// Per other record, the points it has that the baseline lacks; and the baseline's points no other
    /// record has.
    pub only_in: Vec<(String, Vec<String>)>,
}

/// `b / a` with the 95% CI described in the module doc; `None` when either median or CI bound is not
/// positive.
pub fn ratio_ci(a: &Summary, b: &Summary) -> Option<RatioCi> {
    let ratio = b.median / a.median;
    let se = (log_se(a)?.powi(2) + log_se(b)?.powi(2)).sqrt();
    Some(RatioCi { ratio, low: ratio * (-Z95 * se).exp(), high: ratio * (Z95 * se).exp() })
}

/// The standard error of `ln(median)` implied by the summary's CI; `None` when a bound is not positive.
fn log_se(s: &Summary) -> Option<f64> {
    if !(s.median > 0.0 && s.ci_low > 0.0 && s.ci_high >= s.ci_low) {
        return None;
    }
    let level = if s.ci_level > 0.0 && s.ci_level < 1.0 { s.ci_level } else { 0.95 };
    let z = Normal::standard().inverse_cdf(0.5 + level / 2.0);
    Some((s.ci_high / s.ci_low).ln() / (2.0 * z))
}

/// Every side after the first against the first.
///
/// Panics if `sides` is empty.
pub fn compare(sides: &[Side]) -> Comparison {
    let (baseline, others) = sides.split_first().expect("a comparison needs a baseline");
    let points: Vec<PointComparison> = baseline
        .points
        .iter()
        .map(|(name, a)| PointComparison {
            name: name.clone(),
            baseline: a.median,
            others: others.iter().map(|o| o.points.get(name).map(|b| versus(a, b))).collect(),
        })
        .collect();
    let mut only_in: Vec<(String, Vec<String>)> = others
        .iter()
        .map(|o| (o.label.clone(), o.points.keys().filter(|n| !baseline.points.contains_key(*n)).cloned().collect()))
        .collect();
    let lonely: Vec<String> =
        points.iter().filter(|p| p.others.iter().all(Option::is_none)).map(|p| p.name.clone()).collect();
    only_in.insert(0, (baseline.label.clone(), lonely));
    only_in.retain(|(_, names)| !names.is_empty());
    Comparison {
        labels: sides.iter().map(|s| s.label.clone()).collect(),
        families: family_means(baseline, others),
        points,
        only_in,
    }
}

fn versus(a: &Summary, b: &Summary) -> Versus {
    let ratio = ratio_ci(a, b);
    Versus { median: b.median, ratio, significant: ratio.is_some_and(|r| r.low > 1.0 || r.high < 1.0) }
}

/// Per family, per other side: the mean of the shared points' log ratios, its standard error from theirs
/// (`√Σ se² / n`), back on the ratio scale.
fn family_means(baseline: &Side, others: &[Side]) -> Vec<FamilyMean> {
    let mut families: BTreeMap<String, Vec<&String>> = BTreeMap::new();
    for name in baseline.points.keys() {
        families.entry(family_of(name).to_string()).or_default().push(name);
    }
    families
        .into_iter()
        .map(|(family, names)| FamilyMean {
            others: others
                .iter()
                .map(|o| {
                    let logs: Vec<(f64, f64)> = names
                        .iter()
                        .filter_map(|n| {
                            let (a, b) = (&baseline.points[*n], o.points.get(*n)?);
                            let se = (log_se(a)?.powi(2) + log_se(b)?.powi(2)).sqrt();
                            Some(((b.median / a.median).ln(), se))
                        })
                        .collect();
                    let n = logs.len();
                    (n > 0).then(|| {
                        let mean = logs.iter().map(|l| l.0).sum::<f64>() / n as f64;
                        let se = logs.iter().map(|l| l.1 * l.1).sum::<f64>().sqrt() / n as f64;
                        let ratio = mean.exp();
                        (RatioCi { ratio, low: (mean - Z95 * se).exp(), high: (mean + Z95 * se).exp() }, n)
                    })
                })
                .collect(),
            family,
        })
        .collect()
}

/// The family of a point name: the experiment ID up to its first `.` (`sync.faa/…` → `sync`); a name
/// without one (a plain Google Benchmark name) is its own family up to the first `/`.
pub fn family_of(name: &str) -> &str {
    let id = name.split('/').next().unwrap_or(name);
    id.split('.').next().unwrap_or(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(median: f64, half_width: f64) -> Summary {
        let mut s = Summary::of(&[median]).unwrap();
        (s.ci_low, s.ci_high, s.ci_level) = (median - half_width, median + half_width, 0.95);
        s
    }

    fn side(label: &str, points: &[(&str, f64, f64)]) -> Side {
        Side { label: label.into(), points: points.iter().map(|&(n, m, h)| (n.to_string(), summary(m, h))).collect() }
    }

    #[test]
    fn a_copy_with_every_time_times_1_1_is_plus_10_percent_everywhere() {
        let a = side("a", &[("base.loop/runtime:os", 1.0, 0.01), ("sync.faa/runtime:os/threads:2", 30.0, 0.3)]);
        let b = Side {
            label: "b".into(),
            points: a
                .points
                .iter()
                .map(|(n, s)| {
                    let mut s = s.clone();
                    (s.median, s.ci_low, s.ci_high) = (s.median * 1.1, s.ci_low * 1.1, s.ci_high * 1.1);
                    (n.clone(), s)
                })
                .collect(),
        };
        let c = compare(&[a, b]);
        for p in &c.points {
            let v = p.others[0].as_ref().unwrap();
            let r = v.ratio.unwrap();
            assert!((r.ratio - 1.1).abs() < 1e-12, "{p:?}");
            assert!(v.significant && r.low > 1.0 && r.high > 1.1, "±1% CIs cannot hide 10%: {r:?}");
        }
        assert_eq!(c.families.len(), 2);
        assert!(c.families.iter().all(|f| (f.others[0].unwrap().0.ratio - 1.1).abs() < 1e-12));
        assert!(c.only_in.is_empty());
    }

    #[test]
    fn the_ratio_ci_adds_the_log_errors_in_quadrature() {
        // Two CIs of ±10% around 100 and 100: se on the log scale ≈ ln(1.1/0.9)/(2·1.96) each.
        let (a, b) = (summary(100.0, 10.0), summary(100.0, 10.0));
        let r = ratio_ci(&a, &b).unwrap();
        let se = (1.1f64 / 0.9).ln() / (2.0 * Z95) * 2f64.sqrt();
        assert!((r.high - (Z95 * se).exp()).abs() < 1e-9 && (r.low * r.high - 1.0).abs() < 1e-12, "{r:?}");
        assert!(r.low < 1.0 && r.high > 1.0);
        assert!(!versus(&a, &b).significant);
        assert!(ratio_ci(&summary(100.0, 150.0), &b).is_none(), "a CI reaching below zero gives no ratio CI");
    }

    #[test]
    fn points_of_one_record_only_are_listed_apart() {
        let a = side("a", &[("x.a", 1.0, 0.1), ("x.b", 1.0, 0.1)]);
        let b = side("b", &[("x.a", 1.0, 0.1), ("y.c", 2.0, 0.1)]);
        let c = compare(&[a, b]);
        assert_eq!(c.points.len(), 2);
        assert!(c.points[1].others[0].is_none());
        assert_eq!(c.only_in, vec![("a".to_string(), vec!["x.b".to_string()]), ("b".into(), vec!["y.c".into()])]);
        assert_eq!(family_of("sync.faa/runtime:os"), "sync");
        assert_eq!(family_of("BM_memcpy/64"), "BM_memcpy");
    }
}
