//! Fits across points: a curve through the medians of a series of points that differ in one parameter
//! (seed 001 fits scheduling overhead against load, Fig. 3, as `0.140 + 0.072·load` ms).

use serde::{Deserialize, Serialize};

/// `y = a + b·x` or, with `c`, `y = a + b·x + c·x²`, fitted by least squares to the medians of one
/// experiment's points for one runtime and one series (the parameters other than `x`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitRecord {
    /// Public experiment ID, e.g. `sched.yield`.
    pub experiment: String,
    pub runtime: String,
    /// The parameters shared by the series' points, in the experiment's order (without `x`).
    pub series: Vec<(String, String)>,
    /// The parameter on the x axis, e.g. `load`.
    pub x: String,
    /// Unit of `x`, e.g. `activities per CPU`.
    pub x_unit: String,
    /// Unit of `y` and of `a`; `b` is per unit of `x`, `c` per unit of `x` squared. Always `ns` here.
    pub y_unit: String,
    pub a: f64,
    pub b: f64,
    /// The quadratic term, for quadratic fits only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c: Option<f64>,
    /// Coefficient of determination.
    pub r2: f64,
    /// Points the fit went through.
    pub points: usize,
}

impl FitRecord {
    /// The series' name in Google Benchmark style: `experiment/runtime:R/key:value/...`.
    pub fn name(&self) -> String {
        super::point::gbench_name(&self.experiment, &self.runtime, &self.series)
    }

    /// The fit as a formula in the seed's style, e.g. `140 ns + 72.0 ns·load (r² 0.998)`.
    pub fn formula(&self, format_ns: impl Fn(f64) -> String) -> String {
        let signed = |v: f64| if v < 0.0 { format!("− {}", format_ns(-v)) } else { format!("+ {}", format_ns(v)) };
        let mut f = format!("{} {}·{}", format_ns(self.a), signed(self.b), self.x);
        if let Some(c) = self.c {
            f.push_str(&format!(" {}·{}²", signed(c), self.x));
        }
        format!("{f} (r² {:.3}, {} points)", self.r2, self.points)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_names_every_term_and_sign() {
        let fit = FitRecord {
            experiment: "sync.oversub".into(),
            runtime: "os".into(),
            series: vec![("variant".into(), "spawn_sync".into())],
            x: "activities".into(),
            x_unit: "per CPU".into(),
            y_unit: "ns".into(),
            a: 10.0,
            b: -2.0,
            c: Some(0.5),
            r2: 0.9991,
            points: 5,
        };
        let f = fit.formula(|v| format!("{v} ns"));
        assert_eq!(f, "10 ns − 2 ns·activities + 0.5 ns·activities² (r² 0.999, 5 points)");
        assert_eq!(fit.name(), "sync.oversub/runtime:os/variant:spawn_sync");
    }
}
