//! Fits through series of points: the points of one experiment and runtime that differ only in one
//! parameter `x` form a series, and the medians are fitted against `x` (Ben-Asher & Feitelson 1991, §5.1 and
//! §8.2: `a + b·load`). Which experiments are fitted, against what and with which model is the table
//! [`FITTED`]; the experiments that make the points know nothing of it.

use std::collections::BTreeMap;

use overhead_record::{too_few_points_note, FitRecord, PointRecord, PointSpec};
use overhead_stats::{least_squares, quadratic_least_squares, standard_errors};

/// Experiment, runtime and the parameters other than `x`: what makes points one series.
type SeriesKey = (String, overhead_schema::runtimes::RuntimeId, Vec<(String, String)>);

/// A series that its experiment fits (see [`fit_spec`]) but whose points do not outnumber
/// the model's coefficients, so it has no fit: what the report prints in the fit's place.
#[derive(Debug, Clone, PartialEq)]
pub struct TooFewPoints {
    /// Public experiment ID, e.g. `sched.yield`.
    pub experiment: String,
    /// The runtime of the series' points.
    pub runtime: overhead_schema::runtimes::RuntimeId,
    /// The parameters shared by the series' points, without `x`.
    pub series: Vec<(String, String)>,
    /// The parameter the fit would be against.
    pub x: String,
    /// How many points the series has.
    pub points: usize,
    /// The model it would be fitted with.
    pub model: Model,
}

impl TooFewPoints {
    /// The series' name in Google Benchmark style, as [`FitRecord::name`].
    pub fn name(&self) -> String {
        let spec = PointSpec {
            experiment: self.experiment.clone(),
            runtime: self.runtime.clone(),
            params: self.series.clone(),
            cpus: Vec::new(),
            placement: None,
            hosts: Vec::new(),
        };
        spec.name()
    }

    /// `too few points for a fit (2 points; a line needs 3)`.
    pub fn note(&self) -> String {
        too_few_points_note(self.points, self.model.parameters())
    }
}

/// Every series of `points` (a run's measured points) that its experiment would fit but that has too few
/// points for the model, in the order of [`derive_fits`]' fits. A single point is no series (a runtime on one
/// CPU has one thread count): it is left out.
pub fn too_few_points(points: &[PointRecord]) -> Vec<TooFewPoints> {
    let mut series: BTreeMap<(SeriesKey, &'static str), (Model, usize)> = BTreeMap::new();
    for p in points {
        let Some(spec) = fit_spec(p) else { continue };
        if p.spec.param(spec.x).and_then(|v| v.parse::<f64>().ok()).is_none() {
            continue;
        }
        let rest: Vec<(String, String)> = p.spec.params.iter().filter(|(k, _)| k != spec.x).cloned().collect();
        let key = ((p.spec.experiment.clone(), p.spec.runtime.clone(), rest), spec.x);
        series.entry(key).or_insert((spec.model, 0)).1 += 1;
    }
    series
        .into_iter()
        .filter(|(_, (model, count))| (2..=model.parameters()).contains(count))
        .map(|(((experiment, runtime, series), x), (model, points))| TooFewPoints {
            experiment,
            runtime,
            series,
            x: x.into(),
            points,
            model,
        })
        .collect()
}

/// The shape of curve to fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    /// `a + b·x`.
    Linear,
    /// `a + b·x + c·x²`.
    Quadratic,
}

impl Model {
    /// How many coefficients it has: 2 for a line, 3 for a quadratic.
    pub fn parameters(self) -> usize {
        match self {
            Model::Linear => 2,
            Model::Quadratic => 3,
        }
    }
}

/// What to fit for one experiment: the parameter on the x axis, its unit, and the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FitSpec {
    /// The parameter on the x axis.
    pub x: &'static str,
    /// Its unit, as the report prints it.
    pub x_unit: &'static str,
    /// The curve to fit.
    pub model: Model,
}

/// Fits `spec.model` to every series of `points` (all of one experiment) against the numeric parameter
/// `spec.x`. Points whose `x` is missing or not a number are left out; a series whose points do not
/// outnumber the model's coefficients (fewer than 3 for a line, 4 for a quadratic) or with too few distinct
/// `x` gives no fit: through so few points a curve fits exactly whatever was measured. Each fit carries the
/// standard errors of its coefficients.
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
            if xs.len() <= spec.model.parameters() {
                return None;
            }
            let (a, b, c, r2) = match spec.model {
                Model::Linear => least_squares(&xs, &ys).map(|f| (f.a, f.b, None, f.r2))?,
                Model::Quadratic => quadratic_least_squares(&xs, &ys).map(|f| (f.a, f.b, Some(f.c), f.r2))?,
            };
            let coefficients: Vec<f64> = [Some(a), Some(b), c].into_iter().flatten().collect();
            let se = standard_errors(&xs, &ys, &coefficients);
            let se_of = |i: usize| se.as_ref().and_then(|se| se.get(i).copied());
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
                a_se: se_of(0),
                b_se: se_of(1),
                c_se: c.and(se_of(2)),
            })
        })
        .collect()
}

/// `sched.yield`: each runtime's rounds against the load, Ben-Asher & Feitelson's Fig. 3 `a + b·load`.
pub const YIELD_FIT: FitSpec = FitSpec { x: "load", x_unit: "extra yielding activities per CPU", model: Model::Linear };
/// `sched.broadcast`: against the number of waiters, `a` the broadcast with one waiter, `b` per extra one.
pub const BROADCAST_FIT: FitSpec = FitSpec { x: "waiters", x_unit: "", model: Model::Linear };
/// `spawn.forkjoin`: against the team's CPUs, one task each.
pub const FORKJOIN_FIT: FitSpec = FitSpec { x: "threads", x_unit: "CPUs, one task each", model: Model::Linear };
/// `sync.oversub`'s `spawn & sync` against the number of activities: quadratic, to show the spin-with-yield
/// barrier's quadratic term (and its absence with a blocking barrier).
pub const SPAWN_SYNC_FIT: FitSpec = FitSpec { x: "activities", x_unit: "", model: Model::Quadratic };
/// `sync.oversub`'s `just spawn` and `just sync` against the number of activities: linear, as in the study.
pub const OVERSUB_LINEAR_FIT: FitSpec = FitSpec { x: "activities", x_unit: "", model: Model::Linear };
/// `mem.contention` and `mem.mix`: against the number of threads sharing the line.
pub const THREADS_FIT: FitSpec = FitSpec { x: "threads", x_unit: "threads", model: Model::Linear };

/// The fitted experiments, in the order the record lists their fits (the run's), each with the specs its
/// points take ([`fit_spec`] chooses among them per point).
pub const FITTED: &[(&str, &[FitSpec])] = &[
    (overhead_schema::experiments::sched::YIELD, &[YIELD_FIT]),
    (overhead_schema::experiments::sched::BROADCAST, &[BROADCAST_FIT]),
    (overhead_schema::experiments::spawn::FORKJOIN, &[FORKJOIN_FIT]),
    (overhead_schema::experiments::sync::OVERSUB, &[SPAWN_SYNC_FIT, OVERSUB_LINEAR_FIT]),
    (overhead_schema::experiments::mem::CONTENTION, &[THREADS_FIT]),
    (overhead_schema::experiments::mem::MIX, &[THREADS_FIT]),
];

/// The fit the series of `point` gets, if its experiment is fitted: `sync.oversub`'s `spawn_sync` variant the
/// quadratic, every other point its experiment's one spec.
pub fn fit_spec(point: &PointRecord) -> Option<FitSpec> {
    let (experiment, specs) = FITTED.iter().find(|(e, _)| *e == point.spec.experiment)?;
    if *experiment == overhead_schema::experiments::sync::OVERSUB {
        let spawn_sync = point.spec.param("variant") == Some("spawn_sync");
        return Some(if spawn_sync { SPAWN_SYNC_FIT } else { OVERSUB_LINEAR_FIT });
    }
    specs.first().copied()
}

/// Every fit of [`FITTED`] over `points` (a run's measured points): per experiment, per spec, per series.
pub fn derive_fits(points: &[PointRecord]) -> Vec<FitRecord> {
    let mut out = Vec::new();
    for (experiment, specs) in FITTED {
        for spec in *specs {
            let mine: Vec<&PointRecord> =
                points.iter().filter(|p| p.spec.experiment == *experiment && fit_spec(p) == Some(*spec)).collect();
            out.extend(fit_series(&mine, *spec));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::point;

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
        let line = FitSpec { x: "load", x_unit: "", model: Model::Linear };
        let quadratic = FitSpec { model: Model::Quadratic, ..line };
        let points: Vec<PointRecord> =
            (1..=4).map(|x| point("sched.yield", "os", &[("load", &x.to_string())], 5.0 + f64::from(x))).collect();
        let refs: Vec<&PointRecord> = points.iter().collect();
        assert!(fit_series(&refs[..2], line).is_empty(), "a line through 2 points");
        assert_eq!(fit_series(&refs[..3], line).len(), 1);
        assert!(fit_series(&refs[..3], quadratic).is_empty(), "a quadratic through 3 points");
        assert_eq!(fit_series(&refs, quadratic).len(), 1);
    }

    #[test]
    fn series_with_too_few_points_are_listed_with_their_note() {
        let points: Vec<PointRecord> = (0..2)
            .map(|load| point("sched.yield", "os", &[("cpus", "2"), ("load", &load.to_string())], 5.0))
            .chain((0..3).map(|load| point("sched.yield", "tokio", &[("cpus", "2"), ("load", &load.to_string())], 5.0)))
            .collect();
        let few = too_few_points(&points);
        assert_eq!(few.len(), 1, "{few:?}");
        assert_eq!(few[0].name(), "sched.yield/runtime:os/cpus:2");
        assert_eq!(few[0].note(), "too few points for a fit (2 points; a line needs 3)");
        assert_eq!(derive_fits(&points).len(), 1, "tokio's three points get their line");
    }

    #[test]
    fn a_fit_carries_its_coefficients_standard_errors() {
        let points: Vec<PointRecord> = [(1, 3.1), (2, 4.9), (3, 7.1), (4, 8.9), (5, 11.1)]
            .iter()
            .map(|(x, y)| point("sched.yield", "os", &[("load", &x.to_string())], *y))
            .collect();
        let refs: Vec<&PointRecord> = points.iter().collect();
        let fit = &fit_series(&refs, FitSpec { x: "load", x_unit: "", model: Model::Linear })[0];
        let (a_se, b_se) = (fit.a_se.unwrap(), fit.b_se.unwrap());
        assert!(a_se > 0.0 && b_se > 0.0 && fit.c_se.is_none(), "{fit:?}");
        assert!((b_se - 0.04).abs() < 1e-9, "{fit:?}");
    }

    /// The fits [`derive_fits`] puts through `points`.
    fn derive_fits_of(points: &[&PointRecord]) -> Vec<FitRecord> {
        let owned: Vec<PointRecord> = points.iter().map(|p| (*p).clone()).collect();
        derive_fits(&owned)
    }

    /// `mem.mix`'s shared writes per block (a few of them suffice for the fit).
    const MIX_X: [u32; 3] = [1, 50, 100];

    /// `sched.yield`'s fits: one `a + b·load` per runtime and CPU count, recovering the line.
    #[test]
    fn fits_one_line_per_runtime_and_cpu_count() {
        let mut points = Vec::new();
        for load in [0, 1, 2, 4, 8] {
            let x = f64::from(load);
            points.push(point("sched.yield", "os", &[("cpus", "2"), ("load", &load.to_string())], 300.0 + 700.0 * x));
            points.push(point(
                "sched.yield",
                "fiber-asm",
                &[("cpus", "1"), ("load", &load.to_string())],
                5.0 + 9.0 * x,
            ));
        }
        let refs: Vec<&PointRecord> = points.iter().collect();
        let fits = derive_fits_of(&refs);
        assert_eq!(fits.len(), 2);
        let os = fits.iter().find(|f| f.runtime == "os").unwrap();
        assert!((os.a - 300.0).abs() < 1e-6 && (os.b - 700.0).abs() < 1e-6, "{os:?}");
        assert_eq!(os.series, vec![("cpus".to_string(), "2".to_string())]);
        assert_eq!((os.x.as_str(), os.c, os.points), ("load", None, 5));
    }

    #[test]
    fn the_fit_recovers_a_line_per_op() {
        let mut points = Vec::new();
        for k in [1u32, 2, 4, 8] {
            let t = k.to_string();
            points.push(point("mem.contention", "os", &[("op", "store"), ("threads", &t)], 2.0 + 30.0 * f64::from(k)));
            points.push(point(
                "mem.contention",
                "os",
                &[("op", "atomic_add"), ("threads", &t)],
                8.0 + 45.0 * f64::from(k),
            ));
        }
        let refs: Vec<&PointRecord> = points.iter().collect();
        let fits = derive_fits_of(&refs);
        assert_eq!(fits.len(), 2);
        let of = |op: &str| fits.iter().find(|f| f.series == vec![("op".to_string(), op.to_string())]).unwrap();
        let (store, add) = (of("store"), of("atomic_add"));
        assert!((store.a - 2.0).abs() < 1e-9 && (store.b - 30.0).abs() < 1e-9, "{store:?}");
        assert!((add.a - 8.0).abs() < 1e-9 && (add.b - 45.0).abs() < 1e-9, "{add:?}");
        assert_eq!((add.x.as_str(), add.points), ("threads", 4));
    }

    #[test]
    fn the_fit_recovers_a_line_per_x() {
        let mut points = Vec::new();
        for k in [1u32, 2, 4] {
            for x in MIX_X {
                let (t, xs) = (k.to_string(), x.to_string());
                let y = 100.0 + f64::from(x) * f64::from(k);
                points.push(point("mem.mix", "os", &[("x", &xs), ("threads", &t)], y));
            }
        }
        let refs: Vec<&PointRecord> = points.iter().collect();
        let fits = derive_fits_of(&refs);
        assert_eq!(fits.len(), MIX_X.len());
        for x in MIX_X {
            let f = fits.iter().find(|f| f.series == vec![("x".to_string(), x.to_string())]).unwrap();
            assert!((f.a - 100.0).abs() < 1e-9 && (f.b - f64::from(x)).abs() < 1e-9, "{f:?}");
            assert_eq!(f.points, 3);
        }
    }

    /// `sync.oversub`'s fits: quadratic through `spawn_sync`, recovering the coefficients; linear
    /// through the others.
    #[test]
    fn fits_quadratic_spawn_sync_and_linear_rest() {
        let mut points = Vec::new();
        for a in [2u32, 4, 8, 16, 32] {
            let x = f64::from(a);
            let act = a.to_string();
            let ss = |barrier| [("variant", "spawn_sync"), ("barrier", barrier), ("cpus", "2"), ("activities", &act)];
            points.push(point("sync.oversub", "os", &ss("yield"), 1000.0 + 50.0 * x + 3.0 * x * x));
            points.push(point("sync.oversub", "os", &ss("blocking"), 1000.0 + 60.0 * x));
            let js = [("variant", "just_spawn"), ("cpus", "2"), ("activities", act.as_str())];
            points.push(point("sync.oversub", "os", &js, 500.0 + 40.0 * x));
        }
        let refs: Vec<&PointRecord> = points.iter().collect();
        let fits = derive_fits_of(&refs);
        assert_eq!(fits.len(), 3);
        let of = |variant: &str, barrier: Option<&str>| {
            fits.iter()
                .find(|f| {
                    f.series.iter().any(|(k, v)| k == "variant" && v == variant)
                        && barrier.is_none_or(|b| f.series.iter().any(|(k, v)| k == "barrier" && v == b))
                })
                .unwrap()
        };
        let spin = of("spawn_sync", Some("yield"));
        assert!((spin.c.unwrap() - 3.0).abs() < 1e-6 && (spin.b - 50.0).abs() < 1e-5, "{spin:?}");
        assert!(of("spawn_sync", Some("blocking")).c.unwrap().abs() < 1e-6);
        let spawn = of("just_spawn", None);
        assert!(spawn.c.is_none() && (spawn.b - 40.0).abs() < 1e-6, "{spawn:?}");
    }
}
