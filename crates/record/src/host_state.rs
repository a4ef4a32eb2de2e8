//! The host's states over a run (docs/METHOD.md §19): where the hypervisor put the measured CPUs, as each
//! probe process's *fingerprint* (a cache line's round trip between two CPUs, `harness::host_pair`) read it
//! just before and just after its measurement; the run's states per CPU pair; and each point's estimate per
//! state where its time depends on the state.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Key of a process's `extra` value: the fingerprint's round trip just before the measurement (ns).
pub const HOST_RTT_BEFORE: &str = "host_rtt_ns_before";
/// Key of a process's `extra` value: the fingerprint's round trip just after the measurement (ns).
pub const HOST_RTT_AFTER: &str = "host_rtt_ns_after";
/// Key of a process's `extra` value: the fingerprinted pair's lower CPU.
pub const HOST_PAIR_A: &str = "host_pair_cpu_a";
/// Key of a process's `extra` value: the fingerprinted pair's higher CPU.
pub const HOST_PAIR_B: &str = "host_pair_cpu_b";
/// Key of a process's `extra` value: what its two fingerprints cost in wall time together (ns).
pub const HOST_RTT_COST: &str = "host_rtt_cost_ns";

/// The fingerprint keys, which say nothing about the point itself: the exports and the point's own
/// extra-value tables leave them out.
pub const HOST_KEYS: [&str; 5] = [HOST_RTT_BEFORE, HOST_RTT_AFTER, HOST_PAIR_A, HOST_PAIR_B, HOST_RTT_COST];

/// The first two distinct CPUs of `cpus`, in their order: the pair a point's fingerprint times (its thread 0's
/// CPU and the next other one); `None` with fewer than two distinct CPUs.
pub fn first_two_cpus(cpus: &[usize]) -> Option<[usize; 2]> {
    let first = *cpus.first()?;
    let second = *cpus.iter().find(|&&c| c != first)?;
    Some([first, second])
}

/// A point's own pair as the record keys it, lower CPU first (see [`first_two_cpus`]).
pub fn own_pair(spec: &super::PointSpec) -> Option<[usize; 2]> {
    first_two_cpus(&spec.cpus).map(|[a, b]| [a.min(b), a.max(b)])
}

/// A process's fingerprints, read from its `extra` values: the pair and the round trips it read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fingerprint {
    /// The CPU pair, lower first.
    pub pair: [usize; 2],
    /// Round trip just before the measurement (ns), if taken.
    pub before_ns: Option<f64>,
    /// Round trip just after (ns), if taken.
    pub after_ns: Option<f64>,
}

impl Fingerprint {
    /// The fingerprints in a process's `extra` values; `None` in processes without (older builds, a
    /// machine with one CPU, a fingerprint abandoned).
    pub fn of(extra: &BTreeMap<String, f64>) -> Option<Fingerprint> {
        let cpu = |key: &str| extra.get(key).filter(|v| v.is_finite() && **v >= 0.0).map(|&v| v as usize);
        let rtt = |key: &str| extra.get(key).copied().filter(|v| v.is_finite() && *v > 0.0);
        let (a, b) = (cpu(HOST_PAIR_A)?, cpu(HOST_PAIR_B)?);
        let (before_ns, after_ns) = (rtt(HOST_RTT_BEFORE), rtt(HOST_RTT_AFTER));
        (before_ns.is_some() || after_ns.is_some()).then_some(Fingerprint {
            pair: [a.min(b), a.max(b)],
            before_ns,
            after_ns,
        })
    }

    /// Both round trips that were taken.
    pub fn readings(&self) -> impl Iterator<Item = f64> {
        self.before_ns.into_iter().chain(self.after_ns)
    }
}

/// What the host did over the run: the states of each fingerprinted CPU pair, and what the fingerprints
/// cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostStates {
    /// Each fingerprinted pair, lowest CPUs first.
    pub pairs: Vec<PairStates>,
    /// The fingerprints' wall time over every process of the run (s).
    pub fingerprint_s: f64,
    /// Every process's wall time together, start-up included (s): what the fingerprints' share is of.
    pub process_s: f64,
}

impl HostStates {
    /// The states of `pair` (lower CPU first), if it was fingerprinted.
    pub fn pair(&self, pair: [usize; 2]) -> Option<&PairStates> {
        self.pairs.iter().find(|p| p.cpus == pair)
    }

    /// Whether any pair met more than one state.
    pub fn moved(&self) -> bool {
        self.pairs.iter().any(|p| p.states.len() > 1)
    }

    /// The fingerprints' share of the processes' wall time (0.012 = 1.2%).
    pub fn cost_share(&self) -> f64 {
        if self.process_s > 0.0 {
            self.fingerprint_s / self.process_s
        } else {
            0.0
        }
    }

    /// What the host did, for a run's header after "host states: ": "CPUs 0↔1: 34.1 ns (61% of processes),
    /// 118 ns (31%), 18.2 ns (8%), 4 changed during a process; fingerprints took 1.1% of the processes' time".
    pub fn summary_line(&self, format_ns: impl Fn(f64) -> String) -> String {
        let pairs: Vec<String> = self.pairs.iter().map(|p| p.describe(&format_ns)).collect();
        format!(
            "{}; fingerprints (a cache line's round trip at each process's start and end) took {:.1}% of the \
             processes' time",
            pairs.join("; "),
            self.cost_share() * 100.0
        )
    }
}

/// The states one CPU pair met over the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairStates {
    /// The pair, lower CPU first.
    pub cpus: [usize; 2],
    /// Its states, most common first (state `i` of the pair is `states[i]`).
    pub states: Vec<HostState>,
    /// Fingerprints taken on the pair.
    pub fingerprints: usize,
    /// Processes whose two fingerprints fell in different states: the host moved the CPUs during the
    /// measurement, and the process belongs to no state.
    pub changed_processes: usize,
    /// Which state held when, in time order: consecutive processes in one state make one span.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub timeline: Vec<StateSpan>,
    /// The fingerprint's own repeatability on this pair: the log-scale standard deviation of the difference
    /// between a process's two round trips (robust: 1.4826 × the median absolute difference). States stand
    /// several of these apart (docs/METHOD.md §19); `None` in older records and with too few processes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeatability_log_sd: Option<f64>,
}

impl PairStates {
    /// "CPUs 0↔1: 34.1 ns (61% of processes), 118 ns (31%), 18.2 ns (8%), 3 changed during a process".
    pub fn describe(&self, format_ns: impl Fn(f64) -> String) -> String {
        let states: Vec<String> = self
            .states
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let of = if i == 0 { " of processes" } else { "" };
                format!("{} ({:.0}%{of})", format_ns(s.rtt_ns), s.process_share * 100.0)
            })
            .collect();
        let changed = match self.changed_processes {
            0 => String::new(),
            n => format!(", {n} changed during a process"),
        };
        let one = if self.states.len() == 1 { " (one state)" } else { "" };
        format!("CPUs {}↔{}: {}{one}{changed}", self.cpus[0], self.cpus[1], states.join(", "))
    }

    /// "34.1 ns" style name of state `i`: its round trip.
    pub fn state_rtt_ns(&self, i: usize) -> Option<f64> {
        self.states.get(i).map(|s| s.rtt_ns)
    }
}

/// One state of a pair: a level of its fingerprints' round trip.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostState {
    /// Median round trip of the state's fingerprints (ns): the state's name.
    pub rtt_ns: f64,
    /// Lowest and highest fingerprint in the state (ns).
    pub low_ns: f64,
    pub high_ns: f64,
    /// Fingerprints in the state.
    pub fingerprints: usize,
    /// Processes whose fingerprints were all in this state.
    pub processes: usize,
    /// Their share of the pair's processes that had a state (0–1).
    pub process_share: f64,
}

/// A stretch of the run over which consecutive processes on a pair met one state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StateSpan {
    /// Start of the span's first process and of its last, seconds after the run started.
    pub from_s: f64,
    pub to_s: f64,
    /// The state (index into the pair's `states`).
    pub state: usize,
    /// Processes in the span.
    pub processes: usize,
}

/// A point's time per host state, where its processes met more than one (docs/METHOD.md §19).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointByState {
    /// The pair whose fingerprints gave the processes their state, lower CPU first: the point's own first two
    /// CPUs, or for a point on one CPU the run's first two.
    pub cpus: [usize; 2],
    /// Whether the pair is the point's own (a cross-core point) or the run's (a same-CPU point, which should
    /// not depend on it).
    pub own_pair: bool,
    /// Per state that holds a process, most processes first.
    pub states: Vec<StateEstimate>,
    /// Processes without a state: the host moved the CPUs during the measurement, or no fingerprint.
    pub without_state: usize,
    /// p-value of the test that the point's time is the same in every state (F test of the processes' log
    /// medians between states, the within-state variance moderated by the run's); absent where no test could
    /// be made (one process in all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_value: Option<f64>,
    /// Whether the time differs between states with the run's points controlled for (Benjamini–Hochberg at
    /// 5% over every tested point, as the sides are): then the point's headline is `states[0]` and its flag
    /// `host-state` is set.
    pub differs: bool,
}

/// A point's estimate over the processes of one host state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StateEstimate {
    /// The state (index into the pair's states in [`HostStates`]).
    pub state: usize,
    /// The state's round trip (ns), its name.
    pub rtt_ns: f64,
    /// Processes of the point in the state, and their share of the point's processes with a state.
    pub processes: usize,
    pub share: f64,
    /// The estimate and its 95% CI over those processes (ns): two-level with two or more processes, the one
    /// process's batches otherwise.
    pub median: f64,
    pub ci_low: f64,
    pub ci_high: f64,
}

/// Neighbouring host states differ by at least this ratio (`overhead_stats::levels`' 15%): two states'
/// round trips closer than this, in two runs, are one state.
pub const SAME_STATE_RATIO: f64 = 1.15;

/// Whether two states' round trips (ns) name one state: within [`SAME_STATE_RATIO`] of each other.
pub fn same_state(a_ns: f64, b_ns: f64) -> bool {
    a_ns > 0.0 && b_ns > 0.0 && a_ns.max(b_ns) / a_ns.min(b_ns) < SAME_STATE_RATIO
}

/// The host state a cross-core point's estimate stands for, as its round trip (ns): its headline state where
/// its time depends on the state (`host_state`), the one state all its processes met otherwise. `None` for a
/// point on one CPU (nothing in it crosses the pair), a point whose processes met several states without
/// depending on them, and records without fingerprints: then no comparison needs to match states.
pub fn estimate_state_rtt_ns(point: &super::PointRecord, states: &HostStates) -> Option<f64> {
    let own = own_pair(&point.spec)?;
    let pair = states.pair(own)?;
    if let Some(by) = &point.by_state {
        return by.differs.then(|| by.states.first().map(|s| s.rtt_ns)).flatten();
    }
    let mut met = point
        .processes
        .iter()
        .filter(|q| Fingerprint::of(&q.extra).is_some_and(|f| f.pair == own))
        .filter_map(|q| q.state);
    let state = met.next()?;
    met.all(|s| s == state).then(|| pair.state_rtt_ns(state)).flatten()
}

/// How a point's processes' batch series classify (docs/METHOD.md §19, "Regimes inside a process"): how
/// many were flat, changed regime and held the new one, or were still changing at their end; present where
/// at least one process had a series long enough to classify (`overhead_stats::changepoints::MIN_SERIES`
/// batches: `--full`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PointRegimes {
    /// Processes in each class.
    pub flat: usize,
    pub changed: usize,
    pub no_steady_state: usize,
}

impl PointRegimes {
    /// Whether its processes fall in more than one class.
    pub fn disagree(&self) -> bool {
        [self.flat, self.changed, self.no_steady_state].iter().filter(|&&n| n > 0).count() > 1
    }

    /// Whether any process changed regime or had none steady.
    pub fn any_change(&self) -> bool {
        self.changed + self.no_steady_state > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pair_is_the_first_two_distinct_cpus() {
        assert_eq!(first_two_cpus(&[3, 3, 5]), Some([3, 5]));
        assert_eq!(first_two_cpus(&[5, 1]), Some([5, 1]));
        assert_eq!(first_two_cpus(&[2, 2]), None);
        assert_eq!(first_two_cpus(&[]), None);
    }
}
