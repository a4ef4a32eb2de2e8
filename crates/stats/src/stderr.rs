//! Standard errors of least-squares coefficients: the square roots of the diagonal of the coefficients'
//! covariance `s²·(XᵀX)⁻¹`, where `X` is the design matrix (a column of ones, `x`, `x²`, …) and
//! `s² = Σ residual² / (n − p)` the residual variance with `n − p` degrees of freedom.

use nalgebra::{DMatrix, DVector};

/// The standard error of each coefficient of the polynomial `coefficients[0] + coefficients[1]·x + …`
/// fitted to `(xs, ys)` by least squares, in the same order. `None` when the points do not outnumber the
/// coefficients (no degree of freedom is left to estimate the scatter), the lengths differ, or the design
/// is singular (too few distinct `xs`).
pub fn standard_errors(xs: &[f64], ys: &[f64], coefficients: &[f64]) -> Option<Vec<f64>> {
    let (n, p) = (xs.len(), coefficients.len());
    if ys.len() != n || p == 0 || n <= p {
        return None;
    }
    let design = DMatrix::from_fn(n, p, |i, j| xs[i].powi(j as i32));
    // Each column scaled to a largest magnitude of 1 keeps XᵀX well conditioned when x is in the thousands;
    // the covariance is scaled back below.
    let scale: Vec<f64> = (0..p).map(|j| design.column(j).amax()).map(|m| if m > 0.0 { m } else { 1.0 }).collect();
    let scaled = DMatrix::from_fn(n, p, |i, j| design[(i, j)] / scale[j]);
    let fitted = &design * DVector::from_column_slice(coefficients);
    let residual = DVector::from_column_slice(ys) - fitted;
    let variance = residual.norm_squared() / (n - p) as f64;
    let inverse = (scaled.transpose() * &scaled).try_inverse()?;
    let errors: Vec<f64> = (0..p).map(|j| (variance * inverse[(j, j)]).max(0.0).sqrt() / scale[j]).collect();
    errors.iter().all(|e| e.is_finite()).then_some(errors)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::least_squares;

    #[test]
    fn a_straight_line_has_the_textbook_errors() {
        // About 1 + 2x, residuals ±0.1: s² = Σr²/(n − 2), se(b) = s/√Sxx, se(a) = s·√(1/n + x̄²/Sxx).
        let xs = [1.0, 2.0, 3.0, 4.0, 5.0];
        let ys = [3.1, 4.9, 7.1, 8.9, 11.1];
        let fit = least_squares(&xs, &ys).unwrap();
        let se = standard_errors(&xs, &ys, &[fit.a, fit.b]).unwrap();
        let residuals: f64 = xs.iter().zip(&ys).map(|(x, y)| (y - fit.a - fit.b * x).powi(2)).sum();
        let s = (residuals / 3.0).sqrt();
        let sxx = 10.0;
        assert!((se[1] - s / f64::sqrt(sxx)).abs() < 1e-12, "{se:?}");
        assert!((se[0] - s * f64::sqrt(1.0 / 5.0 + 9.0 / sxx)).abs() < 1e-12, "{se:?}");
    }

    #[test]
    fn exact_data_has_no_error_and_too_few_points_have_none() {
        let xs = [1.0, 2.0, 4.0, 8.0];
        let ys: Vec<f64> = xs.iter().map(|x| 5.0 + 0.5 * x + 0.25 * x * x).collect();
        let se = standard_errors(&xs, &ys, &[5.0, 0.5, 0.25]).unwrap();
        assert!(se.iter().all(|e| *e < 1e-6), "{se:?}");
        assert!(standard_errors(&xs[..3], &ys[..3], &[5.0, 0.5, 0.25]).is_none(), "3 points, 3 coefficients");
        assert!(standard_errors(&[1.0, 2.0], &[1.0, 2.0], &[0.0, 1.0]).is_none(), "2 points, 2 coefficients");
        assert!(standard_errors(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0], &[2.0, 0.0]).is_none(), "one x");
    }
}
