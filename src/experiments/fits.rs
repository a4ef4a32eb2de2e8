//! Fits through series of points: the points of one experiment and runtime that differ only in one
//! parameter `x` form a series, and the medians are fitted against `x` (seed 001 §5.1, §8.2).

use std::collections::BTreeMap;

use crate::record::{FitRecord, PointRecord};
use crate::stats::{least_squares, quadratic_least_squares};

/// Experiment, runtime and the parameters other than `x`: what makes points one series.
type SeriesKey = (String, String, Vec<(String, String)>);

/// The shape of curve to fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    /// `a + b·x`.
    Linear,
    /// `a + b·x + c·x²`.
    Quadratic,
}

/// What to fit for one experiment: the parameter on the x axis, its unit, and the model.
#[derive(Debug, Clone, Copy)]
pub struct FitSpec {
    pub x: &'static str,
    pub x_unit: &'static str,
    pub model: Model,
}

/// Fits `spec.model` to every series of `points` (all of one experiment) against the numeric parameter
/// `spec.x`. Points whose `x` is missing or not a number are left out; a series with too few distinct
/// `x` for the model gives no fit.
pub fn fit_series(points: &[&PointRecord], spec: FitSpec) -> Vec<FitRecord> {
    let mut series: BTreeMap<SeriesKey, Vec<(f64, f64)>> = BTreeMap::new();
    for p in points {
        let Some(x) = p.spec.param(spec.x).and_then(|v| v.parse::<f64>().ok()) else { continue };
        let rest: Vec<(String, String)> = p.spec.params.iter().filter(|(k, _)| k != spec.x).cloned().collect();
        let key = (p.spec.experiment.clone(), p.spec.runtime.clone(), rest);
        series.entry(key).or_default().push((x, p.summary.median));
    }
    series
        .into_iter()
        .filter_map(|((experiment, runtime, rest), xy)| {
            let (xs, ys): (Vec<f64>, Vec<f64>) = xy.iter().copied().unzip();
            let (a, b, c, r2) = match spec.model {
                Model::Linear => least_squares(&xs, &ys).map(|f| (f.a, f.b, None, f.r2))?,
                Model::Quadratic => quadratic_least_squares(&xs, &ys).map(|f| (f.a, f.b, Some(f.c), f.r2))?,
            };
            Some(FitRecord {
                experiment,
                runtime,
                series: rest,
                x: spec.x.into(),
                x_unit: spec.x_unit.into(),
                y_unit: "ns".into(),
                a,
                b,
                c,
                r2,
                points: xs.len(),
            })
        })
        .collect()
}

/// Every fit the registry's experiments define over `points` (a run's measured points).
pub fn derive_fits(points: &[PointRecord]) -> Vec<FitRecord> {
    super::registry()
        .iter()
        .flat_map(|e| {
            let mine: Vec<&PointRecord> = points.iter().filter(|p| p.spec.experiment == e.id()).collect();
            if mine.is_empty() {
                Vec::new()
            } else {
                e.fits(&mine)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::fixture::point;

    #[test]
    fn one_fit_per_series_recovering_the_line() {
        let mut points = Vec::new();
        for load in 1..=4 {
            for runtime in ["os", "tokio"] {
                let y = if runtime == "os" { 140.0 + 72.0 * f64::from(load) } else { 10.0 + f64::from(load) };
                points.push(point("sched.yield", runtime, &[("load", &load.to_string()), ("cpus", "2")], y));
            }
        }
        let refs: Vec<&PointRecord> = points.iter().collect();
        let fits = fit_series(&refs, FitSpec { x: "load", x_unit: "per CPU", model: Model::Linear });
        assert_eq!(fits.len(), 2);
        let os = fits.iter().find(|f| f.runtime == "os").unwrap();
        assert!((os.a - 140.0).abs() < 1e-9 && (os.b - 72.0).abs() < 1e-9, "{os:?}");
        assert_eq!(os.series, vec![("cpus".to_string(), "2".to_string())]);
        assert_eq!(os.points, 4);
    }

    #[test]
    fn too_few_points_give_no_fit() {
        let points = [point("sched.yield", "os", &[("load", "1")], 5.0)];
        let refs: Vec<&PointRecord> = points.iter().collect();
        assert!(fit_series(&refs, FitSpec { x: "load", x_unit: "", model: Model::Linear }).is_empty());
    }
}
