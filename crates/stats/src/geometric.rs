//! The geometric mean: the mean of quantities that vary by factors (ratios between runtimes, times of one
//! point over several runs), as the log-scale intervals treat them (docs/METHOD.md §3).

/// `exp` of the mean of `ln x` over `values` (all > 0); NaN for none, or when one is not positive.
pub fn geometric_mean(values: &[f64]) -> f64 {
    if values.is_empty() || values.iter().any(|v| v.is_nan() || *v <= 0.0) {
        return f64::NAN;
    }
    (values.iter().map(|x| x.ln()).sum::<f64>() / values.len() as f64).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mean_of_factors() {
        assert!((geometric_mean(&[2.0, 8.0]) - 4.0).abs() < 1e-12);
        assert!((geometric_mean(&[0.5, 2.0]) - 1.0).abs() < 1e-12, "a factor and its inverse cancel");
        assert!((geometric_mean(&[3.0]) - 3.0).abs() < 1e-12);
        assert!(geometric_mean(&[]).is_nan());
        assert!(geometric_mean(&[1.0, 0.0]).is_nan() && geometric_mean(&[1.0, -2.0]).is_nan());
    }
}
