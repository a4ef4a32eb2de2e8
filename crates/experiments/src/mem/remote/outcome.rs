//! From a team's windows to the point: each measured activity's relative rate per window, the median over
//! the kept windows, the side numbers and the rates table.

use super::*;

/// The median of `values` (unsorted); NaN for none.
pub(super) fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        f64::NAN
    } else {
        percentile(&v, 0.5)
    }
}

/// The point from the kept windows (after `warmup`).
///
/// Errors: no kept window held every measured activity's steady loop.
pub(super) fn rates_outcome(setup: &Setup, run: &TeamRun, warmup: usize, h: &Harness) -> anyhow::Result<Outcome> {
    let clock = h.clock;
    let mut notes = run.notes.clone();
    let k = setup.measured.len();
    let mut per_activity: Vec<(Vec<f64>, Vec<f64>)> = vec![(Vec::new(), Vec::new()); k];
    let (mut samples, mut rates, mut progress) = (Vec::new(), Vec::new(), Vec::new());
    let mut dropped = 0usize;
    for w in warmup..run.joint.len() {
        let window: Option<Vec<(f64, f64)>> = window_rates(setup, run, &clock, w).into_iter().collect();
        let Some(window) = window else {
            dropped += 1;
            continue;
        };
        for (a, &(rate, ns)) in per_activity.iter_mut().zip(&window) {
            a.0.push(rate);
            a.1.push(ns);
        }
        rates.push(window.iter().map(|r| r.0).sum::<f64>() / k as f64);
        let increments: f64 = window.iter().map(|r| 1.0 / r.1).sum::<f64>();
        samples.push(k as f64 / increments);
        let joint_ns = clock.ticks_to_ns(run.joint[w].ticks as f64);
        progress.push(joint_ns * increments / k as f64);
    }
    if samples.is_empty() {
        anyhow::bail!(
            "none of the {} kept windows saw every measured activity counting between the snapshots",
            run.joint.len() - warmup
        );
    }
    if dropped > 0 {
        notes.push(format!(
            "{dropped} of {} kept windows dropped (an activity not counting at the early snapshot)",
            run.joint.len() - warmup
        ));
    }
    let minmax = (k > 1).then(|| {
        let medians: Vec<f64> = per_activity.iter().map(|a| median(&a.0)).collect();
        (
            medians.iter().copied().fold(f64::INFINITY, f64::min),
            medians.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    });
    let joint_ms: Vec<f64> = run.joint[warmup..].iter().map(|s| clock.ticks_to_ns(s.ticks as f64) / 1e6).collect();
    let result = RemoteResult {
        relative_rate: median(&rates),
        relative_rate_min: minmax.map(|m| m.0),
        relative_rate_max: minmax.map(|m| m.1),
        windows: samples.len() as f64,
        dropped_windows: Some(dropped as f64),
        window_ms: Some(median(&joint_ms)),
        buffer_mib: None,
        steps_per_window: None,
    };
    let rows = setup
        .measured
        .iter()
        .zip(&per_activity)
        .map(|(&m, (r, ns))| {
            (format!("thread {m} (CPU {})", setup.threads[m].0), vec![Some(median(r)), Some(median(ns))])
        })
        .collect();
    let mut details = Details::default();
    details.tables.insert(
        "rates".into(),
        LabelledTable {
            title: "each measured activity's relative rate and time per increment, medians over the kept windows"
                .into(),
            unit: "rate (1 = the reference); ns".into(),
            columns: vec!["relative rate".into(), "ns per increment".into()],
            rows,
        },
    );
    // Counts are whole; a median computed through ns can land a hair below one (1499.999…).
    let batch_ops = median(&progress).max(1.0).round() as u64;
    let measurement = Measurement {
        counts_per_op: None,
        batch_ops,
        control_ns: vec![0.0; samples.len()],
        samples_ns: samples,
        per_thread_ns: Vec::new(),
        resolution_ns: h.resolution_per_op_ns(batch_ops),
    };
    Ok(Outcome { measurement, notes, extra: BTreeMap::new(), details }.with_result(&result))
}
