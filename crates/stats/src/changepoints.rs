//! Regimes inside one process's series of batches: changepoints by PELT (Killick, Fearnhead and Eckley,
//! "Optimal detection of changepoints with a linear computational cost", JASA 2012) with a normal
//! mean-and-variance cost and a penalty of 15·ln n, and the process's class — flat, changed, or no steady
//! state — as Barrett et al. classify in-process iterations ("Virtual Machine Warmup Blows Hot and Cold",
//! OOPSLA 2017, §4). Before the search, values far outside their neighbourhood are set aside, as Barrett et
//! al. do with a windowed rule, so that one preempted batch is no regime of its own.

use serde::{Deserialize, Serialize};

/// The penalty per changepoint, times ln n (Barrett et al.'s 15·ln n).
pub const PENALTY_PER_LN_N: f64 = 15.0;

/// Neighbouring segments whose means differ by less than this fraction (1%) are one regime.
pub const SAME_REGIME: f64 = 0.01;

/// A series whose last regime covers less than this share of it (25%, Barrett et al.'s last 500 of 2,000
/// iterations) reached no steady state.
pub const STEADY_SHARE: f64 = 0.25;

/// The shortest series classified: with fewer values no change can pass the penalty.
pub const MIN_SERIES: usize = 8;

/// Half-width of the neighbourhood the outlier rule looks at, in values.
const OUTLIER_WINDOW: usize = 100;

/// A value is an outlier when it lies more than this many times its window's 10–90% spread from the window's
/// median.
const OUTLIER_SPREADS: f64 = 5.0;

/// Smallest variance a segment may have, relative to the series' squared median (a 0.1% spread): identical
/// values would make the cost −∞, and two or three nearly equal batches would pay for a segment of their own.
const MIN_RELATIVE_VARIANCE: f64 = 1e-6;

/// A process's class by the regimes of its batches. serde: `"flat"`, `"changed"`, `"no_steady_state"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeriesClass {
    /// One regime throughout.
    Flat,
    /// It changed regime and then held the last one for at least [`STEADY_SHARE`] of the series.
    Changed,
    /// Its last regime is shorter than that: it was still changing when it ended.
    NoSteadyState,
}

/// The series' changepoints (the index where each new segment starts, ascending) after its outliers are set
/// aside; empty for a flat series or one shorter than [`MIN_SERIES`].
pub fn changepoints(series: &[f64]) -> Vec<usize> {
    if series.len() < MIN_SERIES || series.iter().any(|v| !v.is_finite()) {
        return Vec::new();
    }
    let kept: Vec<usize> = (0..series.len()).filter(|&i| !is_outlier(series, i)).collect();
    let values: Vec<f64> = kept.iter().map(|&i| series[i]).collect();
    pelt(&values).into_iter().map(|c| kept[c]).collect()
}

/// The class of a series from its changepoints; `None` for one too short to classify.
pub fn classify(series: &[f64]) -> Option<SeriesClass> {
    if series.len() < MIN_SERIES {
        return None;
    }
    let starts = regimes(series, &changepoints(series));
    let last = *starts.last().expect("a first regime");
    Some(match starts.len() {
        1 => SeriesClass::Flat,
        _ if ((series.len() - last) as f64) < STEADY_SHARE * series.len() as f64 => SeriesClass::NoSteadyState,
        _ => SeriesClass::Changed,
    })
}

/// The starts of the regimes: 0 and each changepoint whose segment's median differs from the previous
/// regime's by at least [`SAME_REGIME`].
fn regimes(series: &[f64], changepoints: &[usize]) -> Vec<usize> {
    let bounds: Vec<usize> = std::iter::once(0).chain(changepoints.iter().copied()).chain([series.len()]).collect();
    let mut starts = vec![0];
    let mut previous = segment_median(&series[bounds[0]..bounds[1]]);
    for w in bounds.windows(2).skip(1) {
        let median = segment_median(&series[w[0]..w[1]]);
        if (median - previous).abs() > SAME_REGIME * previous.abs() {
            starts.push(w[0]);
            previous = median;
        }
    }
    starts
}

fn segment_median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    super::percentile(&sorted, 0.5)
}

/// Whether value `i` lies more than [`OUTLIER_SPREADS`] × its window's 10–90% spread from the window's median.
fn is_outlier(series: &[f64], i: usize) -> bool {
    let from = i.saturating_sub(OUTLIER_WINDOW);
    let to = (i + OUTLIER_WINDOW + 1).min(series.len());
    let mut window = series[from..to].to_vec();
    window.sort_by(f64::total_cmp);
    let median = super::percentile(&window, 0.5);
    let spread = super::percentile(&window, 0.9) - super::percentile(&window, 0.1);
    spread > 0.0 && (series[i] - median).abs() > OUTLIER_SPREADS * spread
}

/// PELT over `values` with the normal mean-and-variance cost `n·ln σ̂²` of a segment (twice its negative
/// log-likelihood less constants) and penalty [`PENALTY_PER_LN_N`]·ln n; segments of at least two values.
fn pelt(values: &[f64]) -> Vec<usize> {
    let n = values.len();
    if n < 4 {
        return Vec::new();
    }
    let penalty = PENALTY_PER_LN_N * (n as f64).ln();
    let scale = segment_median(values).powi(2).max(f64::MIN_POSITIVE);
    let mut s = vec![0.0];
    let mut ss = vec![0.0];
    for v in values {
        s.push(s.last().unwrap() + v);
        ss.push(ss.last().unwrap() + v * v);
    }
    let cost = |a: usize, b: usize| -> f64 {
        let m = (b - a) as f64;
        let mean = (s[b] - s[a]) / m;
        let var = ((ss[b] - ss[a]) / m - mean * mean).max(MIN_RELATIVE_VARIANCE * scale);
        m * var.ln()
    };
    // best[t]: least penalised cost of values[..t]; last[t]: where its last segment starts.
    let mut best = vec![f64::INFINITY; n + 1];
    let mut last = vec![0usize; n + 1];
    best[0] = -penalty;
    let mut candidates: Vec<usize> = vec![0];
    for t in 2..=n {
        let mut scored: Vec<(usize, f64)> = Vec::with_capacity(candidates.len());
        for &c in candidates.iter().filter(|&&c| t - c >= 2) {
            let total = best[c] + cost(c, t) + penalty;
            scored.push((c, total));
            if total < best[t] {
                best[t] = total;
                last[t] = c;
            }
        }
        // Pruning: a start that cannot beat the best even without its penalty never will.
        let keep_below = best[t];
        candidates.retain(|&c| t - c < 2 || scored.iter().any(|&(k, total)| k == c && total - penalty <= keep_below));
        if t + 2 <= n {
            candidates.push(t);
        }
    }
    let mut points = Vec::new();
    let mut t = n;
    while t > 0 {
        let c = last[t];
        if c > 0 {
            points.push(c);
        }
        t = c;
    }
    points.reverse();
    points
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::Rng;

    fn noisy(rng: &mut Rng, level: f64, sd: f64, n: usize) -> Vec<f64> {
        (0..n).map(|_| level * (1.0 + sd * rng.normal())).collect()
    }

    #[test]
    fn a_steady_series_is_flat_over_many_seeds() {
        for seed in 1..=30 {
            let mut rng = Rng::new(seed);
            let series = noisy(&mut rng, 50.0, 0.05, 200);
            assert_eq!(classify(&series), Some(SeriesClass::Flat), "seed {seed}: {:?}", changepoints(&series));
        }
    }

    #[test]
    fn a_host_move_in_the_middle_is_found_where_it_happened() {
        let mut rng = Rng::new(2);
        let mut series = noisy(&mut rng, 53.0, 0.04, 120);
        series.extend(noisy(&mut rng, 380.0, 0.04, 80));
        let found = changepoints(&series);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!((found[0] as i64 - 120).abs() <= 2, "{found:?}");
        assert_eq!(classify(&series), Some(SeriesClass::Changed));
    }

    #[test]
    fn a_change_near_the_end_is_no_steady_state_and_an_odd_batch_is_no_regime() {
        let mut rng = Rng::new(4);
        let mut series = noisy(&mut rng, 100.0, 0.03, 180);
        series.extend(noisy(&mut rng, 150.0, 0.03, 20));
        assert_eq!(classify(&series), Some(SeriesClass::NoSteadyState));
        // One preempted batch at 20× is an outlier, not a regime.
        let mut series = noisy(&mut rng, 100.0, 0.03, 100);
        series[40] = 2000.0;
        assert_eq!(classify(&series), Some(SeriesClass::Flat), "{:?}", changepoints(&series));
    }

    #[test]
    fn nine_batches_show_a_large_change_and_short_series_are_not_classified() {
        // `--full` keeps nine batches a process: a 7× move between them is found; three batches say nothing.
        let series = [53.0, 54.0, 52.5, 53.5, 380.0, 385.0, 378.0, 382.0, 381.0];
        assert_eq!(changepoints(&series), vec![4]);
        assert_eq!(classify(&series), Some(SeriesClass::Changed));
        assert_eq!(classify(&[1.0, 2.0, 3.0]), None);
    }
}
