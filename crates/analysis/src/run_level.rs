//! The run level as a variance component (docs/METHOD.md §13; Kalibera & Jones, *Rigorous benchmarking in
//! reasonable time*, ISMM 2013: estimate the variance at each level of the experiment, and count the levels
//! that one run cannot repeat).
//!
//! On the log scale a point `p` of family `F` in run `r` is `y = μ_p + f_F,r + e_p,r + w_p,r`: `w` the
//! within-run error its CI states (variance `w_p = se²`), `f` the shift every point of the family shares in
//! that run (variance `τ²_F`), and `e` what the point moves by itself between runs (variance `σ²_p`). The
//! point's prior is `σ²_p = λ_F · w_p`: what a point moves between runs grows with how noisy it is inside
//! one. Estimated by moments from groups of runs of one configuration, pooled over groups, never from
//! differences between configurations; each estimate is moderated towards the family's defaults with the
//! weight of [`PRIOR_RUNS`] runs (Smyth's moderated variances, *Linear models and empirical Bayes methods
//! for assessing differential expression*, 2004), so three runs cannot claim that a point never moves.

use std::collections::BTreeMap;

use statrs::distribution::{ContinuousCDF, FisherSnedecor};

use overhead_record::{family_of, RunSummary};
use overhead_stats::Z95;

/// How many runs' weight the defaults carry against the data (degrees of freedom of the prior).
pub const PRIOR_RUNS: f64 = 4.0;

/// The speed covariate is used for a family only when its slope is significant at this level.
pub const SPEED_P_VALUE: f64 = 0.05;

/// The measured defaults of a family, for when no repetitions are known: `(family, λ, τ)`, λ the
/// run-level variance of a point beyond its family's shift in units of its own within-run variance, τ the
/// standard deviation of the family's shared shift (log scale, ≈ relative). Measured from four back-to-back
/// default runs on this project's 2-vCPU AMD EPYC KVM guest (2026-11-25, `overhead history` on them, docs/METHOD.md
/// §13): τ as measured, but mem's 1.4% raised to the 1.8% that five earlier runs on the same VM showed (the
/// A/A pair of §13 flagged mem with a lower default); λ measured 0–0.57 (0 in seven families: beyond the shift, points moved no more
/// than their CIs said), taken as 0.25 everywhere so that no point is assumed to hold still.
pub const DEFAULTS: [(&str, f64, f64); 11] = [
    ("base", 0.25, 0.061),
    ("clock", 0.25, 0.026),
    ("timer", 0.25, 0.039),
    ("sched", 0.25, 0.026),
    ("spawn", 0.25, 0.038),
    ("grain", 0.25, 0.056),
    ("sync", 0.25, 0.033),
    ("msg", 0.25, 0.031),
    ("rpc", 0.25, 0.063),
    ("mem", 0.25, 0.018),
    ("other", 0.25, 0.063),
];

/// The default `(λ, τ)` of a family; families without one take `other`'s.
pub fn default_of(family: &str) -> (f64, f64) {
    let row = DEFAULTS.iter().find(|(f, ..)| *f == family).or_else(|| DEFAULTS.iter().find(|(f, ..)| *f == "other"));
    row.map(|&(_, l, t)| (l, t)).unwrap_or((0.25, 0.063))
}

/// Where a run-level estimate came from.
#[derive(Debug, Clone, PartialEq)]
pub enum RunLevelSource {
    /// Several records per side given to `compare`.
    Replicates { runs: usize, groups: usize },
    /// The history of the machine's runs.
    History { runs: usize, groups: usize },
    /// Neither: the measured defaults ([`DEFAULTS`]).
    Assumed,
}

impl RunLevelSource {
    /// One phrase for the reports: "assumed (defaults)", "history: 5 runs of 1 configuration", …
    pub fn describe(&self) -> String {
        let groups = |g: &usize| if *g == 1 { "1 configuration".to_string() } else { format!("{g} configurations") };
        match self {
            RunLevelSource::Replicates { runs, groups: g } => {
                format!("replicates: {runs} records in {}, moderated by the defaults", groups(g))
            }
            RunLevelSource::History { runs, groups: g } => {
                format!("this machine's history: {runs} runs in {}, moderated by the defaults", groups(g))
            }
            RunLevelSource::Assumed => "assumed: the measured defaults per family (no repetitions known)".into(),
        }
    }

    /// Runs with a repetition behind the estimate (0 when assumed).
    pub fn runs(&self) -> usize {
        match self {
            RunLevelSource::Replicates { runs, .. } | RunLevelSource::History { runs, .. } => *runs,
            RunLevelSource::Assumed => 0,
        }
    }
}

/// A family's run level.
#[derive(Debug, Clone, PartialEq)]
pub struct FamilyRunLevel {
    /// A point's run-level variance beyond the shift, in units of its within-run variance (moderated).
    pub lambda: f64,
    /// Variance of the family's shared shift (log scale, moderated).
    pub shift_var: f64,
    /// Degrees of freedom of the data behind it (runs − configurations); 0 when assumed.
    pub df: f64,
    /// The data's own estimates before moderation (λ, τ²), when there were data.
    pub data: Option<(f64, f64)>,
    /// Slope of the family's shift on ln(reference loop time), when the history shows that the machine's
    /// speed explains part of it ([`SPEED_P_VALUE`]); `None` otherwise.
    pub speed_slope: Option<f64>,
    /// The variance of that slope's estimate (residual variance over Σ c², log scale per unit ln speed) and
    /// its degrees of freedom: a ratio read at the baseline's speed carries it, times the squared speed
    /// difference. Zeros when the covariate is not used.
    pub speed_slope_var: (f64, f64),
    /// Why the speed covariate is used or not, with the numbers.
    pub speed_decision: String,
}

impl FamilyRunLevel {
    /// A run level not estimated from data: `lambda` and the shift's standard deviation `tau` (log scale)
    /// given, no degrees of freedom, no speed covariate, and `why` as the covariate's decision.
    fn unestimated(lambda: f64, tau: f64, why: &str) -> FamilyRunLevel {
        FamilyRunLevel {
            lambda,
            shift_var: tau * tau,
            df: 0.0,
            data: None,
            speed_slope: None,
            speed_slope_var: (0.0, 0.0),
            speed_decision: why.into(),
        }
    }
}

/// A point's own data, pooled over configurations: sums for the moderated estimate.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct PointData {
    /// Σ (y − ȳ)² over runs of each configuration.
    ss: f64,
    /// What the within-run errors contribute to `ss` in expectation: Σ (n − 1)/n · Σ w.
    within: f64,
    /// Σ (n − 1).
    df: f64,
}

/// The run level of one machine's runs: per family, and the data of each point.
#[derive(Debug, Clone, PartialEq)]
pub struct RunLevel {
    pub source: RunLevelSource,
    /// Runs of the history left out because the machine-state check flagged them as shared (another process
    /// or the hypervisor took a measured CPU): their shifts are the neighbour's, not the machine's.
    pub shared_left_out: usize,
    pub families: BTreeMap<String, FamilyRunLevel>,
    points: BTreeMap<String, PointData>,
}

impl RunLevel {
    /// Where it came from, in words, and the shared runs it left out.
    pub fn description(&self) -> String {
        match self.shared_left_out {
            0 => self.source.describe(),
            n => format!("{}; {n} run(s) the machine-state check flagged as shared left out", self.source.describe()),
        }
    }

    /// The measured defaults, for when no repetition is known.
    pub fn assumed() -> RunLevel {
        RunLevel {
            source: RunLevelSource::Assumed,
            shared_left_out: 0,
            families: BTreeMap::new(),
            points: BTreeMap::new(),
        }
    }

    /// A run level with the given `(family, λ, τ)`, labelled assumed: for tests and what-if readings.
    pub fn fixed(families: &[(&str, f64, f64)]) -> RunLevel {
        let families = families
            .iter()
            .map(|&(f, lambda, tau)| (f.to_string(), FamilyRunLevel::unestimated(lambda, tau, "fixed: not used")))
            .collect();
        RunLevel { source: RunLevelSource::Assumed, shared_left_out: 0, families, points: BTreeMap::new() }
    }

    /// The family's run level: estimated, or its default.
    pub fn family(&self, family: &str) -> FamilyRunLevel {
        self.families.get(family).cloned().unwrap_or_else(|| {
            let (lambda, tau) = default_of(family);
            FamilyRunLevel::unestimated(lambda, tau, "no repetitions: not used")
        })
    }

    /// The variance (log scale) that point `name` moves by between runs beyond its family's shift, for a
    /// within-run variance of `w`: the family's `λ · w`, moderated with the point's own data.
    pub fn point_var(&self, name: &str, w: f64) -> f64 {
        let family = self.family(family_of(name));
        let prior = family.lambda * w;
        match self.points.get(name) {
            Some(d) if d.df > 0.0 => {
                // The point's own estimate is moderated before it is floored at zero: flooring each noisy
                // estimate first would bias every point upwards.
                let own = (d.ss - d.within) / d.df - family.shift_var;
                ((PRIOR_RUNS * prior + d.df * own) / (PRIOR_RUNS + d.df)).max(0.0)
            }
            _ => prior,
        }
    }

    /// For each point of `run`: the half-width (% of its median) of the 95% range in which a run's median
    /// falls around the configuration's long-run value, `1.96 · √(w + σ²_p + τ²_F)` on the log scale.
    pub fn between_runs_pct(&self, run: &RunSummary) -> BTreeMap<String, f64> {
        run.points
            .iter()
            .filter_map(|(name, p)| {
                let w = p.log_se()?.powi(2);
                let v = w + self.point_var(name, w) + self.family(family_of(name)).shift_var;
                Some((name.clone(), ((Z95 * v.sqrt()).exp() - 1.0) * 100.0))
            })
            .collect()
    }

    /// Estimates the run level from `groups`, each the runs of one configuration (groups of fewer than two
    /// runs add nothing). The per-point data are kept for [`RunLevel::point_var`]; the family's λ, τ² and
    /// speed slope are pooled over its points and moderated towards [`DEFAULTS`].
    pub fn estimate(groups: &[Vec<&RunSummary>], source: RunLevelSource) -> RunLevel {
        let groups: Vec<&Vec<&RunSummary>> = groups.iter().filter(|g| g.len() >= 2).collect();
        let families = families_of(&groups);
        // First the speed covariate per family, on the raw values; then everything on the adjusted ones.
        let slopes: Slopes = families.iter().map(|f| (f.clone(), speed_covariate(&groups, f))).collect();
        let mut points: BTreeMap<String, PointData> = BTreeMap::new();
        let mut shift: BTreeMap<String, ShiftSums> = BTreeMap::new();
        for group in &groups {
            accumulate_group(group, &slopes, &mut points, &mut shift);
        }
        let mut level = RunLevel { source, shared_left_out: 0, families: BTreeMap::new(), points };
        for family in families {
            let sums = shift.get(&family).copied().unwrap_or_default();
            let covariate = slopes.get(&family).cloned().unwrap_or((None, String::new()));
            let family_level = family_level(&family, sums, &level.points, covariate);
            level.families.insert(family, family_level);
        }
        level
    }
}

/// Each family's speed covariate and the words of its decision ([`speed_covariate`]).
type Slopes = BTreeMap<String, (Option<SpeedCovariate>, String)>;

/// A family's sums for its shared shift over the groups: Σ (SSm − noise), Σ (R − 1)(1 − Σ a²), Σ (R − 1).
type ShiftSums = (f64, f64, f64);

/// The families of every point of `groups`, sorted.
fn families_of(groups: &[&Vec<&RunSummary>]) -> Vec<String> {
    let mut f: Vec<String> =
        groups.iter().flat_map(|g| g.iter().flat_map(|r| r.points.keys().map(|n| family_of(n).to_string()))).collect();
    f.sort();
    f.dedup();
    f
}

/// A point's log median in run `r`, adjusted for the run's speed by its family's slope (`centre`: the group's
/// mean log speed), and its squared log standard error.
fn adjusted(r: &RunSummary, name: &str, centre: f64, slopes: &Slopes) -> Option<(f64, f64)> {
    let p = r.points.get(name)?;
    let (y, se) = (p.median_ns.ln(), p.log_se()?);
    let slope = slopes.get(family_of(name)).and_then(|s| s.0).map_or(0.0, |c| c.0);
    let c = r.speed_ns.map(|s| s.ln() - centre).unwrap_or(0.0);
    Some((y - slope * c, se * se))
}

/// One group of runs of one configuration into the points' sums and the families' shift sums.
fn accumulate_group(
    group: &[&RunSummary],
    slopes: &Slopes,
    points: &mut BTreeMap<String, PointData>,
    shift: &mut BTreeMap<String, ShiftSums>,
) {
    let centre = speed_centre(group);
    let names: std::collections::BTreeSet<&String> = group.iter().flat_map(|r| r.points.keys()).collect();
    // Residuals of the points present in every run of the group, per family, for the shift.
    let mut residuals: BTreeMap<&str, Vec<Residuals>> = BTreeMap::new();
    for name in names {
        let values: Vec<(f64, f64)> = group.iter().filter_map(|r| adjusted(r, name, centre, slopes)).collect();
        let n = values.len();
        if n < 2 {
            continue;
        }
        let mean = values.iter().map(|v| v.0).sum::<f64>() / n as f64;
        let ss: f64 = values.iter().map(|v| (v.0 - mean).powi(2)).sum();
        let d = points.entry(name.clone()).or_default();
        d.ss += ss;
        d.within += (n as f64 - 1.0) / n as f64 * values.iter().map(|v| v.1).sum::<f64>();
        d.df += n as f64 - 1.0;
        if n == group.len() {
            residuals.entry(family_of(name)).or_default().push((
                values.iter().map(|v| v.0 - mean).collect(),
                ss,
                values.iter().map(|v| v.1).sum::<f64>() / n as f64,
            ));
        }
    }
    for (family, res) in residuals {
        if let Some((num, den, df)) = family_shift(&res, group.len()) {
            let e = shift.entry(family.to_string()).or_default();
            e.0 += num;
            e.1 += den;
            e.2 += df;
        }
    }
}

/// One group's contribution to a family's shift sums from its points' residuals (`runs` runs each); `None`
/// below two points. The shift of run k: the mean of the points' residuals weighted by their precision inside a
/// run (a_p ∝ 1/w̄_p, which the residuals do not set), so that a few noisy points do not pass for a shift.
/// E[Σ_k m_k²] = (R − 1)(τ² + Σ a_p²(σ²_p + w̄_p)), and Σ a_p² s²_p estimates Σ a_p²(σ²_p + w̄_p + τ²): hence
/// the numerator and the (1 − Σ a_p²).
fn family_shift(res: &[Residuals], runs: usize) -> Option<ShiftSums> {
    if res.len() < 2 {
        return None;
    }
    let r = runs as f64;
    let weights: Vec<f64> = res.iter().map(|p| 1.0 / p.2.max(1e-12)).collect();
    let total: f64 = weights.iter().sum();
    let a: Vec<f64> = weights.iter().map(|w| w / total).collect();
    let ssm: f64 = (0..runs).map(|k| res.iter().zip(&a).map(|(p, a)| a * p.0[k]).sum::<f64>().powi(2)).sum();
    let a2: f64 = a.iter().map(|a| a * a).sum();
    let noise: f64 = res.iter().zip(&a).map(|(p, a)| a * a * p.1).sum();
    Some((ssm - noise, (r - 1.0) * (1.0 - a2), r - 1.0))
}

/// A family's run level from its shift sums and its points' data: the shift's variance and λ, each moderated
/// toward the family's default by [`PRIOR_RUNS`], and its speed covariate.
fn family_level(
    family: &str,
    (num, den, df): ShiftSums,
    points: &BTreeMap<String, PointData>,
    (covariate, speed_decision): (Option<SpeedCovariate>, String),
) -> FamilyRunLevel {
    let (default_lambda, tau) = default_of(family);
    let tau2_hat = if den > 0.0 { (num / den).max(0.0) } else { tau * tau };
    let shift_data = (den > 0.0).then_some(tau2_hat);
    let shift_var = (PRIOR_RUNS * tau * tau + df * tau2_hat) / (PRIOR_RUNS + df);
    // λ: the points' run-level variance beyond the data's own shift, over their within-run variance, pooled
    // over the family; then moderated like the shift.
    let (mut excess, mut scale) = (0.0, 0.0);
    for d in points.iter().filter(|(n, _)| family_of(n) == family).map(|(_, d)| d) {
        excess += d.ss - d.within - d.df * tau2_hat;
        scale += d.within;
    }
    let lambda_data = (scale > 0.0).then(|| (excess / scale).max(0.0));
    let lambda_hat = lambda_data.unwrap_or(default_lambda);
    let lambda = (PRIOR_RUNS * default_lambda + df * lambda_hat) / (PRIOR_RUNS + df);
    let (speed_slope, speed_slope_var) = (covariate.map(|c| c.0), covariate.map_or((0.0, 0.0), |c| (c.1, c.2)));
    let data = lambda_data.zip(shift_data);
    FamilyRunLevel { lambda, shift_var, df, data, speed_slope, speed_slope_var, speed_decision }
}

/// One point's residuals from its mean in each run of a group, its sum of squares, and its mean within-run
/// variance.
type Residuals = (Vec<f64>, f64, f64);

/// The mean of ln(speed) over the group's runs that recorded it (0 when none did).
fn speed_centre(group: &[&RunSummary]) -> f64 {
    let logs: Vec<f64> = group.iter().filter_map(|r| r.speed_ns.filter(|s| *s > 0.0).map(f64::ln)).collect();
    if logs.is_empty() {
        0.0
    } else {
        logs.iter().sum::<f64>() / logs.len() as f64
    }
}

/// A family's speed covariate: `(slope, variance of its estimate, that variance's degrees of freedom)`.
type SpeedCovariate = (f64, f64, f64);

/// Whether the machine's speed explains the family's shift: the least-squares slope of the family's mean
/// residual per run on the run's centred ln(speed), within configurations, used when its F test gives
/// p < [`SPEED_P_VALUE`] with at least 3 residual degrees of freedom. Returns the slope when used, with the
/// variance of its estimate and that variance's degrees of freedom, and the decision in words.
fn speed_covariate(groups: &[&Vec<&RunSummary>], family: &str) -> (Option<SpeedCovariate>, String) {
    let (mut smc, mut scc, mut smm, mut df) = (0.0, 0.0, 0.0, 0.0);
    for group in groups {
        if group.iter().any(|r| r.speed_ns.is_none()) {
            continue;
        }
        let centre = speed_centre(group);
        let names: Vec<&String> = group[0]
            .points
            .keys()
            .filter(|n| {
                family_of(n) == family && group.iter().all(|r| r.points.get(*n).is_some_and(|p| p.median_ns > 0.0))
            })
            .collect();
        if names.is_empty() {
            continue;
        }
        let means: Vec<f64> = names
            .iter()
            .map(|n| group.iter().map(|r| r.points[*n].median_ns.ln()).sum::<f64>() / group.len() as f64)
            .collect();
        for r in group.iter() {
            let m = names.iter().zip(&means).map(|(n, mean)| r.points[*n].median_ns.ln() - mean).sum::<f64>()
                / names.len() as f64;
            let c = r.speed_ns.unwrap_or(1.0).ln() - centre;
            (smc, scc, smm) = (smc + m * c, scc + c * c, smm + m * m);
        }
        df += group.len() as f64 - 1.0;
    }
    let residual_df = df - 1.0;
    if residual_df < 3.0 || scc <= 0.0 {
        return (None, format!("not used: {df:.0} degrees of freedom with speeds (needs 4)"));
    }
    let slope = smc / scc;
    let explained = slope * slope * scc;
    let rss = (smm - explained).max(f64::MIN_POSITIVE);
    let f = explained / (rss / residual_df);
    let p = FisherSnedecor::new(1.0, residual_df).map(|d| 1.0 - d.cdf(f)).unwrap_or(1.0);
    let reduction = 1.0 - (rss / residual_df) / (smm / df).max(f64::MIN_POSITIVE);
    let words = format!(
        "slope {slope:.2} on ln(speed), F test p = {p:.3}, shift variance {:+.0}% ({df:.0} df)",
        -reduction * 100.0
    );
    if p < SPEED_P_VALUE && reduction > 0.0 {
        (Some((slope, rss / residual_df / scc, residual_df)), format!("used: {words}"))
    } else {
        (None, format!("not used: {words}"))
    }
}

/// The run level of one machine's past runs (the history's summaries, in any order): estimated from its
/// groups of repeated configurations ([`RunSummary::config`]: machine, kernel, build, options), or the
/// defaults when no configuration ran twice. Runs the machine-state check flagged as shared
/// ([`RunSummary::was_shared`]) are left out and counted: a neighbour's load is not how this machine moves
/// between runs. The history stores the runs; what they mean is this module's (so the store builds on the
/// record alone).
pub fn of_history<'a>(runs: impl IntoIterator<Item = &'a RunSummary>) -> RunLevel {
    let mut shared_left_out = 0;
    let mut groups: Vec<(&overhead_record::RunConfig, Vec<&RunSummary>)> = Vec::new();
    for run in runs {
        if run.was_shared() {
            shared_left_out += 1;
            continue;
        }
        let Some(config) = &run.config else { continue };
        match groups.iter_mut().find(|(c, _)| *c == config) {
            Some((_, same)) => same.push(run),
            None => groups.push((config, vec![run])),
        }
    }
    let repeated: Vec<Vec<&RunSummary>> = groups.into_iter().map(|(_, g)| g).filter(|g| g.len() >= 2).collect();
    let mut level = if repeated.is_empty() {
        RunLevel::assumed()
    } else {
        let runs = repeated.iter().map(Vec::len).sum();
        RunLevel::estimate(&repeated, RunLevelSource::History { runs, groups: repeated.len() })
    };
    level.shared_left_out = shared_left_out;
    level
}

#[cfg(test)]
mod tests;
