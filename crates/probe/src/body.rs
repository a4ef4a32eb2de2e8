//! The probe side: measure one point in this process and describe it as a record.

use overhead_experiments::point::unimplemented_runtime;
use overhead_experiments::{find, Point};
use overhead_harness::host_pair::{self, PairRtt};
use overhead_harness::{speed, Harness, Measurement};
use overhead_machine::{pin_current_thread, refused_pinnings, ProcessTimes};
use overhead_record::{
    per_op_key, Details, PointRecord, PointSpec, ThreadResult, CPU_SYSTEM_KEY, CPU_USER_KEY, HOST_PAIR_A, HOST_PAIR_B,
    HOST_RTT_AFTER, HOST_RTT_BEFORE, HOST_RTT_COST, TICK_KEY, WINDOW_CPU_KEY,
};
use overhead_stats::Summary;

use overhead_protocol::{ProbeJob, ProbeMessage, VERSION};
use std::collections::BTreeMap;

/// Runs `job` and returns the message to print: a result, or an error saying what went wrong.
pub fn run_probe(job: &ProbeJob) -> ProbeMessage {
    let error = |message: String| ProbeMessage::Error { v: VERSION, message };
    let spec = &job.spec;
    let (experiment, point) = match resolve(job) {
        Ok(resolved) => resolved,
        Err(message) => return error(message),
    };
    let Some(&home) = spec.cpus.get(point.rank) else {
        return error(format!("the point names no CPU for rank {}", point.rank));
    };
    let refused_before = refused_pinnings();
    let mut notes = Vec::new();
    if let Err(e) = pin_current_thread(home) {
        notes.push(format!("pinning to CPU {home} refused ({e}); ran unpinned"));
    }
    if point.runs_as_ranks() {
        match super::ranks::where_ranks_run(&point) {
            Ok(placed) => notes.push(placed),
            Err(e) => return error(format!("{e:#}")),
        }
        if point.rank > 0 {
            return match experiment.follow(&point) {
                Ok(()) => ProbeMessage::Note { v: VERSION, text: format!("rank {} done", point.rank) },
                Err(e) => error(format!("rank {}: {e:#}", point.rank)),
            };
        }
    }
    let harness = Harness::new(&job.time_source, job.harness).with_batch_hint(job.batch_ops_hint);
    // The machine's speed just before and just after, for the report (`harness::speed`); nothing is waited
    // for or measured again: a slow minute lands on different points in different rounds and shows up as
    // between-process variance (docs/METHOD.md).
    let speed_before = speed::reference_loop_ns(&harness);
    // Where the host put the CPUs, just before and just after (docs/METHOD.md §19).
    let host_before = job.host_pair.and_then(|[a, b]| host_pair::pair_rtt(&harness, a, b, home));
    let times_before = ProcessTimes::now().ok();
    let outcome = match experiment.run(&point, &harness) {
        Ok(outcome) => outcome,
        Err(e) => return error(format!("{e:#}")),
    };
    let times = times_before.and_then(|before| Some((before, ProcessTimes::now().ok()?)));
    let speed_after = speed::reference_loop_ns(&harness);
    let host_after = job.host_pair.and_then(|[a, b]| host_pair::pair_rtt(&harness, a, b, home));
    notes.extend(outcome.notes.iter().cloned());
    let mut extra = with_speed(&outcome.extra, speed_before, speed_after);
    if let Some(pair) = job.host_pair {
        put_fingerprints(&mut extra, pair, host_before, host_after);
    }
    put_kernel_counts(&mut extra, &outcome.measurement, times);
    if job.harness.counted_pairs > 0 {
        notes.extend(absent_counts_note(&outcome.measurement));
    }
    match point_record(spec, &outcome.measurement, notes, extra, outcome.details.clone(), job.harness.noisy_fraction) {
        Ok(point) => ProbeMessage::Result {
            v: VERSION,
            point: Box::new(point),
            sized_batch_ops: harness.first_sized_batch_ops(),
            pin_refusals: refused_pinnings().saturating_sub(refused_before),
        },
        Err(message) => error(message),
    }
}

/// The experiment and the point of `job`, its runtime resolved once (the experiment gets it with the spec and
/// measures without looking it up), and for ranks this process's rank in the job.
///
/// Errors: another protocol version, an unknown experiment, a runtime that does not implement it, or ranks
/// that cannot join their job; in words.
fn resolve(job: &ProbeJob) -> Result<(&'static dyn overhead_experiments::Experiment, Point<'_>), String> {
    if job.v != VERSION {
        return Err(format!("probe protocol version {} not supported; this probe speaks {VERSION}", job.v));
    }
    let spec = &job.spec;
    let experiment = find(&spec.experiment).ok_or_else(|| format!("unknown experiment {:?}", spec.experiment))?;
    let mut point = Point::resolve(spec).ok_or_else(|| format!("{:#}", unimplemented_runtime(spec)))?;
    if point.runs_as_ranks() {
        point.rank = super::ranks::join(spec).map_err(|e| format!("{e:#}"))?;
    }
    Ok((experiment, point))
}

/// The kernel's events per operation into `extra`, where the measurement counted them (docs/METHOD.md §18),
/// with the process's CPU time at the end of the measurement, user and kernel (the kernel's split covers its
/// whole life), and the run's own part of it (`times`: before and after): the point's kernel share is pooled
/// over its processes where the runs dominate (`overhead_record::estimate_counts`).
fn put_kernel_counts(
    extra: &mut BTreeMap<String, f64>,
    measurement: &Measurement,
    times: Option<(ProcessTimes, ProcessTimes)>,
) {
    let Some(counts) = &measurement.counts_per_op else { return };
    for &(kind, per_op) in &counts.0 {
        extra.insert(per_op_key(kind), per_op);
    }
    if let Some((before, after)) = times {
        extra.insert(CPU_USER_KEY.into(), after.user_ns as f64);
        extra.insert(CPU_SYSTEM_KEY.into(), after.system_ns as f64);
        extra.insert(WINDOW_CPU_KEY.into(), after.total_ns().saturating_sub(before.total_ns()) as f64);
        if let Some(tick) = overhead_machine::accounting_tick_ns() {
            extra.insert(TICK_KEY.into(), tick as f64);
        }
    }
}

/// Where the harness counts but the kernel refused perf, or counting is off (not where the experiment times
/// itself): what is absent and why; `None` where perf counted. A measurement that holds the perf group's
/// context switches was counted by perf, so the kernel is not asked again (opening a group to learn that
/// took a few tenths of a millisecond of every probe).
fn absent_counts_note(measurement: &Measurement) -> Option<String> {
    let counted_by_perf = measurement
        .counts_per_op
        .as_ref()
        .is_some_and(|counts| counts.0.iter().any(|&(kind, _)| kind == overhead_machine::CounterKind::ContextSwitches));
    if counted_by_perf {
        return None;
    }
    let why = overhead_machine::ThreadCounters::perf_absent()?;
    Some(match measurement.counts_per_op {
        Some(_) => format!("no perf counts (the measuring thread's context switches, migrations, faults): {why}"),
        None => format!("no kernel counts: {why}"),
    })
}

/// One process's record of the point `spec` from its measurement (ns per operation), whoever measured it:
/// this probe, or an external probe's raw batches (`runtimes::external`). The process's summary is made
/// here, so every runtime's statistics are the same code.
///
/// Errors: the measurement has no finite sample, or the experiment is unknown.
pub fn point_record(
    spec: &PointSpec,
    m: &Measurement,
    notes: Vec<String>,
    extra: BTreeMap<String, f64>,
    details: Details,
    noisy_fraction: f64,
) -> Result<PointRecord, String> {
    let Some(experiment) = find(&spec.experiment) else {
        return Err(format!("unknown experiment {:?}", spec.experiment));
    };
    let (Some(summary), Some(control)) = (m.summary(), m.control_summary()) else {
        return Err("the measurement produced no finite samples".into());
    };
    // Free threads have no CPU of their own: their per-thread times stay out of the record.
    let pinned_cpus: &[usize] = if spec.threads_free() { &[] } else { &spec.cpus };
    let per_thread = pinned_cpus
        .iter()
        .zip(&m.per_thread_ns)
        .filter_map(|(&cpu, samples)| Summary::of(samples).map(|summary| ThreadResult { cpu, summary }))
        .collect();
    let metric = experiment.info().metric;
    Ok(PointRecord {
        // A team the runtime forms itself (OpenMP) has no per-thread samples; its size is the `threads` parameter.
        threads: spec.param("threads").and_then(|t| t.parse().ok()).unwrap_or(m.per_thread_ns.len()).max(1),
        batch_ops: m.batch_ops,
        noisy: summary.is_noisy(noisy_fraction),
        below_resolution: m.below_resolution(),
        resolution_ns: m.resolution_ns,
        samples_ns: m.samples_ns.clone(),
        control_ns: m.control_ns.clone(),
        per_thread,
        notes,
        // The one process's counts, as its own estimate; the orchestrator's merge estimates them over processes.
        counts: overhead_record::estimate_counts([&extra]),
        extra,
        details,
        ..PointRecord::unmerged(spec.clone(), metric, summary, control)
    })
}

/// The experiment's extra values plus the reference loop's ns per iteration timed on the home CPU just before
/// ([`speed::BEFORE`]) and just after ([`speed::AFTER`]) the measurement.
fn with_speed(extra: &BTreeMap<String, f64>, before: f64, after: f64) -> BTreeMap<String, f64> {
    let mut extra = extra.clone();
    extra.insert(speed::BEFORE.into(), before);
    extra.insert(speed::AFTER.into(), after);
    extra
}

/// The host-state fingerprints into the process's extra values ([`overhead_record::Fingerprint`] reads them):
/// the pair, each round trip taken, and what both cost. Nothing when neither was taken.
fn put_fingerprints(
    extra: &mut BTreeMap<String, f64>,
    pair: [usize; 2],
    before: Option<PairRtt>,
    after: Option<PairRtt>,
) {
    if before.is_none() && after.is_none() {
        return;
    }
    extra.insert(HOST_PAIR_A.into(), pair[0].min(pair[1]) as f64);
    extra.insert(HOST_PAIR_B.into(), pair[0].max(pair[1]) as f64);
    for (key, rtt) in [(HOST_RTT_BEFORE, before), (HOST_RTT_AFTER, after)] {
        if let Some(rtt) = rtt {
            extra.insert(key.into(), rtt.rtt_ns);
        }
    }
    let cost: f64 = before.iter().chain(&after).map(|r| r.cost_ns).sum();
    extra.insert(HOST_RTT_COST.into(), cost);
}
