//! The probe side: measure one point in this process and describe it as a record.

use crate::experiments::{find, Outcome};
use crate::harness::{speed, Harness};
use crate::machine::pin_current_thread;
use crate::record::{PointRecord, ThreadResult};
use crate::stats::Summary;

use super::protocol::{ProbeJob, ProbeMessage, VERSION};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Runs `job` and returns the message to print: a result, or an error saying what went wrong.
pub fn run_probe(job: &ProbeJob) -> ProbeMessage {
    let error = |message: String| ProbeMessage::Error { v: VERSION, message };
    if job.v != VERSION {
        return error(format!("probe protocol version {} not supported; this probe speaks {VERSION}", job.v));
    }
    let spec = &job.spec;
    let Some(experiment) = find(&spec.experiment) else {
        return error(format!("unknown experiment {:?}", spec.experiment));
    };
    let Some(&home) = spec.cpus.first() else {
        return error("the point names no CPU".into());
    };
    let mut notes = Vec::new();
    if let Err(e) = pin_current_thread(home) {
        notes.push(format!("pinning to CPU {home} refused ({e}); ran unpinned"));
    }
    let harness = Harness::new(&job.time_source, job.harness);
    let measure = || -> anyhow::Result<Attempt> {
        let (before, waited_ms) = speed::wait_for_usual_speed(&harness, job.usual_reference_ns);
        let started = Instant::now();
        let outcome = experiment.run(spec, &harness)?;
        let elapsed = started.elapsed();
        Ok(Attempt { outcome, before, after: speed::reference_loop_ns(&harness), waited_ms, elapsed })
    };
    let mut attempt = match measure() {
        Ok(a) => a,
        Err(e) => return error(format!("{e:#}")),
    };
    let slow_by = |a: &Attempt| job.usual_reference_ns.map_or(1.0, |u| a.before.max(a.after) / u);
    let first_slow_by = slow_by(&attempt);
    let mut retry_ms = 0.0;
    if job.retry_slow && first_slow_by >= speed::SLOW_FACTOR && attempt.elapsed <= speed::RETRY_WITHIN {
        let retry_started = Instant::now();
        // Chosen by the reference loop alone, never by the measured value: no bias towards low results.
        let second = measure();
        retry_ms = retry_started.elapsed().as_secs_f64() * 1e3;
        if let Ok(second) = second {
            let keep_second = slow_by(&second) < first_slow_by;
            notes.push(format!(
                "measured twice: the machine ran {:.0}% slower than usual around the first attempt \
                 (reference loop); kept the {} one",
                (first_slow_by - 1.0) * 100.0,
                if keep_second { "second" } else { "first, the second was no faster" }
            ));
            if keep_second {
                attempt = second;
            }
        }
    }
    let Attempt { outcome, before: speed_before, after: speed_after, waited_ms, .. } = attempt;
    let m = &outcome.measurement;
    let (Some(summary), Some(control)) = (m.summary(), m.control_summary()) else {
        return error("the measurement produced no finite samples".into());
    };
    let per_thread = spec
        .cpus
        .iter()
        .zip(&m.per_thread_ns)
        .filter_map(|(&cpu, samples)| Summary::of(samples).map(|summary| ThreadResult { cpu, summary }))
        .collect();
    notes.extend(outcome.notes.iter().cloned());
    let point = PointRecord {
        name: spec.name(),
        spec: spec.clone(),
        metric: experiment.info().metric,
        unit: "ns".into(),
        // A team the runtime forms itself (OpenMP) has no per-thread samples; its size is the `threads` parameter.
        threads: spec.param("threads").and_then(|t| t.parse().ok()).unwrap_or(m.per_thread_ns.len()).max(1),
        batch_ops: m.batch_ops,
        noisy: summary.is_noisy(job.harness.noisy_fraction),
        below_resolution: m.below_resolution(),
        resolution_ns: m.resolution_ns,
        summary,
        control,
        samples_ns: m.samples_ns.clone(),
        control_ns: m.control_ns.clone(),
        per_thread,
        notes,
        extra: with_speed(&outcome.extra, [speed_before, speed_after, waited_ms, retry_ms]),
        details: outcome.details.clone(),
    };
    ProbeMessage::Result { v: VERSION, point: Box::new(point) }
}

/// One measurement of the point, with the machine's speed around it.
struct Attempt {
    outcome: Outcome,
    /// Reference loop, ns per iteration, just before and just after the measurement.
    before: f64,
    after: f64,
    /// How long the probe waited for the usual speed before measuring (ms).
    waited_ms: f64,
    /// How long the measurement itself took.
    elapsed: Duration,
}

/// The experiment's extra values plus, in this order: the reference loop's ns per iteration timed on the home
/// CPU just before and just after the kept measurement ([`speed::BEFORE`], [`speed::AFTER`]), the wait for the
/// usual speed before it ([`speed::WAITED`], ms) and the time spent measuring a second time ([`speed::RETRIED`],
/// ms, 0 when measured once).
fn with_speed(extra: &BTreeMap<String, f64>, values: [f64; 4]) -> BTreeMap<String, f64> {
    let mut extra = extra.clone();
    for (key, value) in [speed::BEFORE, speed::AFTER, speed::WAITED, speed::RETRIED].into_iter().zip(values) {
        extra.insert(key.into(), value);
    }
    extra
}
