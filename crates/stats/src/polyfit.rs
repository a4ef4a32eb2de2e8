//! Least squares for the quadratic `y = a + b·x + c·x²`: Ben-Asher & Feitelson 1991 §8.2 (Fig. 10) shows the spin-with-yield
//! barrier's "spawn & sync" time growing with the square of the activities per CPU; the `c` term is that
//! growth, and a blocking barrier should bring it to about zero.

use serde::{Deserialize, Serialize};

/// A fit `y = a + b·x + c·x²` with its coefficient of determination.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct QuadraticFit {
    /// Constant term, unit of `y`.
    pub a: f64,
    /// Linear term, unit of `y` per unit of `x`.
    pub b: f64,
    /// Quadratic term, unit of `y` per unit of `x` squared.
    pub c: f64,
    /// Coefficient of determination, 0..=1 (NaN when `y` is constant).
    pub r2: f64,
}

/// Least-squares fit of `ys` against `xs` with a quadratic. Returns `None` with fewer than three points,
/// lengths that differ, or fewer than three distinct `xs` (the normal equations are singular).
pub fn quadratic_least_squares(xs: &[f64], ys: &[f64]) -> Option<QuadraticFit> {
    if xs.len() != ys.len() || xs.len() < 3 {
        return None;
    }
    // Centre and scale x so the normal equations stay well conditioned for x in the thousands.
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let scale = xs.iter().map(|x| (x - mean).abs()).fold(0.0, f64::max);
    if scale == 0.0 {
        return None;
    }
    let u: Vec<f64> = xs.iter().map(|x| (x - mean) / scale).collect();
    let s = |p: i32| u.iter().map(|v| v.powi(p)).sum::<f64>();
    let t = |p: i32| u.iter().zip(ys).map(|(v, y)| v.powi(p) * y).sum::<f64>();
    let m = [[n, s(1), s(2)], [s(1), s(2), s(3)], [s(2), s(3), s(4)]];
    let [p0, p1, p2] = solve3(m, [t(0), t(1), t(2)])?;
    // Back from u = (x − mean)/scale to x.
    let c = p2 / (scale * scale);
    let b = p1 / scale - 2.0 * c * mean;
    let a = p0 - p1 * mean / scale + c * mean * mean;
    let mean_y = ys.iter().sum::<f64>() / n;
    let ss_tot: f64 = ys.iter().map(|y| (y - mean_y).powi(2)).sum();
    let ss_res: f64 = xs.iter().zip(ys).map(|(x, y)| (y - a - b * x - c * x * x).powi(2)).sum();
    Some(QuadraticFit { a, b, c, r2: 1.0 - ss_res / ss_tot })
}

/// Solves a 3×3 system by Cramer's rule; `None` when it is singular.
fn solve3(m: [[f64; 3]; 3], r: [f64; 3]) -> Option<[f64; 3]> {
    let det = |m: [[f64; 3]; 3]| {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    };
    let d = det(m);
    if d.abs() < 1e-12 * m[0][0].abs().max(1.0).powi(3) {
        return None;
    }
    let with_column = |k: usize| {
        let mut mk = m;
        for (row, value) in mk.iter_mut().zip(r) {
            row[k] = value;
        }
        det(mk) / d
    };
    Some([with_column(0), with_column(1), with_column(2)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_known_coefficients_from_exact_data() {
        let xs: Vec<f64> = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0].to_vec();
        let ys: Vec<f64> = xs.iter().map(|x| 5.0 + 0.5 * x + 0.25 * x * x).collect();
        let fit = quadratic_least_squares(&xs, &ys).unwrap();
        assert!((fit.a - 5.0).abs() < 1e-8, "{fit:?}");
        assert!((fit.b - 0.5).abs() < 1e-9, "{fit:?}");
        assert!((fit.c - 0.25).abs() < 1e-10, "{fit:?}");
        assert!((fit.r2 - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_straight_line_has_no_quadratic_term() {
        let xs: Vec<f64> = (1..=10).map(|x| f64::from(x) * 100.0).collect();
        let ys: Vec<f64> = xs.iter().map(|x| 3.0 + 2.0 * x).collect();
        let fit = quadratic_least_squares(&xs, &ys).unwrap();
        assert!(fit.c.abs() < 1e-12, "{fit:?}");
        assert!((fit.b - 2.0).abs() < 1e-9);
    }

    #[test]
    fn refuses_degenerate_input() {
        assert!(quadratic_least_squares(&[1.0, 2.0], &[1.0, 2.0]).is_none());
        assert!(quadratic_least_squares(&[1.0, 1.0, 2.0, 2.0], &[1.0, 1.0, 2.0, 2.0]).is_none());
        assert!(quadratic_least_squares(&[1.0, 2.0, 3.0], &[1.0, 2.0]).is_none());
    }
}
