//! Each side of a run against its baseline, from the processes measured next to each other (docs/METHOD.md
//! §17). In every round a point's processes for the sides run back to back, so the pair shares the
//! machine's moment: its speed, its other tenants, the run level. The ratio of a pair's process medians keeps
//! what differs between the sides and the processes' own deviations (layout, placement), and loses what
//! the pair shared.
//!
//! Per point: the mean of the pairs' log ratios, with Student's t over the pairs (k − 1 degrees of freedom);
//! that interval needs only the pairs to be independent of each other, not the two processes of a pair to
//! share anything, so it holds however little adjacency buys. Per family: the mean of its points' mean log
//! ratios — its 20% trimmed mean from five points on, with the Tukey–McLaughlin interval over the points (what
//! varies between points and between pairs both land in their spread; a point whose own ratio is all noise,
//! a time near zero, is trimmed instead of carrying the family).
//! A point or family is flagged when its p-value survives Benjamini–Hochberg at 5% over every point (or
//! family) of that side: of the flags, at most 5% are expected to be false, whatever the number of tests.

use std::collections::BTreeMap;

use adjustp::{adjust, Procedure};

use overhead_record::{PointRecord, SideRatio, SideScope, Sides, SkippedPoint};

/// The false discovery rate the flags are controlled at.
pub const FDR: f64 = 0.05;

/// The ratios of every side but the first against the first: per point (in the baseline's order), then per
/// family, each side in turn. `baseline` are the first side's points (the record's `points`).
pub fn side_ratios(baseline: &[PointRecord], baseline_skipped: &[SkippedPoint], sides: &Sides) -> Vec<SideRatio> {
    let mut ratios = Vec::new();
    for side in sides.sides.iter().skip(1) {
        let by_name: BTreeMap<String, &PointRecord> = side.points.iter().map(|p| (p.spec.name(), p)).collect();
        let mut points: Vec<SideRatio> = baseline
            .iter()
            .filter_map(|b| by_name.get(&b.spec.name()).map(|s| point_ratio(b, s, &side.spec.name)))
            .collect();
        control_fdr(&mut points);
        points.extend(one_sided(baseline, &side.skipped, &side.spec.name, &side.spec.name));
        points.extend(one_sided(&side.points, baseline_skipped, &sides.sides[0].spec.name, &side.spec.name));
        let mut families = family_ratios(baseline, &points, &side.spec.name);
        control_fdr(&mut families);
        ratios.extend(points);
        ratios.extend(families);
    }
    ratios
}

/// A point of `side_name` that has no ratio, from `n` pairs, and why.
fn not_compared(name: String, side_name: &str, n: usize, why: String) -> SideRatio {
    SideRatio {
        scope: SideScope::Point,
        name,
        side: side_name.into(),
        ratio: f64::NAN,
        ci_low: f64::NAN,
        ci_high: f64::NAN,
        n,
        p_value: f64::NAN,
        flagged: false,
        not_compared: Some(why),
        state_mismatched_pairs: 0,
    }
}

/// The points of `measured` that the other side skipped (`skipped`, a side planned in its own environment
/// that cannot run them: docs/METHOD.md §17), each not compared: "not on side NAME: its reason".
fn one_sided(measured: &[PointRecord], skipped: &[SkippedPoint], missing_on: &str, side_name: &str) -> Vec<SideRatio> {
    measured
        .iter()
        .filter_map(|p| {
            let name = p.spec.name();
            let why = skipped.iter().find(|s| s.spec.name() == name)?;
            Some(not_compared(name, side_name, 0, format!("not on side {missing_on}: {}", why.reason)))
        })
        .collect()
}

/// The log ratios `ln(side / baseline)` of the processes of `side` and `base` that ran in the same round,
/// in round order; pairs with a time that is not positive (below the control's scatter) are left out, and
/// so are pairs whose processes met different host states ([`state_mismatched_pairs`]): like is compared
/// with like (docs/METHOD.md §19).
pub fn paired_log_ratios(base: &PointRecord, side: &PointRecord) -> Vec<f64> {
    base.processes
        .iter()
        .filter_map(|b| {
            let s = side.processes.iter().find(|s| s.round == b.round)?;
            let like = !states_differ(b, s);
            (like && b.median_ns > 0.0 && s.median_ns > 0.0).then(|| (s.median_ns / b.median_ns).ln())
        })
        .collect()
}

/// Whether both processes have a host state and the states differ.
fn states_differ(a: &overhead_record::ProcessRecord, b: &overhead_record::ProcessRecord) -> bool {
    matches!((a.state, b.state), (Some(x), Some(y)) if x != y)
}

/// How many of the rounds' pairs [`paired_log_ratios`] left out because their processes met different host
/// states.
pub fn state_mismatched_pairs(base: &PointRecord, side: &PointRecord) -> usize {
    base.processes
        .iter()
        .filter(|b| side.processes.iter().find(|s| s.round == b.round).is_some_and(|s| states_differ(b, s)))
        .count()
}

/// The ratio (exp of the mean) of paired log ratios with its 95% Student's t interval over the pairs;
/// `None` with fewer than two. What the choose tables use where it is narrower than their conservative
/// interval ([`super::choose`]).
pub fn paired_ratio(logs: &[f64]) -> Option<overhead_record::RatioCi> {
    let t = TInterval::of(logs)?;
    Some(overhead_record::RatioCi {
        ratio: t.mean.exp(),
        low: (t.mean - t.half_width).exp(),
        high: (t.mean + t.half_width).exp(),
    })
}

/// One point's ratio from its pairs.
fn point_ratio(base: &PointRecord, side: &PointRecord, side_name: &str) -> SideRatio {
    let logs = paired_log_ratios(base, side);
    let name = base.spec.name();
    let mismatched = state_mismatched_pairs(base, side);
    let ratio = match TInterval::of(&logs) {
        Some(t) => t.ratio(SideScope::Point, name, side_name),
        None => {
            let why = format!("{} pair(s) of processes with positive times; two are needed", logs.len());
            not_compared(name, side_name, logs.len(), why)
        }
    };
    SideRatio { state_mismatched_pairs: mismatched, ..ratio }
}

/// Each family's ratio from its compared points' mean log ratios, families in name order.
fn family_ratios(baseline: &[PointRecord], points: &[SideRatio], side_name: &str) -> Vec<SideRatio> {
    let family_of: BTreeMap<String, String> =
        baseline.iter().map(|p| (p.spec.name(), p.spec.family().to_string())).collect();
    let mut logs: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for p in points.iter().filter(|p| p.not_compared.is_none()) {
        if let Some(family) = family_of.get(&p.name) {
            logs.entry(family).or_default().push(p.ratio.ln());
        }
    }
    logs.into_iter()
        .filter_map(|(family, logs)| {
            let interval = TInterval::from(&overhead_stats::trimmed_mean(&logs)?, logs.len())?;
            Some(interval.ratio(SideScope::Family, family.to_string(), side_name))
        })
        .collect()
}

/// Sets `flagged` on the ratios whose p-value survives Benjamini–Hochberg at [`FDR`] among those compared.
fn control_fdr(ratios: &mut [SideRatio]) {
    let compared: Vec<usize> = (0..ratios.len()).filter(|&i| ratios[i].p_value.is_finite()).collect();
    let p: Vec<f64> = compared.iter().map(|&i| ratios[i].p_value).collect();
    for (&i, q) in compared.iter().zip(adjust(&p, Procedure::BenjaminiHochberg)) {
        ratios[i].flagged = q <= FDR;
    }
}

/// Student's t interval (95%) and two-sided test of a mean of log ratios.
#[derive(Debug, Clone, Copy, PartialEq)]
struct TInterval {
    mean: f64,
    half_width: f64,
    p_value: f64,
    n: usize,
}

impl TInterval {
    /// Over `values` (at least two): mean ± t(0.975, n − 1) · sd / √n, and the p-value of a zero mean
    /// (`overhead_stats::mean_interval`).
    fn of(values: &[f64]) -> Option<TInterval> {
        Self::from(&overhead_stats::mean_interval(values)?, values.len())
    }

    /// From a (trimmed) mean's estimate over `n` values.
    fn from(t: &overhead_stats::TrimmedMean, n: usize) -> Option<TInterval> {
        Some(TInterval { mean: t.mean, half_width: t.half_width(), p_value: t.p_value(), n })
    }

    /// As a ratio of `scope` named `name` for `side`, not yet flagged.
    fn ratio(&self, scope: SideScope, name: String, side: &str) -> SideRatio {
        SideRatio {
            scope,
            name,
            side: side.into(),
            ratio: self.mean.exp(),
            ci_low: (self.mean - self.half_width).exp(),
            ci_high: (self.mean + self.half_width).exp(),
            n: self.n,
            p_value: self.p_value,
            flagged: false,
            not_compared: None,
            state_mismatched_pairs: 0,
        }
    }
}

#[cfg(test)]
mod tests;
