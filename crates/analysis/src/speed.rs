//! The machine's speed across a run, from the reference loop timed around every point
//! ([`overhead_schema::speed`]): which points ran while the CPU was slower than usual (the `slow` flag), and
//! by how much the run's speed varied (the record's `speed_warning`). Part of [`super::analyze`].

use overhead_record::{probe_cpu_other_share, PointRecord, RunSpeed, SpeedWindow, SHARED_POINT_THRESHOLD};
use overhead_schema::speed::{every_probe, point_reference_ns, SLOW_FACTOR};
use overhead_stats::{percentile, Summary};

/// The length of one window of the run's speed course (s): long enough for tens of processes in a window,
/// short enough to show the host's minutes-long drifts.
pub const SPEED_WINDOW_S: f64 = 5.0;

/// The median of the finite values of `xs`; `None` when there are none.
fn median(xs: &[f64]) -> Option<f64> {
    let mut sorted: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    (n > 0).then(|| if n % 2 == 1 { sorted[n / 2] } else { (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0 })
}

/// The reference time of each process that measured the point (the slower of its before and after, ns per
/// iteration); the point's own for a record without processes; empty without reference times.
fn process_references(p: &PointRecord) -> Vec<f64> {
    let per_process: Vec<f64> = p.processes.iter().filter_map(|q| point_reference_ns(&q.extra)).collect();
    if per_process.is_empty() {
        point_reference_ns(&p.extra).into_iter().collect()
    } else {
        per_process
    }
}

/// The run's typical speed: the median reference time over every process of every point (ns per iteration).
fn typical_reference_ns(points: &[PointRecord]) -> Option<f64> {
    let all: Vec<f64> = points.iter().flat_map(process_references).filter(|x| x.is_finite() && *x > 0.0).collect();
    median(&all)
}

/// The share of a point's CPUs' time that other processes took while its processes ran
/// ([`probe_cpu_other_share`] over its processes, or its own `extra` for a record without processes).
pub fn shared_share(p: &PointRecord) -> Option<f64> {
    let mut cpus = p.spec.cpus.clone();
    cpus.sort_unstable();
    cpus.dedup();
    if p.processes.is_empty() {
        probe_cpu_other_share(std::iter::once(&p.extra), cpus.len())
    } else {
        probe_cpu_other_share(p.processes.iter().map(|q| &q.extra), cpus.len())
    }
}

/// Whether other processes took at least [`SHARED_POINT_THRESHOLD`] of the point's CPUs while it ran.
fn was_shared(p: &PointRecord) -> bool {
    shared_share(p).is_some_and(|s| s >= SHARED_POINT_THRESHOLD)
}

/// For each point, whether it ran on a slow machine (the `slow` flag): most of its processes ran while the
/// machine was slow — the median of their reference times is at least [`SLOW_FACTOR`] times the run's
/// typical one — or other processes took at least [`SHARED_POINT_THRESHOLD`] of its CPUs' time while its
/// processes ran. The reference loop runs on the point's first CPU for a fraction of a millisecond, where a
/// woken probe thread gets the CPU first, so a busy loop on another of the point's CPUs slows the
/// measurement without slowing the reference: the kernel's accounting catches it. Rounds spread every point
/// over the run's fast and slow spells, and its CI already holds that spread; the flag marks the points that
/// drew mostly slow ones.
pub fn slow_points(points: &[PointRecord]) -> Vec<bool> {
    let typical = typical_reference_ns(points);
    points
        .iter()
        .map(|p| {
            matches!((median(&process_references(p)), typical), (Some(r), Some(t)) if r >= SLOW_FACTOR * t)
                || was_shared(p)
        })
        .collect()
}

/// One line for the report's header when the machine's speed varied by more than [`SLOW_FACTOR`] during the
/// run (the range of reference times, the typical one) or when other processes shared some points' CPUs,
/// with how many points are flagged `slow`. `None` when the speed held, nothing shared a point's CPUs (or
/// the record has no reference times and no accounting).
pub fn speed_warning(points: &[PointRecord]) -> Option<String> {
    let slow = slow_points(points).iter().filter(|&&s| s).count();
    let shared = points.iter().filter(|p| was_shared(p)).count();
    let shared_line = (shared > 0).then(|| {
        format!(
            "other processes took at least {:.0}% of the CPUs of {shared} point(s) while they ran (the kernel's \
             accounting around each probe), so those are flagged `slow`",
            SHARED_POINT_THRESHOLD * 100.0
        )
    });
    let mut references: Vec<f64> =
        points.iter().flat_map(process_references).filter(|x| x.is_finite() && *x > 0.0).collect();
    references.sort_by(f64::total_cmp);
    let speed_line = median(&references).and_then(|typical| {
        let (fastest, slowest) = (references[0], references[references.len() - 1]);
        // The spread a cell may carry, between the 5th and 95th percentiles: one preempted speed probe is not
        // the machine's speed.
        let spread = percentile(&references, 0.95) / percentile(&references, 0.05);
        (spread >= SLOW_FACTOR).then(|| {
            format!(
                "the machine's speed changed during the run: a reference loop iteration took {fastest:.3}–{slowest:.3} \
                 ns around the probe processes (typically {typical:.3} ns), so cells measured at different speeds can \
                 differ by {spread:.1}× (95th over 5th percentile) for that reason alone; each point's processes are \
                 spread over the run, and {slow} point(s) whose processes ran mostly at least {:.0}% slower than \
                 typical or on shared CPUs are flagged `slow`.",
                (SLOW_FACTOR - 1.0) * 100.0,
            )
        })
    });
    match (speed_line, shared_line) {
        (Some(speed), Some(shared)) => Some(format!("{speed} Besides, {shared}.")),
        (Some(speed), None) => Some(speed),
        (None, Some(shared)) => Some(format!("{}{}.", shared[..1].to_uppercase(), &shared[1..])),
        (None, None) => None,
    }
}

/// The machine's speed over the run: the median of every reference reading of every process (before and
/// after each) with its order-statistic 95% CI, and the same per [`SPEED_WINDOW_S`] window of process start
/// times. `None` when no process carries a reference reading (external probes, older records).
pub fn run_speed(points: &[PointRecord]) -> Option<RunSpeed> {
    let processes = points.iter().flat_map(|p| &p.processes);
    let readings: Vec<f64> =
        every_probe(processes.clone().map(|q| &q.extra)).into_iter().filter(|x| *x > 0.0).collect();
    let all = Summary::of(&readings)?;
    let mut windows: std::collections::BTreeMap<u64, Vec<f64>> = Default::default();
    for q in processes {
        if let Some(t) = q.started_s.filter(|t| t.is_finite() && *t >= 0.0) {
            let reads = every_probe([&q.extra]).into_iter().filter(|x| *x > 0.0);
            windows.entry((t / SPEED_WINDOW_S) as u64).or_default().extend(reads);
        }
    }
    let course = windows
        .into_iter()
        .filter_map(|(k, reads)| {
            let s = Summary::of(&reads)?;
            Some(SpeedWindow {
                start_s: k as f64 * SPEED_WINDOW_S,
                length_s: SPEED_WINDOW_S,
                median_ns: s.median,
                ci_low_ns: s.ci_low,
                ci_high_ns: s.ci_high,
                readings: s.n,
            })
        })
        .collect();
    Some(RunSpeed { median_ns: all.median, ci_low_ns: all.ci_low, ci_high_ns: all.ci_high, readings: all.n, course })
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::point;
    use overhead_record::ProcessRecord;
    use overhead_schema::speed::{AFTER, BEFORE};

    fn process(before: f64, after: f64) -> ProcessRecord {
        ProcessRecord {
            round: 1,
            batch_ops: 1,
            batches: 3,
            median_ns: 1.0,
            wall_ms: 1.0,
            started_s: None,
            state: None,
            extra: [(BEFORE.to_string(), before), (AFTER.to_string(), after)].into(),
        }
    }

    /// A point measured by processes with these (before, after) reference times.
    fn with_processes(references: &[(f64, f64)]) -> PointRecord {
        let mut p = point("base.loop", "os", &[], 1.0);
        p.processes = references.iter().map(|&(b, a)| process(b, a)).collect();
        p
    }

    #[test]
    fn a_point_whose_processes_ran_mostly_slow_is_flagged_and_the_header_says_so() {
        let mut points: Vec<PointRecord> = (0..9).map(|_| with_processes(&[(0.28, 0.28); 5])).collect();
        // Two of five processes slow: the point's median process is not, so no flag.
        points.push(with_processes(&[(0.28, 0.56), (0.28, 0.56), (0.28, 0.28), (0.28, 0.28), (0.28, 0.28)]));
        // Three of five slow: flagged.
        points.push(with_processes(&[(0.28, 0.56), (0.56, 0.28), (0.56, 0.56), (0.28, 0.28), (0.28, 0.28)]));
        let slow = slow_points(&points);
        assert_eq!(slow.iter().filter(|&&s| s).count(), 1, "{slow:?}");
        assert!(slow[10] && !slow[9]);
        let line = speed_warning(&points).unwrap();
        assert!(line.contains("0.280–0.560 ns") && line.contains("typically 0.280"), "{line}");
        assert!(line.contains("1 point(s)"), "{line}");
    }

    #[test]
    fn a_run_spread_evenly_over_fast_and_slow_spells_flags_no_point() {
        // Every point drew the same mix of fast and slow processes: the CIs hold the spread, no point stands out.
        let mix = [(0.27, 0.27), (0.53, 0.53), (0.27, 0.27), (0.53, 0.53), (0.27, 0.27)];
        let points: Vec<PointRecord> = (0..10).map(|_| with_processes(&mix)).collect();
        assert!(slow_points(&points).iter().all(|s| !s));
        assert!(speed_warning(&points).unwrap().contains("0 point(s)"));
    }

    #[test]
    fn the_run_speed_is_the_median_of_every_reading_and_its_course_follows_the_windows() {
        let mut p = with_processes(&[(0.2, 0.2), (0.2, 0.2), (0.3, 0.3), (0.3, 0.3)]);
        for (k, q) in p.processes.iter_mut().enumerate() {
            q.started_s = Some(if k < 2 { 1.0 } else { SPEED_WINDOW_S + 1.0 });
        }
        let speed = run_speed(&[p]).unwrap();
        assert_eq!(speed.readings, 8);
        assert!((speed.median_ns - 0.25).abs() < 1e-12, "{speed:?}");
        assert_eq!(speed.course.len(), 2);
        assert!((speed.course[0].median_ns - 0.2).abs() < 1e-12 && (speed.course[1].median_ns - 0.3).abs() < 1e-12);
        assert_eq!(speed.course[1].start_s, SPEED_WINDOW_S);
        assert!(run_speed(&[point("base.loop", "os", &[], 1.0)]).is_none(), "no readings, no speed");
    }

    #[test]
    fn a_steady_run_or_an_old_record_gives_no_warning() {
        let steady: Vec<PointRecord> = (0..5).map(|k| with_processes(&[(0.28, 0.28 + 0.01 * k as f64)])).collect();
        assert!(speed_warning(&steady).is_none());
        assert!(slow_points(&steady).iter().all(|s| !s));
        assert!(speed_warning(&[point("base.loop", "os", &[], 1.0)]).is_none());
        // A record from before rounds: the points' own reference times stand for their one process.
        let mut old: Vec<PointRecord> = (0..9).map(|_| point("base.loop", "os", &[], 1.0)).collect();
        old.push(point("base.call", "os", &[], 1.0));
        for (k, p) in old.iter_mut().enumerate() {
            p.extra.insert(BEFORE.into(), 0.28);
            p.extra.insert(AFTER.into(), if k == 9 { 0.5 } else { 0.28 });
        }
        assert_eq!(slow_points(&old), [vec![false; 9], vec![true]].concat());
    }

    /// A point whose CPUs other processes shared (the kernel's busy time beyond the probes' own, summed over
    /// its processes) is flagged `slow` though its reference loop ran at full speed, and the header says so;
    /// one whose CPUs ran only its probes, or whose processes carry no accounting, is not.
    #[test]
    fn a_point_whose_cpus_other_processes_shared_is_flagged_slow() {
        use overhead_record::probe_cpu_keys::{BUSY_S, OWN_S, TOTAL_S};
        let with_cpu = |busy: f64, own: f64| {
            let mut p = with_processes(&[(0.28, 0.28); 3]);
            for q in &mut p.processes {
                q.extra.extend([(BUSY_S.to_string(), busy), (TOTAL_S.to_string(), 0.2), (OWN_S.to_string(), own)]);
            }
            p
        };
        // Two CPUs for 0.1 s: a busy loop on one of them leaves the probe 0.12 s of 0.2 (share 0.4). The last
        // point's accounting covers too little time to judge: three probes of 10 ms on two CPUs (0.06 s in
        // all) are off by about 0.01 s, a sixth of it.
        let mut short = with_cpu(0.2, 0.12);
        for q in &mut short.processes {
            q.extra.insert(TOTAL_S.to_string(), 0.02);
            q.extra.insert(BUSY_S.to_string(), 0.02);
        }
        let points = vec![with_cpu(0.2, 0.12), with_cpu(0.2, 0.19), with_processes(&[(0.28, 0.28); 3]), short];
        assert!((shared_share(&points[0]).unwrap() - 0.4).abs() < 1e-9);
        assert_eq!(slow_points(&points), vec![true, false, false, false]);
        assert_eq!(shared_share(&points[2]), None);
        assert_eq!(shared_share(&points[3]), None);
        let warning = speed_warning(&points).unwrap();
        assert!(warning.starts_with("Other processes took at least 25% of the CPUs of 1 point(s)"), "{warning}");
    }
}
