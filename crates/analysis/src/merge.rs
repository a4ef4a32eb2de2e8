//! One point from the processes that measured it (docs/METHOD.md "Two levels"): the two-level estimate and
//! CI, the pooled samples, and the flags that say how far to trust the number.

use std::collections::BTreeMap;

use overhead_humanize::format_ns;
use overhead_record::{PointRecord, ProcessRecord};
use overhead_stats::{percentile, Summary, TwoLevel};

/// A probe process's answer for a point, with when and how long it ran.
#[derive(Debug, Clone, PartialEq)]
pub struct Process {
    /// The point as this process alone measured it (its own batches).
    pub record: PointRecord,
    /// The round it ran in, from 1.
    pub round: usize,
    /// Its wall time, start-up included (ms).
    pub wall_ms: f64,
    /// When it started, seconds after the run started (`None` in tests and replays).
    pub started_s: Option<f64>,
}

/// "the processes fall in 2 modes: 17.1 ns (4 processes, 16.2 ns – 18.9 ns), 35.8 ns (2, 33.0 ns – 38.5 ns);
/// the estimate lies between them and describes neither".
fn modes_note(modes: &[overhead_stats::ProcessMode]) -> String {
    let each: Vec<String> = modes
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let processes = if i == 0 { format!("{} processes", m.processes) } else { m.processes.to_string() };
            format!("{} ({processes}, {} – {})", format_ns(m.median), format_ns(m.low), format_ns(m.high))
        })
        .collect();
    format!(
        "the processes fall in {} modes: {}; the estimate lies between them and describes none (docs/METHOD.md §3)",
        modes.len(),
        each.join(", ")
    )
}

/// What the flags are judged against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Flagging {
    /// CI half-width, as a fraction of the estimate, above which a point is `noisy`.
    pub noisy_fraction: f64,
    /// Relative spread of the process medians below which a point is never `unstable` (0.01 = 1%).
    pub unstable_spread: f64,
    /// One cycle of this CPU as the run measured it (ns), if known: the fastest iteration of the empty
    /// loop (see [`cycle_floor_ns`]). No operation timed in a loop costs less.
    pub cycle_ns: Option<f64>,
}

/// The point over all of `processes` (at least one, in the order they ran). The representative process,
/// whose median is nearest the estimate, gives what cannot be pooled: per-thread results, matrices and
/// tables, and the batch size.
///
/// Panics if `processes` is empty.
pub fn merge_processes(processes: &[Process], rules: &Flagging) -> PointRecord {
    assert!(!processes.is_empty(), "a point needs at least one process");
    let batches: Vec<Vec<f64>> = processes.iter().map(|p| p.record.samples_ns.clone()).collect();
    let two_level = TwoLevel::of(&batches);
    let medians: Vec<f64> = processes.iter().map(|p| p.record.summary.median).collect();
    let centre = two_level.as_ref().map_or(medians[0], |t| t.estimate);
    let representative = (0..processes.len())
        .min_by(|&a, &b| (medians[a] - centre).abs().total_cmp(&(medians[b] - centre).abs()))
        .expect("at least one process");
    let mut point = processes[representative].record.clone();
    point.samples_ns = batches.concat();
    point.control_ns = processes.iter().flat_map(|p| p.record.control_ns.iter().copied()).collect();
    // With one process the pooled samples are its own, so this is its summary; with more, the centre and
    // the CI are the two-level ones.
    if let Some(pooled) = Summary::of(&point.samples_ns) {
        point.summary = pooled;
    }
    if let Some(control) = Summary::of(&point.control_ns) {
        point.control = control;
    }
    if let Some(t) = &two_level {
        point.summary.median = t.estimate;
        point.summary.ci_low = t.ci_low;
        point.summary.ci_high = t.ci_high;
        point.summary.ci_level = t.ci_level;
    }
    point.unstable = two_level.as_ref().is_some_and(|t| t.is_unstable(rules.unstable_spread));
    point.two_level = two_level;
    point.modes = overhead_stats::process_modes(&medians).unwrap_or_default();
    point.processes = processes.iter().map(process_record).collect();
    point.extra = median_extras(processes);
    point.counts = overhead_record::estimate_counts(processes.iter().map(|p| &p.record.extra));
    point.notes = distinct_notes(processes);
    if !point.modes.is_empty() {
        point.notes.push(modes_note(&point.modes));
    }
    if let Some(details) = merged_details(processes) {
        point.details = details;
    }
    point.resolution_ns = processes.iter().map(|p| p.record.resolution_ns).fold(0.0, f64::max);
    point.wall_ms = processes.iter().map(|p| p.wall_ms).sum();
    point.noisy = point.summary.is_noisy(rules.noisy_fraction);
    point.below_resolution_why = below_floor(&point, rules.cycle_ns);
    point.below_resolution = point.below_resolution_why.is_some();
    point
}

/// The point's details merged from every process ([`crate::merge_details`]); `None` keeps the
/// representative's.
fn merged_details(processes: &[Process]) -> Option<overhead_record::Details> {
    let details: Vec<&overhead_record::Details> = processes.iter().map(|p| &p.record.details).collect();
    crate::merge_details::merge_details(&processes[0].record.spec.experiment, &details)
}

fn process_record(p: &Process) -> ProcessRecord {
    ProcessRecord {
        round: p.round,
        batch_ops: p.record.batch_ops,
        batches: p.record.samples_ns.len(),
        median_ns: p.record.summary.median,
        wall_ms: p.wall_ms,
        started_s: p.started_s,
        state: None,
        extra: p.record.extra.clone(),
    }
}

/// Each extra value's median over the processes that reported it.
fn median_extras(processes: &[Process]) -> BTreeMap<String, f64> {
    let mut values: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for p in processes {
        for (k, &v) in &p.record.extra {
            values.entry(k.clone()).or_default().push(v);
        }
    }
    values
        .into_iter()
        .map(|(k, mut v)| {
            v.sort_by(f64::total_cmp);
            (k, percentile(&v, 0.5))
        })
        .collect()
}

/// Every process's notes, each once, in the order first seen.
fn distinct_notes(processes: &[Process]) -> Vec<String> {
    let mut notes = Vec::new();
    add_distinct_notes(&mut notes, processes.iter().flat_map(|p| p.record.notes.iter().cloned()));
    notes
}

/// Appends each of `more` that `notes` does not hold yet, in order.
pub fn add_distinct_notes(notes: &mut Vec<String>, more: impl IntoIterator<Item = String>) {
    for note in more {
        if !notes.contains(&note) {
            notes.push(note);
        }
    }
}

/// Why the point's value is not a cost (docs/METHOD.md §5), or `None` when it is one: its CI reaches down
/// to the timing resolution, its estimate is below one cycle, or it lies inside the control's own scatter
/// (the control's median absolute deviation).
pub(crate) fn below_floor(point: &PointRecord, cycle_ns: Option<f64>) -> Option<String> {
    let s = &point.summary;
    if s.ci_low <= point.resolution_ns {
        return Some(format!(
            "its CI reaches down to the timing resolution ({} per operation at {} operations a batch)",
            format_ns(point.resolution_ns),
            point.batch_ops
        ));
    }
    if let Some(cycle) = cycle_ns.filter(|&c| s.median < c) {
        return Some(format!(
            "{} is less than one cycle here (~{}, the fastest empty-loop iteration of this run): the operation \
             overlaps the loop, so this is no cost the hardware can have",
            format_ns(s.median),
            format_ns(cycle)
        ));
    }
    if s.median.abs() <= point.control.mad {
        return Some(format!(
            "{} lies inside the control's own scatter (MAD {})",
            format_ns(s.median),
            format_ns(point.control.mad)
        ));
    }
    None
}

/// One cycle of this CPU as measured by the run: 95% of the fastest empty-loop iteration among `references`
/// (ns per iteration, the reference loop timed around every probe, `harness::speed`). An iteration of the
/// loop takes at least a cycle; the 5% allows for that timing's own scatter. `None` without references.
pub fn cycle_floor_ns(references: impl IntoIterator<Item = f64>) -> Option<f64> {
    fastest_reference_ns(references).map(|min| 0.95 * min)
}

/// The fastest of `references` (ns per iteration of the reference loop), timings that are not a positive
/// number left out: what [`cycle_floor_ns`] is taken from, so a run can keep it as its processes answer.
pub fn fastest_reference_ns(references: impl IntoIterator<Item = f64>) -> Option<f64> {
    references.into_iter().filter(|x| x.is_finite() && *x > 0.0).min_by(f64::total_cmp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::point;
    use overhead_stats::synthetic::{two_level, Rng};

    const RULES: Flagging = Flagging { noisy_fraction: 0.05, unstable_spread: 0.01, cycle_ns: Some(0.27) };

    fn processes(batches: Vec<Vec<f64>>) -> Vec<Process> {
        batches
            .into_iter()
            .enumerate()
            .map(|(i, samples)| {
                let mut record = point("base.call", "os", &[], 1.0);
                record.summary = Summary::of(&samples).unwrap();
                record.extra = [("x".to_string(), i as f64)].into();
                record.samples_ns = samples;
                Process { record, round: i + 1, wall_ms: 10.0, started_s: None }
            })
            .collect()
    }

    #[test]
    fn merged_point_keeps_every_process_and_the_two_level_estimate() {
        let mut rng = Rng::new(11);
        let procs = processes(two_level(&mut rng, 4, 5, 100.0, 2.0, 1.0));
        let p = merge_processes(&procs, &RULES);
        let t = p.two_level.clone().unwrap();
        assert_eq!(p.processes.len(), 4);
        assert_eq!(p.samples_ns.len(), 20);
        assert_eq!(p.processes.iter().map(|q| q.batches).sum::<usize>(), 20);
        assert_eq!((p.summary.median, p.summary.ci_low, p.summary.ci_high), (t.estimate, t.ci_low, t.ci_high));
        assert_eq!(p.summary.n, 20);
        assert_eq!(p.extra["x"], 1.5, "extras are medians over processes");
        assert_eq!(p.wall_ms, 40.0);
        assert_eq!(p.notes, vec!["a note".to_string()], "the same note from every process is kept once");
    }

    #[test]
    fn one_process_keeps_its_own_summary() {
        let procs = processes(vec![vec![10.0, 11.0, 12.0, 10.5, 11.5]]);
        let p = merge_processes(&procs, &RULES);
        assert!(p.two_level.is_none() && !p.unstable);
        assert_eq!(p.summary, procs[0].record.summary);
    }

    #[test]
    fn processes_that_disagree_are_flagged_unstable_and_noisy() {
        let procs = processes(vec![vec![10.0, 10.01, 9.99], vec![14.0, 14.01, 13.99], vec![10.5, 10.49, 10.51]]);
        let p = merge_processes(&procs, &RULES);
        assert!(p.unstable && p.noisy, "{:?}", p.two_level);
    }

    /// The physical floor: a result below one cycle is flagged with the reason, as is one inside the
    /// control's scatter; a result of a few cycles is not.
    #[test]
    fn a_sub_cycle_result_is_flagged_below_resolution() {
        let sub_cycle = processes(vec![vec![0.065, 0.066, 0.064], vec![0.065, 0.064, 0.066]]);
        let p = merge_processes(&sub_cycle, &RULES);
        assert!(p.below_resolution, "{p:?}");
        assert!(p.below_resolution_why.unwrap().contains("less than one cycle"));
        let cost = processes(vec![vec![1.3, 1.31, 1.29], vec![1.3, 1.32, 1.3]]);
        let p = merge_processes(&cost, &RULES);
        assert!(!p.below_resolution, "{:?}", p.below_resolution_why);
        let mut scattered = processes(vec![vec![0.4, 0.41, 0.39], vec![0.4, 0.4, 0.41]]);
        for q in &mut scattered {
            q.record.control_ns = vec![1.0, 1.5, 2.0];
        }
        let p = merge_processes(&scattered, &RULES);
        assert!(p.below_resolution_why.unwrap().contains("scatter"));
    }

    #[test]
    fn the_cycle_floor_is_just_under_the_fastest_loop_iteration() {
        assert_eq!(cycle_floor_ns([0.3, f64::NAN, 0.28, 0.52]), Some(0.95 * 0.28));
        assert_eq!(cycle_floor_ns([]), None);
    }

    #[test]
    fn processes_in_distinct_modes_are_reported_as_such() {
        let rules = Flagging { noisy_fraction: 0.05, unstable_spread: 0.01, cycle_ns: None };
        let medians = [17.0, 16.5, 35.0, 17.2, 38.0, 16.8];
        let processes: Vec<Process> = medians
            .iter()
            .enumerate()
            .map(|(i, &m)| {
                let mut record = point("mem.c2c", "os", &[], m);
                record.samples_ns = vec![m; 3];
                Process { record, round: i + 1, wall_ms: 1.0, started_s: None }
            })
            .collect();
        let p = merge_processes(&processes, &rules);
        assert_eq!(p.modes.iter().map(|m| m.processes).collect::<Vec<_>>(), [4, 2]);
        assert!(p
            .notes
            .iter()
            .any(|n| n.starts_with("the processes fall in 2 modes: ") && n.contains("(4 processes, ")));
        let steady = merge_processes(&processes[..2], &rules);
        assert!(steady.modes.is_empty() && !steady.notes.iter().any(|n| n.contains("modes")));
    }
}
