//! `overhead compare`: every point of one or more records against a baseline record, as a ratio of medians
//! with a 95% CI, whether the difference is significant, and geometric means per family (as Google
//! Benchmark's `compare.py` and criterion's change report say whether a change is real).
//!
//! Each side is one record or several replicates of one configuration. On the log scale a side's value of a
//! point is the mean of its replicates' log medians; its variance holds the replicates' within-run errors
//! (each CI gives its median's standard error, `ln(high / low) / (2q)` with `q` the CI's own quantile:
//! [`overhead_record::PointRunSummary::log_se`]) and the run level
//! ([`super::run_level`]): what the point moves by between runs beyond its family's shift, and the shift, each
//! divided by the side's replicates. Every term is an estimate with its degrees of freedom (a CI over k
//! processes: k − 1; a moderated run level: the prior's [`super::run_level::PRIOR_RUNS`] plus the data's),
//! so the ratio's CI is `r · exp(±t · √(V_a + V_b))` with Student's t at the Welch–Satterthwaite degrees of
//! freedom of the sum, not the normal 1.96. A point is flagged (`significant`) when its p-value survives
//! Benjamini–Hochberg at 5% over every point compared with that record, so a comparison of ~400 points
//! does not flag ~20 by chance. A family's ratio is the precision-weighted mean of its points' log ratios
//! and carries its shared shift whole: the shift does not shrink with the number of points (docs/METHOD.md
//! §13); families are controlled the same way among themselves. Where the history shows that the machine's
//! speed explains a family's shift, that family's ratios are read at the baseline's speed.

use std::collections::BTreeMap;

use adjustp::{adjust, Procedure};
use statrs::distribution::{ContinuousCDF, StudentsT};

use super::run_level::{RunLevel, PRIOR_RUNS};
use overhead_record::{family_of, same_state, RatioCi, RunSummary};
use overhead_stats::Z95;

/// The false discovery rate the flags are controlled at (Benjamini–Hochberg).
pub const FDR: f64 = 0.05;

/// One of the two halves of a comparison (`overhead compare A B`; a `--side` of a run is a build or setting
/// instead, docs/METHOD.md §17): a label, its records (replicates of one configuration) and the run level
/// of the machine they ran on.
#[derive(Debug, Clone)]
pub struct ComparedRuns {
    pub label: String,
    pub runs: Vec<RunSummary>,
    pub level: RunLevel,
}

impl ComparedRuns {
    /// Every point name of any of the side's runs.
    fn names(&self) -> std::collections::BTreeSet<&String> {
        self.runs.iter().flat_map(|r| r.points.keys()).collect()
    }

    /// The side's machine, when every run names the same one.
    fn machine(&self) -> Option<&str> {
        let first = self.runs.first()?.config.as_ref()?.machine.as_str();
        self.runs.iter().all(|r| r.config.as_ref().is_some_and(|c| c.machine == first)).then_some(first)
    }

    /// The geometric mean of the runs' reference-loop speeds (ns per iteration), when all recorded one.
    pub fn speed_ns(&self) -> Option<f64> {
        let logs: Option<Vec<f64>> = self.runs.iter().map(|r| r.speed_ns.filter(|s| *s > 0.0).map(f64::ln)).collect();
        let logs = logs.filter(|l| !l.is_empty())?;
        Some((logs.iter().sum::<f64>() / logs.len() as f64).exp())
    }

    /// The point on this side: the geometric mean of its replicates' medians, the mean log median and mean
    /// within-run variance of those with a positive CI, and how many replicates have it; `None` where no run
    /// has the point.
    fn point(&self, name: &str) -> Option<SidePoint> {
        let all: Vec<&overhead_record::PointRunSummary> = self.runs.iter().filter_map(|r| r.points.get(name)).collect();
        if all.is_empty() {
            return None;
        }
        let positive: Vec<f64> = all.iter().map(|p| p.median_ns).filter(|m| *m > 0.0).collect();
        let median = if positive.len() == all.len() {
            overhead_stats::geometric_mean(&positive)
        } else {
            all.iter().map(|p| p.median_ns).sum::<f64>() / all.len() as f64
        };
        let with_se: Vec<(f64, f64, f64)> =
            all.iter().filter_map(|p| Some((p.median_ns.ln(), p.log_se()?.powi(2), within_df(p)))).collect();
        let n = with_se.len() as f64;
        let logged = (n > 0.0 && with_se.len() == all.len()).then(|| LogPoint {
            log: with_se.iter().map(|v| v.0).sum::<f64>() / n,
            within: with_se.iter().map(|v| v.1).sum::<f64>() / n,
            within_df: with_se.iter().map(|v| v.2).sum(),
            replicates: n,
        });
        let states: Vec<f64> = self.runs.iter().filter_map(|r| r.host_state_rtt_ns.get(name).copied()).collect();
        // The replicates' one host state, where they name one; replicates in different states constrain nothing.
        let host_state_ns = states.first().copied().filter(|&s| states.iter().all(|&o| same_state(s, o)));
        Some(SidePoint { median, logged, host_state_ns })
    }
}

/// A point on one side.
struct SidePoint {
    /// Its median (ns; the geometric mean over replicates).
    median: f64,
    /// On the log scale, when every replicate has a positive CI.
    logged: Option<LogPoint>,
    /// The host state its estimate stands for (the state's round trip, ns), for a cross-core point that has
    /// one (`overhead_record::estimate_state_rtt_ns`).
    host_state_ns: Option<f64>,
}

/// A side's point on the log scale.
#[derive(Clone, Copy)]
struct LogPoint {
    /// Mean of the replicates' ln(median).
    log: f64,
    /// Mean of their within-run variances (ln scale).
    within: f64,
    /// The degrees of freedom behind them: Σ (processes − 1) over the replicates (infinite where a CI is not a
    /// t interval over processes).
    within_df: f64,
    /// Replicates that have it.
    replicates: f64,
}

/// The degrees of freedom of a point's within-run CI: processes − 1 for a t interval over processes; infinite
/// (the normal quantile) for one process or a plain Google Benchmark file's order-statistic CI.
fn within_df(p: &overhead_record::PointRunSummary) -> f64 {
    if p.processes >= 2 {
        (p.processes - 1) as f64
    } else {
        f64::INFINITY
    }
}

/// A variance and the degrees of freedom of its estimate.
#[derive(Debug, Clone, Copy, PartialEq)]
struct VarTerm {
    var: f64,
    df: f64,
}

/// The variance of a sum of independent estimated variances and its Welch–Satterthwaite degrees of freedom,
/// `(Σ V)² / Σ (V² / df)` (terms with infinite df add nothing to the denominator; all infinite: infinite).
fn satterthwaite(terms: &[VarTerm]) -> VarTerm {
    let var: f64 = terms.iter().map(|t| t.var).sum();
    let denominator: f64 = terms.iter().filter(|t| t.df.is_finite() && t.df > 0.0).map(|t| t.var * t.var / t.df).sum();
    let df = if denominator > 0.0 { var * var / denominator } else { f64::INFINITY };
    VarTerm { var, df }
}

/// The 95% CI of `exp(log)` with variance `v` (Student's t at `v.df`, normal when infinite) and the two-sided
/// p-value of `log = 0`; `None` when the variance is not positive and finite.
fn t_ratio(log: f64, v: VarTerm) -> Option<(RatioCi, f64)> {
    let se = v.var.sqrt();
    if !(se.is_finite() && se > 0.0 && log.is_finite()) {
        return None;
    }
    let (q, p) = if v.df.is_finite() {
        let t = StudentsT::new(0.0, 1.0, v.df.max(1.0)).ok()?;
        (t.inverse_cdf(0.975), 2.0 * (1.0 - t.cdf((log / se).abs())))
    } else {
        let normal = statrs::distribution::Normal::standard();
        (Z95, 2.0 * (1.0 - normal.cdf((log / se).abs())))
    };
    Some((RatioCi { ratio: log.exp(), low: (log - q * se).exp(), high: (log + q * se).exp() }, p))
}

/// Benjamini–Hochberg at [`FDR`] over `p_values` (one per test, NaN for none): which are flagged.
fn control_fdr(p_values: &[f64]) -> Vec<bool> {
    let tested: Vec<usize> = (0..p_values.len()).filter(|&i| p_values[i].is_finite()).collect();
    let p: Vec<f64> = tested.iter().map(|&i| p_values[i]).collect();
    let mut flagged = vec![false; p_values.len()];
    for (&i, q) in tested.iter().zip(adjust(&p, Procedure::BenjaminiHochberg)) {
        flagged[i] = q <= FDR;
    }
    flagged
}

/// One other record's value of a point against the baseline's.
#[derive(Debug, Clone, PartialEq)]
pub struct Versus {
    /// The other side's median (ns; the geometric mean of its replicates).
    pub median: f64,
    /// other / baseline, with its 95% CI holding both within-run errors and the run level; `None` when a
    /// CI is missing or reaches zero.
    pub ratio: Option<RatioCi>,
    /// The two-sided p-value of no change, before the control for multiple comparisons; NaN without a ratio.
    pub p_value: f64,
    /// Flagged: the p-value survives Benjamini–Hochberg at [`FDR`] over every point compared with this record.
    pub significant: bool,
    /// The ratio was read at the baseline's speed (the family's speed covariate).
    pub speed_adjusted: bool,
    /// The two records' estimates stand for different host states (baseline's, this record's round trip in
    /// ns): not compared, since the host's placement and not the primitive would make the difference
    /// (docs/METHOD.md §19).
    pub host_states_differ: Option<(f64, f64)>,
}

/// A point of the baseline, with each other record's value (`None` where that record lacks it).
#[derive(Debug, Clone, PartialEq)]
pub struct PointComparison {
    pub name: String,
    /// The baseline's median (ns).
    pub baseline: f64,
    pub others: Vec<Option<Versus>>,
}

/// The precision-weighted geometric mean of the ratios of one family's shared points, per other record
/// (`None` where no point with a CI is shared).
#[derive(Debug, Clone, PartialEq)]
pub struct FamilyMean {
    /// `base`, `clock`, …: the point name up to its first `.`.
    pub family: String,
    pub others: Vec<Option<FamilyVersus>>,
}

/// One other record's family ratio against the baseline's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FamilyVersus {
    /// The ratio with its 95% CI (the shared shift whole, t at the Satterthwaite degrees of freedom).
    pub ratio: RatioCi,
    /// The points it is over.
    pub points: usize,
    /// Two-sided p-value of no change, before the control.
    pub p_value: f64,
    /// Flagged after Benjamini–Hochberg at [`FDR`] over the families compared with this record.
    pub flagged: bool,
}

/// How many tests a comparison with one other record made and what they flagged: the line that lets a reader
/// judge "9 of 338".
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Multiplicity {
    /// Points with a ratio and a p-value.
    pub compared: usize,
    /// Points flagged after the control.
    pub flagged: usize,
    /// Points with p < 0.05 before it.
    pub raw: usize,
    /// Points left out because the two records' estimates stand for different host states.
    pub state_mismatched: usize,
}

/// What the comparison says about each side before any point: its records, machine speed and state, and
/// where its run level came from.
#[derive(Debug, Clone, PartialEq)]
pub struct SideSummary {
    pub label: String,
    /// Records on this side (replicates).
    pub runs: usize,
    /// The reference loop's ns per iteration (geometric mean over the side's records).
    pub speed_ns: Option<f64>,
    /// The largest share of a measured CPU that other processes took, and steal, over the side's records.
    pub max_other_share: Option<f64>,
    pub max_steal_share: Option<f64>,
    /// Where its run level came from, in words.
    pub run_level: String,
    /// Runs with a repetition behind the run level (0 when assumed).
    pub run_level_runs: usize,
}

/// The whole comparison: the baseline first in `labels` and `sides`.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub labels: Vec<String>,
    pub sides: Vec<SideSummary>,
    /// Per other side: how its machine's speed compared with the baseline's, as a finding.
    pub speed_findings: Vec<String>,
    /// Per other side whose records come from another build than the baseline's: that the run level does
    /// not cover the difference (docs/METHOD.md §13, "Between builds").
    pub build_findings: Vec<String>,
    /// The baseline's points, in name order.
    pub points: Vec<PointComparison>,
    pub families: Vec<FamilyMean>,
    /// Per family with a speed covariate: the decision in words.
    pub speed_decisions: Vec<(String, String)>,
    /// Per other record: the points compared and flagged, before and after the control.
    pub multiplicity: Vec<Multiplicity>,
    /// Per other record, the points it has that the baseline lacks; and the baseline's points no other
    /// record has.
    pub only_in: Vec<(String, Vec<String>)>,
}

/// Every side after the first against the first.
///
/// Panics if `sides` is empty.
pub fn compare(sides: &[ComparedRuns]) -> Comparison {
    let (baseline, others) = sides.split_first().expect("a comparison needs a baseline");
    let mut points: Vec<PointComparison> = baseline
        .names()
        .into_iter()
        .filter_map(|name| {
            let a = baseline.point(name)?;
            Some(PointComparison {
                name: name.clone(),
                baseline: a.median,
                others: others.iter().map(|o| versus(name, baseline, &a, o)).collect(),
            })
        })
        .collect();
    let multiplicity = (0..others.len()).map(|j| flag_points(&mut points, j)).collect();
    let base_names = baseline.names();
    let mut only_in: Vec<(String, Vec<String>)> = others
        .iter()
        .map(|o| (o.label.clone(), o.names().into_iter().filter(|n| !base_names.contains(*n)).cloned().collect()))
        .collect();
    let lonely: Vec<String> =
        points.iter().filter(|p| p.others.iter().all(Option::is_none)).map(|p| p.name.clone()).collect();
    only_in.insert(0, (baseline.label.clone(), lonely));
    only_in.retain(|(_, names)| !names.is_empty());
    let speed_decisions = baseline
        .level
        .families
        .iter()
        .filter(|(_, f)| f.speed_slope.is_some())
        .map(|(name, f)| (name.clone(), f.speed_decision.clone()))
        .collect();
    Comparison {
        labels: sides.iter().map(|s| s.label.clone()).collect(),
        sides: sides.iter().map(side_summary).collect(),
        speed_findings: others.iter().map(|o| speed_finding(baseline, o)).collect(),
        build_findings: others.iter().filter_map(|o| build_finding(baseline, o)).collect(),
        families: family_means(baseline, others),
        points,
        speed_decisions,
        multiplicity,
        only_in,
    }
}

/// Flags the points of the `j`-th other record whose p-value survives the control, and counts them.
fn flag_points(points: &mut [PointComparison], j: usize) -> Multiplicity {
    let p: Vec<f64> = points.iter().map(|c| c.others[j].as_ref().map_or(f64::NAN, |v| v.p_value)).collect();
    let flags = control_fdr(&p);
    for (c, flag) in points.iter_mut().zip(&flags) {
        if let Some(v) = c.others[j].as_mut() {
            v.significant = *flag;
        }
    }
    Multiplicity {
        compared: p.iter().filter(|p| p.is_finite()).count(),
        flagged: flags.iter().filter(|f| **f).count(),
        raw: p.iter().filter(|p| **p < 0.05).count(),
        state_mismatched: points
            .iter()
            .filter(|c| c.others[j].as_ref().is_some_and(|v| v.host_states_differ.is_some()))
            .count(),
    }
}

fn side_summary(s: &ComparedRuns) -> SideSummary {
    let max = |f: fn(&RunSummary) -> Option<f64>| s.runs.iter().filter_map(f).reduce(f64::max);
    SideSummary {
        label: s.label.clone(),
        runs: s.runs.len(),
        speed_ns: s.speed_ns(),
        max_other_share: max(|r| r.max_other_share),
        max_steal_share: max(|r| r.max_steal_share),
        run_level: s.level.description(),
        run_level_runs: s.level.source.runs(),
    }
}

/// "B's machine ran 2.5% faster by the reference loop (0.230 vs 0.236 ns per iteration)", or why no speed
/// can be compared.
fn speed_finding(a: &ComparedRuns, b: &ComparedRuns) -> String {
    match (a.speed_ns(), b.speed_ns()) {
        (Some(sa), Some(sb)) => {
            let change = sa / sb - 1.0;
            let how = if change >= 0.0 { "faster" } else { "slower" };
            let machines = if a.machine().is_some() && a.machine() == b.machine() { "" } else { " (another machine)" };
            format!(
                "{}'s machine ran {:.1}% {how} than {}'s by the reference loop ({sb:.4} vs {sa:.4} ns per iteration){machines}",
                b.label,
                change.abs() * 100.0,
                a.label
            )
        }
        _ => format!("{} or {} has no reference-loop speed: their speeds cannot be compared", a.label, b.label),
    }
}

/// The builds (version and commit) of a side's records, in order, each once.
fn builds(side: &ComparedRuns) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for build in side.runs.iter().filter_map(|r| r.config.as_ref()).map(|c| c.build.as_str()) {
        if !out.contains(&build) {
            out.push(build);
        }
    }
    out
}

/// When `b`'s records come from another build than `a`'s, a finding that says so and what it means: the run
/// level is estimated within one build, and code layout alone moves points of a few ns between builds
/// (docs/METHOD.md §13, "Between builds"; Mytkowicz et al., "Producing wrong data without doing anything
/// obviously wrong!", ASPLOS 2009). `None` for one build, or where a record does not name its build.
fn build_finding(a: &ComparedRuns, b: &ComparedRuns) -> Option<String> {
    let (ba, bb) = (builds(a), builds(b));
    if ba.is_empty() || bb.is_empty() || ba == bb {
        return None;
    }
    Some(format!(
        "{} ({}) and {} ({}) come from different builds: the run level covers runs of one build, and code layout \
         alone can move points of a few ns between builds, either way (docs/METHOD.md §13, \"Between builds\")",
        b.label,
        bb.join(", "),
        a.label,
        ba.join(", ")
    ))
}

/// The speed adjustment of `family`'s log ratios of `other` against `baseline` (log scale): the family's
/// slope times the difference of ln(speed), when the history chose the covariate for it and both sides ran
/// on one machine (across machines the speed is part of the finding); `None` otherwise. With it, the
/// variance the slope's own uncertainty adds: its estimate's variance times the squared speed difference,
/// with the slope's residual degrees of freedom.
fn speed_adjustment(family: &str, baseline: &ComparedRuns, other: &ComparedRuns) -> Option<(f64, VarTerm)> {
    let level = baseline.level.family(family);
    let slope = level.speed_slope?;
    let same_machine = baseline.machine().is_some() && baseline.machine() == other.machine();
    let (sa, sb) = (baseline.speed_ns()?, other.speed_ns()?);
    let delta = sb.ln() - sa.ln();
    let (slope_var, df) = level.speed_slope_var;
    same_machine.then_some((slope * delta, VarTerm { var: slope_var * delta * delta, df }))
}

/// The degrees of freedom of a side's run-level estimates for `family`: the prior's weight and the data's.
fn level_df(side: &ComparedRuns, family: &str) -> f64 {
    PRIOR_RUNS + side.level.family(family).df
}

/// The variance terms (log scale) of a side's value of point `name` beyond its family's shift: its
/// replicates' within-run variance and the point's own run level, over the replicates.
fn point_own_terms(side: &ComparedRuns, name: &str, p: &LogPoint) -> [VarTerm; 2] {
    let df = level_df(side, family_of(name));
    [
        VarTerm { var: p.within / p.replicates, df: p.within_df },
        VarTerm { var: side.level.point_var(name, p.within) / p.replicates, df },
    ]
}

/// The family's shift on a side, over its replicates, as a variance term.
fn shift_term(side: &ComparedRuns, family: &str, replicates: f64) -> VarTerm {
    VarTerm { var: side.level.family(family).shift_var / replicates, df: level_df(side, family) }
}

/// The two host states (baseline's, the other's round trip, ns) when a cross-core point's two estimates stand
/// for different ones; `None` when they share one or either names none.
fn states_differ(a: &SidePoint, b: &SidePoint) -> Option<(f64, f64)> {
    match (a.host_state_ns, b.host_state_ns) {
        (Some(x), Some(y)) if !same_state(x, y) => Some((x, y)),
        _ => None,
    }
}

fn versus(name: &str, baseline: &ComparedRuns, a: &SidePoint, other: &ComparedRuns) -> Option<Versus> {
    let b = other.point(name)?;
    let family = family_of(name);
    let adjustment = speed_adjustment(family, baseline, other);
    let host_states_differ = states_differ(a, &b);
    let tested = match (a.logged, b.logged) {
        _ if host_states_differ.is_some() => None,
        (Some(la), Some(lb)) => {
            let log = lb.log - la.log - adjustment.map_or(0.0, |a| a.0);
            let mut terms = point_own_terms(baseline, name, &la).to_vec();
            terms.extend(adjustment.map(|a| a.1));
            terms.extend(point_own_terms(other, name, &lb));
            terms.push(shift_term(baseline, family, la.replicates));
            terms.push(shift_term(other, family, lb.replicates));
            t_ratio(log, satterthwaite(&terms))
        }
        _ => None,
    };
    Some(Versus {
        median: b.median,
        ratio: tested.map(|t| t.0),
        p_value: tested.map_or(f64::NAN, |t| t.1),
        significant: false,
        speed_adjusted: adjustment.is_some() && tested.is_some(),
        host_states_differ,
    })
}

/// Per family, per other side: the mean of the shared points' log ratios. Its variance holds each point's
/// within-run and own run-level variance over n² and the family's shift whole, from both sides.
fn family_means(baseline: &ComparedRuns, others: &[ComparedRuns]) -> Vec<FamilyMean> {
    let mut families: BTreeMap<String, Vec<&String>> = BTreeMap::new();
    for name in baseline.names() {
        families.entry(family_of(name).to_string()).or_default().push(name);
    }
    let mut means: Vec<FamilyMean> = families
        .into_iter()
        .map(|(family, names)| FamilyMean {
            others: others.iter().map(|o| family_mean(&family, &names, baseline, o)).collect(),
            family,
        })
        .collect();
    for j in 0..others.len() {
        let p: Vec<f64> = means.iter().map(|m| m.others[j].map_or(f64::NAN, |f| f.p_value)).collect();
        for (m, flag) in means.iter_mut().zip(control_fdr(&p)) {
            if let Some(f) = m.others[j].as_mut() {
                f.flagged = flag;
            }
        }
    }
    means
}

/// A family's ratio: each shared point's log ratio weighted by the inverse of its own variance (beyond the
/// shift), so a noisy point counts for less; the variance of the weighted mean and the shift of both sides
/// whole, with their degrees of freedom. A cross-core point whose two estimates stand for different host
/// states is left out, as it is from the points' comparison ([`states_differ`]): the host's move is not
/// the family's change.
fn family_mean(family: &str, names: &[&String], baseline: &ComparedRuns, other: &ComparedRuns) -> Option<FamilyVersus> {
    let speed = speed_adjustment(family, baseline, other);
    let adjustment = speed.map_or(0.0, |a| a.0);
    let pairs: Vec<(f64, VarTerm, f64, f64)> = names
        .iter()
        .filter_map(|n| {
            let (a, b) = (baseline.point(n)?, other.point(n)?);
            if states_differ(&a, &b).is_some() {
                return None;
            }
            let (a, b) = (a.logged?, b.logged?);
            let mut terms = point_own_terms(baseline, n, &a).to_vec();
            terms.extend(point_own_terms(other, n, &b));
            let own = satterthwaite(&terms);
            (own.var > 0.0).then_some((b.log - a.log - adjustment, own, a.replicates, b.replicates))
        })
        .collect();
    if pairs.is_empty() {
        return None;
    }
    let weight_sum: f64 = pairs.iter().map(|p| 1.0 / p.1.var).sum();
    let mean = pairs.iter().map(|p| p.0 / p.1.var).sum::<f64>() / weight_sum;
    let n = pairs.len() as f64;
    let (ra, rb) = (pairs.iter().map(|p| p.2).sum::<f64>() / n, pairs.iter().map(|p| p.3).sum::<f64>() / n);
    // The weighted mean's variance is Σ wᵢ² vᵢ / (Σ w)² = 1 / Σ w: one term per point, vᵢ / (vᵢ Σ w)².
    let mut terms: Vec<VarTerm> =
        pairs.iter().map(|p| VarTerm { var: 1.0 / (p.1.var * weight_sum * weight_sum), df: p.1.df }).collect();
    terms.push(shift_term(baseline, family, ra));
    terms.push(shift_term(other, family, rb));
    terms.extend(speed.map(|a| a.1));
    let (ratio, p_value) = t_ratio(mean, satterthwaite(&terms))?;
    Some(FamilyVersus { ratio, points: pairs.len(), p_value, flagged: false })
}

#[cfg(test)]
mod tests;
