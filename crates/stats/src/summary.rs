//! The robust summary of one point's samples (docs/METHOD.md §1).

use serde::{Deserialize, Serialize};

use super::order::{median_ci_ranks, percentile};

/// Confidence level of the interval around the median.
pub const CI_LEVEL: f64 = 0.95;

/// The normal quantile of a two-sided 95% interval (what a 95% CI's half-width is in standard errors for
/// a normal estimate).
pub const Z95: f64 = 1.959_963_984_540_054;

/// Summary of repeated samples, all in the samples' unit (ns per operation for timings).
///
/// `ci_low..=ci_high` is the distribution-free confidence interval of the median from order statistics
/// (see [`median_ci_ranks`]); `ci_level` is the coverage actually achieved, below 0.95 only for n ≤ 5.
/// `mad` is the raw median absolute deviation (not scaled by 1.4826).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of samples.
    pub n: usize,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// 10th percentile (type-7 interpolation).
    pub p10: f64,
    /// 90th percentile (type-7 interpolation).
    pub p90: f64,
    /// Median absolute deviation from the median.
    pub mad: f64,
    pub mean: f64,
    /// Sample standard deviation (n − 1 in the denominator; 0 for one sample).
    pub stddev: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    pub ci_level: f64,
}

impl Summary {
    /// Summarises `samples`. Returns `None` for an empty slice or when any sample is not finite, since a
    /// NaN would make every order statistic meaningless.
    pub fn of(samples: &[f64]) -> Option<Summary> {
        if samples.is_empty() || samples.iter().any(|x| !x.is_finite()) {
            return None;
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let median = percentile(&sorted, 0.5);
        let mut deviations: Vec<f64> = sorted.iter().map(|x| (x - median).abs()).collect();
        deviations.sort_by(f64::total_cmp);
        let mean = sorted.iter().sum::<f64>() / n as f64;
        let stddev =
            if n > 1 { (sorted.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt() } else { 0.0 };
        let (lo, hi, ci_level) = median_ci_ranks(n, CI_LEVEL);
        Some(Summary {
            n,
            median,
            min: sorted[0],
            max: sorted[n - 1],
            p10: percentile(&sorted, 0.1),
            p90: percentile(&sorted, 0.9),
            mad: percentile(&deviations, 0.5),
            mean,
            stddev,
            ci_low: sorted[lo - 1],
            ci_high: sorted[hi - 1],
            ci_level,
        })
    }

    /// Half the width of the confidence interval, in the samples' unit.
    pub fn ci_half_width(&self) -> f64 {
        (self.ci_high - self.ci_low) / 2.0
    }

    /// Coefficient of variation, stddev / mean (a fraction, not a percentage); NaN when the mean is 0.
    pub fn cv(&self) -> f64 {
        if self.mean == 0.0 {
            f64::NAN
        } else {
            self.stddev / self.mean.abs()
        }
    }

    /// True when the CI half-width exceeds `fraction` of the median's magnitude (the noisy threshold: 5%).
    pub fn is_noisy(&self, fraction: f64) -> bool {
        self.ci_half_width() > fraction * self.median.abs()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_known_samples() {
        let xs: Vec<f64> = (1..=11).map(f64::from).rev().collect();
        let s = Summary::of(&xs).unwrap();
        assert_eq!(s.n, 11);
        assert_eq!(s.median, 6.0);
        assert_eq!((s.min, s.max), (1.0, 11.0));
        assert_eq!(s.mad, 3.0);
        assert_eq!(s.mean, 6.0);
        // Ranks 2 and 10 of 11 bound the 95% CI of the median.
        assert_eq!((s.ci_low, s.ci_high), (2.0, 10.0));
        assert!((s.p10 - 2.0).abs() < 1e-12 && (s.p90 - 10.0).abs() < 1e-12);
    }

    #[test]
    fn noisy_flag_follows_ci_width() {
        let tight: Vec<f64> = (0..31).map(|i| 100.0 + (i % 3) as f64 * 0.1).collect();
        assert!(!Summary::of(&tight).unwrap().is_noisy(0.05));
        let wide: Vec<f64> = (0..31).map(|i| 50.0 + i as f64 * 5.0).collect();
        assert!(Summary::of(&wide).unwrap().is_noisy(0.05));
    }

    #[test]
    fn refuses_empty_and_non_finite() {
        assert!(Summary::of(&[]).is_none());
        assert!(Summary::of(&[1.0, f64::NAN]).is_none());
    }
}
