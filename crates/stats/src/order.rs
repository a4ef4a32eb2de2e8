//! Order statistics: percentiles and the distribution-free confidence interval of the median.

use statrs::distribution::{Binomial, DiscreteCDF};

/// Percentile `q` (0.0..=1.0) of **sorted** samples, interpolated linearly between closest ranks
/// (Hyndman & Fan type 7, the default of R and NumPy). Returns NaN for an empty slice.
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        1 => sorted[0],
        n => {
            let pos = q.clamp(0.0, 1.0) * (n - 1) as f64;
            let lo = pos.floor() as usize;
            let hi = pos.ceil() as usize;
            sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
        }
    }
}

/// The 1-based ranks `(lo, hi)` of the order statistics that bound a confidence interval for the median
/// of `n` samples, and the coverage they achieve.
///
/// The number of samples below the true median is Binomial(n, 1/2), so `[x_(lo), x_(hi)]` with
/// `hi = n + 1 - lo` covers it with probability `1 - 2·P(B ≤ lo - 1)`. We pick the largest `lo` whose
/// coverage is still at least `level` (the narrowest such interval). When `n` is too small to reach
/// `level` at all (n ≤ 5 for 95%), the widest interval `(1, n)` is returned with its smaller coverage, so
/// that callers can report the truth instead of a promise. Source: the standard nonparametric interval
/// (e.g. Conover, *Practical Nonparametric Statistics*, §3.2); lmbench and criterion report medians the
/// same way.
///
/// Panics if `n == 0`.
pub fn median_ci_ranks(n: usize, level: f64) -> (usize, usize, f64) {
    assert!(n > 0, "median_ci_ranks needs at least one sample");
    let binomial = Binomial::new(0.5, n as u64).expect("p = 0.5 and n > 0 are valid");
    let coverage = |lo: usize| 1.0 - 2.0 * binomial.cdf(lo as u64 - 1);
    let mut best = (1, n, if n == 1 { 0.0 } else { coverage(1) });
    for lo in 2..=n.div_ceil(2) {
        let c = coverage(lo);
        if c < level {
            break;
        }
        best = (lo, n + 1 - lo, c);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_interpolates_between_ranks() {
        let xs = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(percentile(&xs, 0.0), 1.0);
        assert_eq!(percentile(&xs, 0.5), 3.0);
        assert_eq!(percentile(&xs, 1.0), 5.0);
        assert!((percentile(&xs, 0.1) - 1.4).abs() < 1e-12);
        assert!((percentile(&xs, 0.9) - 4.6).abs() < 1e-12);
        assert!(percentile(&[], 0.5).is_nan());
    }

    /// Ranks from published tables of the 95% distribution-free CI of the median.
    #[test]
    fn median_ci_matches_known_order_statistics() {
        for (n, lo, hi) in [(6, 1, 6), (11, 2, 10), (20, 6, 15), (31, 10, 22), (50, 18, 33), (101, 41, 61)] {
            let (l, h, coverage) = median_ci_ranks(n, 0.95);
            assert_eq!((l, h), (lo, hi), "n = {n}");
            assert!(coverage >= 0.95, "n = {n}: coverage {coverage}");
        }
    }

    #[test]
    fn median_ci_too_few_samples_reports_true_coverage() {
        let (l, h, coverage) = median_ci_ranks(5, 0.95);
        assert_eq!((l, h), (1, 5));
        assert!((coverage - 0.9375).abs() < 1e-9);
    }
}
