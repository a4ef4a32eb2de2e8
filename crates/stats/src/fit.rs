//! Ordinary least squares for `y = a + b·x`, as Ben-Asher & Feitelson 1991 §5.1 fits scheduling overhead against load.

use serde::{Deserialize, Serialize};

/// A straight-line fit `y = a + b·x` with its coefficient of determination.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LinearFit {
    /// Intercept, in the unit of `y`.
    pub a: f64,
    /// Slope, in the unit of `y` per unit of `x`.
    pub b: f64,
    /// Coefficient of determination, 0..=1 (1 for a perfect fit; NaN when `y` is constant).
    pub r2: f64,
}

/// Least-squares fit of `ys` against `xs`. Returns `None` when there are fewer than two points, the
/// lengths differ, or all `xs` are equal (the slope is undefined).
pub fn least_squares(xs: &[f64], ys: &[f64]) -> Option<LinearFit> {
    if xs.len() != ys.len() || xs.len() < 2 {
        return None;
    }
    let n = xs.len() as f64;
    let mean_x = xs.iter().sum::<f64>() / n;
    let mean_y = ys.iter().sum::<f64>() / n;
    let sxx: f64 = xs.iter().map(|x| (x - mean_x).powi(2)).sum();
    if sxx == 0.0 {
        return None;
    }
    let sxy: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mean_x) * (y - mean_y)).sum();
    let b = sxy / sxx;
    let a = mean_y - b * mean_x;
    let ss_tot: f64 = ys.iter().map(|y| (y - mean_y).powi(2)).sum();
    let ss_res: f64 = xs.iter().zip(ys).map(|(x, y)| (y - a - b * x).powi(2)).sum();
    Some(LinearFit { a, b, r2: 1.0 - ss_res / ss_tot })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_known_coefficients_from_exact_data() {
        // Ben-Asher & Feitelson 1991 Fig. 3: 0.140 + 0.072·load ms.
        let xs: Vec<f64> = (1..=8).map(f64::from).collect();
        let ys: Vec<f64> = xs.iter().map(|x| 0.140 + 0.072 * x).collect();
        let fit = least_squares(&xs, &ys).unwrap();
        assert!((fit.a - 0.140).abs() < 1e-12);
        assert!((fit.b - 0.072).abs() < 1e-12);
        assert!((fit.r2 - 1.0).abs() < 1e-12);
    }

    #[test]
    fn refuses_degenerate_input() {
        assert!(least_squares(&[1.0], &[2.0]).is_none());
        assert!(least_squares(&[1.0, 1.0], &[2.0, 3.0]).is_none());
        assert!(least_squares(&[1.0, 2.0], &[2.0]).is_none());
    }
}
