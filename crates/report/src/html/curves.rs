//! The curves of the HTML report as data: for each experiment whose points differ in a numeric parameter
//! (threads, load, activities, payload…), its medians against that parameter with their 95% CIs, one series
//! per runtime and remaining parameters, with the record's fit through the series where it has one (Ben-Asher & Feitelson 1991
//! draws its figures this way: Fig. 3's yield round against load with `a + b·load`). Pure data, so the
//! choice of axes and series is tested apart from the drawing (`overhead_render::plot`).

use overhead_record::{too_few_points_note, FitRecord, Metric, PointRecord, RunRecord};
pub use overhead_render::curve::{Curve, CurvePoint, Series};

/// More series than this on one chart cannot be told apart: the panel is split by a further parameter.
pub const MAX_SERIES: usize = 8;

/// A span of at least this factor puts an axis on a log scale.
const LOG_SPAN: f64 = 100.0;

/// Every curve in `record`, in the order its experiments first appear. An experiment gets curves when
/// one of its parameters is numeric on every point and takes two values or more; the fits' `x` is
/// preferred, then the parameter with the most values. Panels split on `placement`, then on further
/// parameters while a panel would hold more than [`MAX_SERIES`] series.
pub fn curves(record: &RunRecord) -> Vec<Curve> {
    let mut experiments: Vec<&str> = Vec::new();
    for p in &record.points {
        if !experiments.contains(&p.spec.experiment.as_str()) {
            experiments.push(&p.spec.experiment);
        }
    }
    experiments.into_iter().flat_map(|e| curves_of(record, e)).collect()
}

/// The curves of one experiment (none when no parameter can be an axis).
fn curves_of(record: &RunRecord, experiment: &str) -> Vec<Curve> {
    let points: Vec<&PointRecord> = record.points.iter().filter(|p| p.spec.experiment == experiment).collect();
    let fits: Vec<&FitRecord> = record.fits.iter().filter(|f| f.experiment == experiment).collect();
    let Some(x) = axis_parameter(&points, &fits) else {
        return Vec::new();
    };
    let mut panel_keys: Vec<String> = Vec::new();
    if varies(&points, "placement") {
        panel_keys.push("placement".into());
    }
    loop {
        let panels = split(&points, &panel_keys);
        let too_many = panels.iter().any(|(_, members)| series_keys(members, &x, &panel_keys).len() > MAX_SERIES);
        let next = points[0].spec.params.iter().map(|(k, _)| k).find(|k| **k != x && !panel_keys.contains(k));
        match (too_many, next) {
            (true, Some(key)) => panel_keys.push(key.clone()),
            _ => {
                return panels
                    .into_iter()
                    .map(|(panel, members)| curve(experiment, panel, &x, &members, &fits))
                    .collect()
            }
        }
    }
}

/// The parameter to put on the x axis: numeric on every point, at least two values; a fit's `x` first, then
/// the `x` of the experiment's fit (`overhead_experiments::Experiment::fit_spec`).
fn axis_parameter(points: &[&PointRecord], fits: &[&FitRecord]) -> Option<String> {
    let first = points.first()?;
    let candidates: Vec<&String> = first
        .spec
        .params
        .iter()
        .map(|(k, _)| k)
        .filter(|k| points.iter().all(|p| p.spec.param(k).is_some_and(|v| v.parse::<f64>().is_ok())))
        .filter(|k| distinct(points, k) >= 2)
        .collect();
    // The parameter the experiment fits against, even where no series has points enough for the fit.
    let fitted = overhead_analysis::fits::fit_spec(first).map(|s| s.x);
    if let Some(fit_x) = fits.iter().map(|f| f.x.as_str()).chain(fitted).find(|x| candidates.iter().any(|c| c == x)) {
        return Some(fit_x.to_string());
    }
    // The last of the parameters with the most values: experiments list their sweep parameter last.
    candidates.into_iter().rev().max_by_key(|k| distinct(points, k)).cloned()
}

fn distinct(points: &[&PointRecord], key: &str) -> usize {
    let mut values: Vec<&str> = points.iter().filter_map(|p| p.spec.param(key)).collect();
    values.sort_unstable();
    values.dedup();
    values.len()
}

fn varies(points: &[&PointRecord], key: &str) -> bool {
    distinct(points, key) >= 2
}

/// The value of parameter `key` on `p` (empty when it has none).
fn value_of(p: &PointRecord, key: &str) -> String {
    p.spec.param(key).unwrap_or_default().to_string()
}

/// The points grouped by their values of `keys`, groups in first-seen order.
#[allow(clippy::type_complexity)]
fn split<'a>(points: &[&'a PointRecord], keys: &[String]) -> Vec<(Vec<(String, String)>, Vec<&'a PointRecord>)> {
    let mut groups: Vec<(Vec<(String, String)>, Vec<&PointRecord>)> = Vec::new();
    for &p in points {
        let panel: Vec<(String, String)> = keys.iter().map(|k| (k.clone(), value_of(p, k))).collect();
        match groups.iter_mut().find(|(key, _)| *key == panel) {
            Some((_, members)) => members.push(p),
            None => groups.push((panel, vec![p])),
        }
    }
    groups
}

/// A series' identity: the runtime and the parameters other than `x` and the panel's, in order.
fn series_key(p: &PointRecord, x: &str, panel_keys: &[String]) -> (String, Vec<(String, String)>) {
    let rest = p.spec.params.iter().filter(|(k, _)| k != x && !panel_keys.contains(k)).cloned().collect();
    (p.spec.runtime.to_string(), rest)
}

fn series_keys(points: &[&PointRecord], x: &str, panel_keys: &[String]) -> Vec<(String, Vec<(String, String)>)> {
    let mut keys: Vec<_> = Vec::new();
    for p in points {
        let key = series_key(p, x, panel_keys);
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys
}

fn curve(
    experiment: &str,
    panel: Vec<(String, String)>,
    x: &str,
    points: &[&PointRecord],
    fits: &[&FitRecord],
) -> Curve {
    let panel_keys: Vec<String> = panel.iter().map(|(k, _)| k.clone()).collect();
    let series: Vec<Series> = series_keys(points, x, &panel_keys)
        .into_iter()
        .map(|(runtime, rest)| {
            let mut members: Vec<CurvePoint> = points
                .iter()
                .filter(|p| series_key(p, x, &panel_keys) == (runtime.clone(), rest.clone()))
                .map(|p| CurvePoint {
                    x: p.spec.param(x).and_then(|v| v.parse().ok()).unwrap_or(f64::NAN),
                    median: p.summary.median,
                    ci_low: p.summary.ci_low,
                    ci_high: p.summary.ci_high,
                })
                .collect();
            members.sort_by(|a, b| a.x.total_cmp(&b.x));
            let recorded = fits.iter().find(|f| f.runtime == runtime && same_params(&f.series, &rest, &panel));
            let fit = recorded.filter(|f| f.is_supported()).map(|f| (*f).clone());
            let first = points.iter().find(|p| series_key(p, x, &panel_keys) == (runtime.clone(), rest.clone()));
            let fit_note = match (recorded, &fit) {
                (Some(f), None) => Some(f.formula(crate::format_ns)),
                (None, None) => first.and_then(|p| too_few_for_fit(p, x, members.len())),
                _ => None,
            };
            let label = std::iter::once(runtime)
                .chain(rest.iter().map(|(k, v)| format!("{k}:{v}")))
                .collect::<Vec<_>>()
                .join(" · ");
            Series { label, points: members, fit, fit_note }
        })
        .collect();
    // A series of one point is a lone dot, no curve: it is named in the caption with its value instead.
    let (series, lone): (Vec<Series>, Vec<Series>) = series.into_iter().partition(|s| s.points.len() >= 2);
    let lone = lone
        .iter()
        .flat_map(|s| s.points.iter().map(move |p| (s, p)))
        .map(|(s, p)| {
            let (m, lo, hi) = (crate::format_ns(p.median), crate::format_ns(p.ci_low), crate::format_ns(p.ci_high));
            format!("{} at {x} {}: {m} ({lo} – {hi})", s.label, p.x)
        })
        .collect();
    let xs: Vec<f64> = series.iter().flat_map(|s| s.points.iter().map(|p| p.x)).collect();
    let ys: Vec<f64> = series.iter().flat_map(|s| s.points.iter().map(|p| p.median)).collect();
    Curve {
        experiment: experiment.into(),
        panel,
        x: x.into(),
        log_x: spans_decades(&xs),
        log_y: spans_decades(&ys),
        // The ticks carry the unit (`1.20 µs`), so the label names none.
        y_label: metric_label(points[0].metric).to_string(),
        series,
        marks: Vec::new(),
        lone,
    }
}

/// The note for a series of `count` points like `point`, against `x`, that its experiment fits but that
/// has too few points for the fit; `None` when the experiment fits no curve there or the points suffice
/// (then the fit failed for another reason, such as equal `x`).
fn too_few_for_fit(point: &PointRecord, x: &str, count: usize) -> Option<String> {
    let spec = overhead_analysis::fits::fit_spec(point)?;
    let parameters = spec.model.parameters();
    (spec.x == x && (2..=parameters).contains(&count)).then(|| too_few_points_note(count, parameters))
}

/// The metric as the axis names it.
fn metric_label(metric: Metric) -> &'static str {
    match metric {
        Metric::PerOp => "per operation",
        Metric::Rtt => "round trip",
        Metric::OneWay => "one way",
    }
}

/// Whether a fit's series (the parameters other than x) is the series `rest` in `panel`.
fn same_params(fit_series: &[(String, String)], rest: &[(String, String)], panel: &[(String, String)]) -> bool {
    let mut expected: Vec<&(String, String)> = rest.iter().chain(panel).collect();
    let mut got: Vec<&(String, String)> = fit_series.iter().collect();
    expected.sort();
    got.sort();
    expected == got
}

/// Every value positive and the largest at least [`LOG_SPAN`] times the smallest.
fn spans_decades(values: &[f64]) -> bool {
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    min > 0.0 && max / min >= LOG_SPAN
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};

    fn record_of(points: Vec<PointRecord>, fits: Vec<FitRecord>) -> RunRecord {
        let mut record = sample_record();
        record.points = points;
        record.fits = fits;
        record
    }

    fn fit(experiment: &str, runtime: &str, series: &[(&str, &str)], x: &str) -> FitRecord {
        FitRecord {
            experiment: experiment.into(),
            runtime: runtime.into(),
            series: series.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            x: x.into(),
            x_unit: String::new(),
            y_unit: "ns".into(),
            a: 1.0,
            b: 2.0,
            c: None,
            r2: 1.0,
            points: 3,
            a_se: None,
            b_se: None,
            c_se: None,
        }
    }

    #[test]
    fn threads_become_the_axis_and_the_other_parameters_the_series() {
        let mut points = Vec::new();
        for variable in ["shared", "distinct"] {
            for threads in [1, 2, 4] {
                let t = threads.to_string();
                points.push(point(
                    "sync.faa",
                    "os",
                    &[("impl", "hw"), ("variable", variable), ("threads", &t)],
                    threads as f64 * 10.0,
                ));
            }
        }
        let record =
            record_of(points, vec![fit("sync.faa", "os", &[("impl", "hw"), ("variable", "shared")], "threads")]);
        let curves = curves(&record);
        assert_eq!(curves.len(), 1, "{curves:?}");
        let c = &curves[0];
        assert_eq!((c.x.as_str(), c.log_x, c.log_y), ("threads", false, false));
        let labels: Vec<&str> = c.series.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["os · impl:hw · variable:shared", "os · impl:hw · variable:distinct"]);
        assert!(c.series[0].fit.is_some() && c.series[1].fit.is_none(), "the fit belongs to its own series only");
        let xs: Vec<f64> = c.series[1].points.iter().map(|p| p.x).collect();
        assert_eq!(xs, [1.0, 2.0, 4.0]);
    }

    #[test]
    fn a_payload_sweep_is_logarithmic_and_placements_are_panels() {
        let mut points = Vec::new();
        for placement in ["same_cpu", "other_core"] {
            for payload in [8u32, 4096, 1 << 20] {
                let payload = payload.to_string();
                let params = [("transport", "pipe"), ("payload", payload.as_str()), ("placement", placement)];
                points.push(point("msg.ipc", "os", &params, payload.parse().unwrap()));
            }
        }
        let curves = curves(&record_of(points, Vec::new()));
        assert_eq!(curves.len(), 2, "one panel per placement: {curves:?}");
        assert!(curves.iter().all(|c| c.x == "payload" && c.log_x && c.log_y && c.series.len() == 1));
        assert_eq!(curves[0].panel, [("placement".to_string(), "same_cpu".to_string())]);
    }

    #[test]
    fn one_value_or_a_word_is_no_axis() {
        let points = vec![
            point("clock.read", "os", &[("source", "rdtsc")], 10.0),
            point("clock.read", "os", &[("source", "rdtscp")], 20.0),
            point("timer.wakeup", "os", &[("mechanism", "a"), ("interval_us", "1000")], 1.0),
            point("timer.wakeup", "os", &[("mechanism", "b"), ("interval_us", "1000")], 1.0),
        ];
        assert!(curves(&record_of(points, Vec::new())).is_empty());
    }

    #[test]
    fn too_many_series_split_the_panel_by_the_first_other_parameter() {
        let mut points = Vec::new();
        for transport in ["a", "b", "c"] {
            for kind in ["k0", "k1", "k2", "k3"] {
                for threads in [1, 2] {
                    let k = kind.to_string();
                    let t = threads.to_string();
                    points.push(point("x.y", "os", &[("transport", transport), ("kind", &k), ("threads", &t)], 1.0));
                }
            }
        }
        let curves = curves(&record_of(points, Vec::new()));
        assert_eq!(curves.len(), 3, "12 series split by transport: {curves:?}");
        assert!(curves.iter().all(|c| c.series.len() == 4 && c.panel[0].0 == "transport"));
    }

    /// `sync.rwlock` by default: one thread at 10% writers only, two threads at 1, 10 and 50%. The one-thread
    /// point is no curve: it is named in the caption instead of drawn as a lone dot.
    #[test]
    fn a_series_of_one_point_is_named_not_drawn() {
        let mut points =
            vec![point("sync.rwlock", "os", &[("lock", "std"), ("writers", "10"), ("threads", "1")], 40.0)];
        for w in ["1", "10", "50"] {
            points.push(point("sync.rwlock", "os", &[("lock", "std"), ("writers", w), ("threads", "2")], 60.0));
        }
        let curves = curves(&record_of(points, Vec::new()));
        assert_eq!(curves.len(), 1);
        let c = &curves[0];
        assert_eq!(c.x, "writers");
        assert_eq!(c.series.len(), 1, "{:?}", c.series);
        assert!(c.series[0].label.contains("threads:2"));
        assert_eq!(c.lone.len(), 1);
        assert!(c.lone[0].starts_with("os · lock:std · threads:1 at writers 10: "), "{:?}", c.lone);
    }
}
