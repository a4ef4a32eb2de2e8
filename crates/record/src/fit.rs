//! Fits across points: a curve through the medians of a series of points that differ in one parameter
//! (Ben-Asher & Feitelson 1991 fits scheduling overhead against load, Fig. 3, as `0.140 + 0.072·load` ms).

use serde::{Deserialize, Serialize};

/// `y = a + b·x` or, with `c`, `y = a + b·x + c·x²`, fitted by least squares to the medians of one
/// experiment's points for one runtime and one series (the parameters other than `x`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitRecord {
    /// Public experiment ID, e.g. `sched.yield`.
    pub experiment: String,
    /// The runtime of the series' points, e.g. `os`.
    pub runtime: overhead_schema::runtimes::RuntimeId,
    /// The parameters shared by the series' points, in the experiment's order (without `x`).
    pub series: Vec<(String, String)>,
    /// The parameter on the x axis, e.g. `load`.
    pub x: String,
    /// Unit of `x`, e.g. `activities per CPU`.
    pub x_unit: String,
    /// Unit of `y` and of `a`; `b` is per unit of `x`, `c` per unit of `x` squared. Always `ns` here.
    pub y_unit: String,
    /// The constant term, in `y_unit`.
    pub a: f64,
    /// The linear term, in `y_unit` per unit of `x`.
    pub b: f64,
    /// The quadratic term, for quadratic fits only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c: Option<f64>,
    /// Coefficient of determination.
    pub r2: f64,
    /// Points the fit went through.
    pub points: usize,
    /// Standard error of `a` (from the least-squares covariance, `points − parameters` degrees of freedom);
    /// absent in records written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a_se: Option<f64>,
    /// Standard error of `b`, as [`FitRecord::a_se`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b_se: Option<f64>,
    /// Standard error of `c`, for quadratic fits, as [`FitRecord::a_se`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c_se: Option<f64>,
}

/// The note a figure or table shows instead of a fit that [`FitRecord::is_supported`] refuses.
pub const TOO_FEW_POINTS: &str = "too few points for a fit";

/// [`TOO_FEW_POINTS`] with the count and what the model needs: `too few points for a fit (2 points; a line
/// needs 3)` for `parameters` 2, `a quadratic needs 4` for 3.
pub fn too_few_points_note(points: usize, parameters: usize) -> String {
    let model = match parameters {
        2 => "a line".to_string(),
        3 => "a quadratic".to_string(),
        n => format!("a curve of {n} coefficients"),
    };
    let noun = if points == 1 { "point" } else { "points" };
    format!("{TOO_FEW_POINTS} ({points} {noun}; {model} needs {})", parameters + 1)
}

impl FitRecord {
    /// The series' name in Google Benchmark style: `experiment/runtime:R/key:value/...`.
    pub fn name(&self) -> String {
        super::point::gbench_name(&self.experiment, &self.runtime, &self.series)
    }

    /// The number of coefficients: 2 for `a + b·x`, 3 for `a + b·x + c·x²`.
    pub fn parameters(&self) -> usize {
        if self.c.is_some() {
            3
        } else {
            2
        }
    }

    /// Whether the points outnumber the coefficients by at least one (3 points for a line, 4 for a
    /// quadratic). Through fewer, a curve passes exactly through every point whatever the data, and says
    /// nothing: such fits (older records hold them) are neither drawn nor printed.
    pub fn is_supported(&self) -> bool {
        self.points > self.parameters()
    }

    /// The fit as a formula in the study's style, each coefficient with its standard error where the record
    /// has one, e.g. `(140 ± 5.00) ns + (72.0 ± 1.20) ns·load (r² 0.998, 8 points)`; `format_ns` formats a
    /// value in ns with its unit. A fit that is not [`FitRecord::is_supported`] reads
    /// `too few points for a fit (2 points; a line needs 3)` instead.
    pub fn formula(&self, format_ns: impl Fn(f64) -> String) -> String {
        if !self.is_supported() {
            return too_few_points_note(self.points, self.parameters());
        }
        let term = |v: f64, se: Option<f64>| match se {
            Some(se) => format!("({} ± {})", format_ns(v), format_ns(se)),
            None => format_ns(v),
        };
        let signed = |v: f64, se: Option<f64>| {
            if v < 0.0 {
                format!("− {}", term(-v, se))
            } else {
                format!("+ {}", term(v, se))
            }
        };
        let mut f = format!("{} {}·{}", term(self.a, self.a_se), signed(self.b, self.b_se), self.x);
        if let Some(c) = self.c {
            f.push_str(&format!(" {}·{}²", signed(c, self.c_se), self.x));
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
            a_se: None,
            b_se: None,
            c_se: None,
        };
        let f = fit.formula(|v| format!("{v} ns"));
        assert_eq!(f, "10 ns − 2 ns·activities + 0.5 ns·activities² (r² 0.999, 5 points)");
        assert_eq!(fit.name(), "sync.oversub/runtime:os/variant:spawn_sync");
        let with_errors = FitRecord { a_se: Some(1.0), b_se: Some(0.25), c_se: Some(0.125), ..fit.clone() };
        assert_eq!(
            with_errors.formula(|v| format!("{v} ns")),
            "(10 ns ± 1 ns) − (2 ns ± 0.25 ns)·activities + (0.5 ns ± 0.125 ns)·activities² (r² 0.999, 5 points)"
        );
    }

    #[test]
    fn a_fit_needs_one_point_more_than_its_coefficients() {
        let line = |points| FitRecord {
            experiment: "sched.yield".into(),
            runtime: "os".into(),
            series: vec![],
            x: "load".into(),
            x_unit: String::new(),
            y_unit: "ns".into(),
            a: 1.0,
            b: 1.0,
            c: None,
            r2: 1.0,
            points,
            a_se: None,
            b_se: None,
            c_se: None,
        };
        assert!(!line(2).is_supported() && line(3).is_supported());
        assert_eq!(line(2).formula(|v| format!("{v} ns")), "too few points for a fit (2 points; a line needs 3)");
        let quadratic = |points| FitRecord { c: Some(1.0), ..line(points) };
        assert!(!quadratic(3).is_supported() && quadratic(4).is_supported());
    }

    #[test]
    fn a_record_without_standard_errors_still_loads() {
        let json = r#"{"experiment":"sched.yield","runtime":"os","series":[],"x":"load","x_unit":"",
            "y_unit":"ns","a":1.0,"b":2.0,"r2":0.9,"points":5}"#;
        let fit: FitRecord = serde_json::from_str(json).unwrap();
        assert_eq!((fit.a_se, fit.b_se, fit.c_se), (None, None, None));
    }
}
