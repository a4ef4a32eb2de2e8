//! The host's states over a run and each point's time per state (docs/METHOD.md §19).
//!
//! Every probe process times a cache line's round trip between two CPUs just before and just after its
//! measurement (`harness::host_pair`). Per CPU pair, the run's round trips fall in a few levels — where the
//! hypervisor put the vCPUs — found by optimal one-dimensional clustering with the number chosen by BIC
//! (`overhead_stats::levels`). A process whose two fingerprints agree is in that state; one whose
//! fingerprints disagree saw the host move the CPUs and is in none.
//!
//! A point whose processes met two or more states is tested: do its processes' log medians differ between
//! states more than they differ within one? The F test's within-state variance is the point's own,
//! moderated by the run's typical one (a prior worth [`PRIOR_DF`] degrees of freedom, as limma moderates
//! a gene's variance), because a point's three to five processes give one or two degrees of freedom at
//! most. The p-values of every tested point go through Benjamini–Hochberg at 5%, as the sides' do. A point
//! that differs reports each state's estimate and headlines the state most of its processes met, instead
//! of an average of states that describes none (an interval reaching below zero, on a shared host).

use std::collections::BTreeMap;

use adjustp::{adjust, Procedure};
use statrs::distribution::{ContinuousCDF, FisherSnedecor};

use overhead_record::{
    own_pair, Fingerprint, HostState, HostStates, PairStates, PointByState, PointRecord, RunRecord, StateEstimate,
    StateSpan, HOST_RTT_COST,
};
use overhead_schema::speed::every_probe;
use overhead_stats::{percentile, Summary, TwoLevel};

/// The false discovery rate of the `host-state` flags.
pub const FDR: f64 = 0.05;

/// Degrees of freedom the run's within-state variance is worth as a prior for one point's.
pub const PRIOR_DF: f64 = 4.0;

/// Derives the run's host states from every process's fingerprints (every side's too), gives each process
/// its state, and each point that met several its estimates per state, test and flag; a point that differs
/// headlines its most common state. Idempotent: a point that does not differ gets back its two-level
/// estimate over all its processes.
pub fn apply(record: &mut RunRecord) {
    let peer_readings = record.crosscheck.iter().flat_map(|c| &c.peers).flat_map(|p| &p.readings).map(|r| &r.extra);
    let states = run_states(record.every_point(), peer_readings);
    let noisy_fraction = record.harness.noisy_fraction;
    let mut points: Vec<&mut PointRecord> = record.points.iter_mut().collect();
    if let Some(sides) = record.sides.as_mut() {
        points.extend(sides.sides.iter_mut().skip(1).flat_map(|s| s.points.iter_mut()));
    }
    for p in points.iter_mut() {
        assign_states(p, states.as_ref());
    }
    let mut states = states;
    if let Some(states) = states.as_mut() {
        count_states(states, &mut points);
        order_states(states, &mut points);
    }
    let prior = run_within_variance(points.iter().map(|p| &**p));
    let cycle_ns = crate::cycle_floor_ns(every_probe(points.iter().flat_map(|p| p.processes.iter().map(|q| &q.extra))));
    for p in points.iter_mut() {
        p.by_state = states.as_ref().and_then(|s| by_state(p, s, prior, cycle_ns));
    }
    control_fdr(&mut points);
    for p in points.iter_mut() {
        headline(p, noisy_fraction, cycle_ns);
    }
    record.host_states = states;
}

/// The states of each fingerprinted pair over `points`' processes and `others`' fingerprints (a crosscheck's
/// peer runs: their states count, their time is no probe's); `None` when none took one.
pub fn run_states<'a>(
    points: impl Iterator<Item = &'a PointRecord>,
    others: impl Iterator<Item = &'a BTreeMap<String, f64>>,
) -> Option<HostStates> {
    let mut readings: BTreeMap<[usize; 2], Vec<f64>> = BTreeMap::new();
    let mut differences: BTreeMap<[usize; 2], Vec<f64>> = BTreeMap::new();
    let mut fingerprint_s = 0.0;
    let mut process_s = 0.0;
    for q in points.flat_map(|p| &p.processes) {
        process_s += q.wall_ms / 1e3;
        fingerprint_s += q.extra.get(HOST_RTT_COST).copied().unwrap_or(0.0) / 1e9;
        if let Some(f) = Fingerprint::of(&q.extra) {
            readings.entry(f.pair).or_default().extend(f.readings());
            if let (Some(before), Some(after)) = (f.before_ns, f.after_ns) {
                differences.entry(f.pair).or_default().push((after / before).ln());
            }
        }
    }
    for f in others.filter_map(Fingerprint::of) {
        readings.entry(f.pair).or_default().extend(f.readings());
    }
    if readings.is_empty() {
        return None;
    }
    let pairs = readings
        .into_iter()
        .filter_map(|(pair, values)| {
            let repeatability = repeatability(differences.get(&pair).map_or(&[][..], Vec::as_slice));
            pair_levels(pair, &values, repeatability)
        })
        .collect();
    Some(HostStates { pairs, fingerprint_s, process_s })
}

/// How many standard deviations of the fingerprint's own repeatability two states must stand apart: a
/// k-means split of one log-normal state puts its halves' centres about 1.6 of a reading's sd apart, so four
/// sd of the difference between two readings (5.7 of one reading's) leaves one state whole however wide,
/// while the placements a hypervisor switches between (×2 to ×7 on the machines measured) stay apart.
pub const STATE_SEPARATION_SD: f64 = 4.0;

/// The fingerprint's repeatability on the log scale: the standard deviation of the difference between a
/// process's two round trips (`ln(after / before)`), estimated robustly as 1.4826 × their median absolute
/// value, so the few processes during which the host moved the CPUs do not inflate it. `None` with fewer
/// than [`MIN_DIFFERENCES`] processes that took both.
pub fn repeatability(log_differences: &[f64]) -> Option<f64> {
    if log_differences.len() < MIN_DIFFERENCES {
        return None;
    }
    let mut magnitudes: Vec<f64> = log_differences.iter().map(|d| d.abs()).filter(|d| d.is_finite()).collect();
    magnitudes.sort_by(f64::total_cmp);
    (!magnitudes.is_empty()).then(|| 1.4826 * percentile(&magnitudes, 0.5))
}

/// The processes with both fingerprints a pair needs before its repeatability is trusted.
pub const MIN_DIFFERENCES: usize = 5;

/// One pair's states from its round trips, without process counts yet ([`assign_states`] adds them),
/// lowest round trip first until counted. Two clusters are two states only when their geometric means
/// stand [`STATE_SEPARATION_SD`] of the fingerprint's `repeatability` apart (log sd of a process's two
/// readings' difference; without one, the levels' own floor `overhead_stats::levels`).
fn pair_levels(cpus: [usize; 2], values: &[f64], repeatability: Option<f64>) -> Option<PairStates> {
    let min_ratio = repeatability.map_or(0.0, |sd| (STATE_SEPARATION_SD * sd).exp());
    let levels = overhead_stats::levels_apart(values, min_ratio).ok()?;
    let mut members: Vec<Vec<f64>> = vec![Vec::new(); levels.count];
    for (&v, &l) in values.iter().zip(&levels.label) {
        members[l].push(v);
    }
    let states = members
        .into_iter()
        .filter(|m| !m.is_empty())
        .map(|mut m| {
            m.sort_by(f64::total_cmp);
            HostState {
                rtt_ns: percentile(&m, 0.5),
                low_ns: m[0],
                high_ns: m[m.len() - 1],
                fingerprints: m.len(),
                processes: 0,
                process_share: 0.0,
            }
        })
        .collect();
    Some(PairStates {
        cpus,
        states,
        fingerprints: values.len(),
        changed_processes: 0,
        timeline: Vec::new(),
        repeatability_log_sd: repeatability,
    })
}

/// The state (index into `pair.states`) a round trip falls in: the nearest on the log scale, which for the
/// round trips the states were found from is their own (the levels do not overlap).
pub fn state_of(pair: &PairStates, rtt_ns: f64) -> Option<usize> {
    let distance = |s: &HostState| {
        if rtt_ns < s.low_ns {
            (s.low_ns / rtt_ns).ln()
        } else if rtt_ns > s.high_ns {
            (rtt_ns / s.high_ns).ln()
        } else {
            0.0
        }
    };
    (0..pair.states.len()).min_by(|&a, &b| distance(&pair.states[a]).total_cmp(&distance(&pair.states[b])))
}

/// A process's (or a peer run's) state from its fingerprints: the one both fall in (or the one taken), `None` when they
/// disagree or there is none.
pub fn process_state(pair: &PairStates, f: &Fingerprint) -> Option<usize> {
    let mut states = f.readings().map(|r| state_of(pair, r));
    let first = states.next()??;
    states.all(|s| s == Some(first)).then_some(first)
}

/// Sets each process's `state` from its fingerprints.
fn assign_states(point: &mut PointRecord, states: Option<&HostStates>) {
    for q in &mut point.processes {
        q.state = states.and_then(|s| {
            let f = Fingerprint::of(&q.extra)?;
            process_state(s.pair(f.pair)?, &f)
        });
    }
}

/// The run's states with their process counts, shares, changed processes and timeline; most common first
/// once [`order_states`] has run. Called after [`assign_states`] by [`apply`].
fn count_states(states: &mut HostStates, points: &mut [&mut PointRecord]) {
    for pair in &mut states.pairs {
        let mut timeline: Vec<(f64, Option<usize>)> = Vec::new();
        for q in points.iter().flat_map(|p| &p.processes) {
            let Some(f) = Fingerprint::of(&q.extra).filter(|f| f.pair == pair.cpus) else { continue };
            let state = process_state(pair, &f);
            match state {
                Some(s) => pair.states[s].processes += 1,
                None => pair.changed_processes += 1,
            }
            if let Some(t) = q.started_s {
                timeline.push((t, state));
            }
        }
        let with_state: usize = pair.states.iter().map(|s| s.processes).sum();
        for s in &mut pair.states {
            s.process_share = if with_state > 0 { s.processes as f64 / with_state as f64 } else { 0.0 };
        }
        timeline.sort_by(|a, b| a.0.total_cmp(&b.0));
        pair.timeline = spans(&timeline);
    }
}

/// Consecutive processes in one state as spans; a process without a state neither extends nor breaks one.
fn spans(timeline: &[(f64, Option<usize>)]) -> Vec<StateSpan> {
    let mut spans: Vec<StateSpan> = Vec::new();
    for &(t, state) in timeline {
        let Some(state) = state else { continue };
        match spans.last_mut() {
            Some(last) if last.state == state => {
                last.to_s = t;
                last.processes += 1;
            }
            _ => spans.push(StateSpan { from_s: t, to_s: t, state, processes: 1 }),
        }
    }
    spans
}

/// Orders each pair's states most common first and renumbers every process's state to match.
fn order_states(states: &mut HostStates, points: &mut [&mut PointRecord]) {
    let mut renumber: BTreeMap<[usize; 2], Vec<usize>> = BTreeMap::new();
    for pair in &mut states.pairs {
        let mut order: Vec<usize> = (0..pair.states.len()).collect();
        order.sort_by(|&a, &b| {
            let (sa, sb) = (&pair.states[a], &pair.states[b]);
            sb.processes.cmp(&sa.processes).then(sb.fingerprints.cmp(&sa.fingerprints)).then(a.cmp(&b))
        });
        let mut new_of_old = vec![0; order.len()];
        for (new, &old) in order.iter().enumerate() {
            new_of_old[old] = new;
        }
        pair.states = order.iter().map(|&old| pair.states[old].clone()).collect();
        for span in &mut pair.timeline {
            span.state = new_of_old[span.state];
        }
        renumber.insert(pair.cpus, new_of_old);
    }
    for q in points.iter_mut().flat_map(|p| p.processes.iter_mut()) {
        let pair = Fingerprint::of(&q.extra).map(|f| f.pair);
        if let (Some(s), Some(map)) = (q.state, pair.and_then(|p| renumber.get(&p))) {
            q.state = Some(map[s]);
        }
    }
}

/// The within-state variance of the processes' log medians over every point of the run, pooled (sum of
/// squares over degrees of freedom) after leaving out the 10% of points that vary most within a state: the
/// prior a point's own few processes are moderated towards. `None` where no point has two processes in one
/// state.
fn run_within_variance<'a>(points: impl Iterator<Item = &'a PointRecord>) -> Option<f64> {
    let mut per_point: Vec<(f64, f64)> =
        points.filter_map(|p| within(&log_groups(p)?)).filter(|(_, df)| *df > 0.0).collect();
    if per_point.is_empty() {
        return None;
    }
    per_point.sort_by(|a, b| (a.0 / a.1).total_cmp(&(b.0 / b.1)));
    let keep = per_point.len() - per_point.len() / 10;
    let (ss, df) = per_point[..keep].iter().fold((0.0, 0.0), |(s, d), (ss, df)| (s + ss, d + df));
    (df > 0.0).then(|| ss / df)
}

/// The point's processes' log medians grouped by state (state → values); `None` when a process with a state
/// has a median that is not positive (a time inside the control's scatter has no logarithm).
fn log_groups(point: &PointRecord) -> Option<BTreeMap<usize, Vec<f64>>> {
    let mut groups: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
    for q in &point.processes {
        if let Some(s) = q.state {
            if !(q.median_ns > 0.0 && q.median_ns.is_finite()) {
                return None;
            }
            groups.entry(s).or_default().push(q.median_ns.ln());
        }
    }
    Some(groups)
}

/// Within-group sum of squares and its degrees of freedom.
fn within(groups: &BTreeMap<usize, Vec<f64>>) -> Option<(f64, f64)> {
    let mut ss = 0.0;
    let mut df = 0.0;
    for values in groups.values() {
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        ss += values.iter().map(|v| (v - mean).powi(2)).sum::<f64>();
        df += (values.len() - 1) as f64;
    }
    (!groups.is_empty()).then_some((ss, df))
}

/// The point's processes by state where they met two or more states: each state's estimate and the
/// test's p-value (its flag is set over the run, [`control_fdr`]). `None` with fewer than two states.
fn by_state(
    point: &PointRecord,
    states: &HostStates,
    prior: Option<f64>,
    cycle_ns: Option<f64>,
) -> Option<PointByState> {
    let f = point.processes.iter().find_map(|q| Fingerprint::of(&q.extra))?;
    let pair = states.pair(f.pair)?;
    let mut members: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, q) in point.processes.iter().enumerate() {
        if let Some(s) = q.state {
            members.entry(s).or_default().push(i);
        }
    }
    if members.len() < 2 {
        return None;
    }
    let with_state: usize = members.values().map(Vec::len).sum();
    let batches = point.process_batches();
    let mut estimates: Vec<StateEstimate> = members
        .iter()
        .filter_map(|(&state, idx)| {
            let (median, ci_low, ci_high) = estimate(&idx.iter().map(|&i| batches[i].to_vec()).collect::<Vec<_>>())?;
            Some(StateEstimate {
                state,
                rtt_ns: pair.state_rtt_ns(state)?,
                processes: idx.len(),
                share: idx.len() as f64 / with_state as f64,
                median,
                ci_low,
                ci_high,
            })
        })
        .collect();
    // Most processes first; between equals, the state most common over the run.
    estimates.sort_by(|a, b| b.processes.cmp(&a.processes).then(a.state.cmp(&b.state)));
    Some(PointByState {
        cpus: f.pair,
        own_pair: own_pair(&point.spec) == Some(f.pair),
        states: estimates,
        without_state: point.processes.len() - with_state,
        p_value: testable(point, cycle_ns).then(|| log_groups(point).and_then(|g| f_test(&g, prior))).flatten(),
        differs: false,
    })
}

/// Whether the point's processes' times can be compared between states as ratios: every process's median at
/// least one cycle (`cycle_ns`, the run's fastest reference-loop iteration). A time below a cycle is no cost
/// the hardware can have, and between two such times the ratio is noise (`timer.stolen` at 0 Hz read
/// 0.3 and 0.1 ns). The point's own `<res` flag is no guide here: it judges the interval over every process,
/// which a second host state widens until it reaches zero — the very case this analysis is for.
fn testable(point: &PointRecord, cycle_ns: Option<f64>) -> bool {
    let floor = cycle_ns.unwrap_or(0.0);
    point.processes.iter().all(|q| q.median_ns > floor)
}

/// The estimate and 95% CI over some processes' batches: two-level over two or more, the one process's own
/// summary otherwise.
fn estimate(processes: &[Vec<f64>]) -> Option<(f64, f64, f64)> {
    if let Some(t) = TwoLevel::of(processes) {
        return Some((t.estimate, t.ci_low, t.ci_high));
    }
    let s = Summary::of(processes.first()?)?;
    Some((s.median, s.ci_low, s.ci_high))
}

/// The p-value of equal means between the groups: F = (between-group mean square) / (moderated
/// within-group variance), with k − 1 and (own df + [`PRIOR_DF`]) degrees of freedom. Without a prior the
/// point's own variance alone, and no test without degrees of freedom.
fn f_test(groups: &BTreeMap<usize, Vec<f64>>, prior: Option<f64>) -> Option<f64> {
    let k = groups.len();
    if k < 2 {
        return None;
    }
    let (ss, df) = within(groups)?;
    let (variance, df2) = match prior {
        Some(s0) => ((PRIOR_DF * s0 + ss) / (PRIOR_DF + df), PRIOR_DF + df),
        None if df > 0.0 => (ss / df, df),
        None => return None,
    };
    let n: usize = groups.values().map(Vec::len).sum();
    let grand = groups.values().flatten().sum::<f64>() / n as f64;
    let between: f64 =
        groups.values().map(|v| v.len() as f64 * (v.iter().sum::<f64>() / v.len() as f64 - grand).powi(2)).sum::<f64>()
            / (k - 1) as f64;
    if variance <= 0.0 {
        return Some(if between > 0.0 { 0.0 } else { 1.0 });
    }
    let f = FisherSnedecor::new((k - 1) as f64, df2).ok()?;
    Some(f.sf(between / variance))
}

/// Sets `differs` where the point's p-value survives Benjamini–Hochberg at [`FDR`] among the tested points.
fn control_fdr(points: &mut [&mut PointRecord]) {
    let tested: Vec<(usize, f64)> = points
        .iter()
        .enumerate()
        .filter_map(|(i, p)| Some((i, p.by_state.as_ref()?.p_value?)))
        .filter(|(_, p)| p.is_finite())
        .collect();
    let p: Vec<f64> = tested.iter().map(|(_, p)| *p).collect();
    for (&(i, _), q) in tested.iter().zip(adjust(&p, Procedure::BenjaminiHochberg)) {
        if let Some(b) = points[i].by_state.as_mut() {
            b.differs = q <= FDR;
        }
    }
}

/// The point's headline: its most common state's estimate where its time differs between states (the
/// `host-state` flag), its two-level estimate over every process otherwise; `noisy` judged on it, and a
/// flagged point's `<res` too (the merge judged the interval over every state, which may reach zero where
/// no state's does).
fn headline(point: &mut PointRecord, noisy_fraction: f64, cycle_ns: Option<f64>) {
    let state = point.by_state.as_ref().filter(|b| b.differs).and_then(|b| b.states.first().cloned());
    point.host_state = state.is_some();
    match (state, &point.two_level) {
        (Some(s), _) => {
            point.summary.median = s.median;
            point.summary.ci_low = s.ci_low;
            point.summary.ci_high = s.ci_high;
        }
        (None, Some(t)) => {
            point.summary.median = t.estimate;
            point.summary.ci_low = t.ci_low;
            point.summary.ci_high = t.ci_high;
        }
        (None, None) => return,
    }
    // The headline's interval decides whether it reaches the resolution (an older record's linear interval
    // reached below zero on points far above it).
    point.below_resolution_why = crate::merge::below_floor(point, cycle_ns);
    point.below_resolution = point.below_resolution_why.is_some();
    point.noisy = point.summary.is_noisy(noisy_fraction);
}

#[cfg(test)]
mod tests;
