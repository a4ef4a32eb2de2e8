//! The "choose" tables the analysis derives into the record (docs/METHOD.md
//! §12a): for one primitive at one setting (placement, threads, payload, …), every
//! implementation measured, ranked by median, with the fastest marked and the ones whose difference from it
//! is not significant marked as tied with it. `overhead_analysis::choose` fills them; renderers only format
//! them (docs/METHOD.md "Choosing an implementation").

use serde::{Deserialize, Serialize};

use super::{Metric, RatioCi, SkipKind};

/// One choice: the implementations of one primitive at one setting, fastest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChoiceTable {
    /// The experiment whose points compete (`sync.mutex`).
    pub experiment: String,
    /// The parameter that names the implementation in this experiment's points (`impl`, `lock`).
    pub implementation_key: String,
    /// The setting every candidate shares: the points' parameters without the implementation key, in the
    /// experiment's order (`[("threads", "2")]`, `[("placement", "same_cpu")]`); empty when there are none.
    pub setting: Vec<(String, String)>,
    /// What one measured operation is, shared by the candidates (their points' metric); times are ns per
    /// such operation.
    pub metric: Metric,
    /// The candidates, lowest median first; at least two.
    pub candidates: Vec<Candidate>,
    /// Candidates of this setting that have no result (skipped, failed, timed out), with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_measured: Vec<NotMeasured>,
}

impl ChoiceTable {
    /// The setting as text, `key:value` joined by spaces (`threads:2`), or `""`.
    pub fn setting_text(&self) -> String {
        self.setting.iter().map(|(k, v)| format!("{k}:{v}")).collect::<Vec<_>>().join(" ")
    }

    /// The candidates marked best or tied with the best: "the best group".
    pub fn best_group(&self) -> impl Iterator<Item = &Candidate> {
        self.candidates.iter().filter(|c| c.verdict.in_best_group())
    }
}

/// One implementation of a [`ChoiceTable`]: a runtime and, where the experiment's points name one, the
/// implementation on it. Candidates of different runtimes compete in one table (crossbeam on kernel
/// threads against async-channel on tokio against Go's channels).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// The runtime under test (`os`, `tokio`, `go`).
    pub runtime: overhead_schema::runtimes::RuntimeId,
    /// The implementation key's value (`parking_lot`, `hw`); `None` for a point that names none (the
    /// runtime's own primitive, e.g. a message on `fiber-asm`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implementation: Option<String>,
    /// The runtime's flavor (`current_thread`), for a runtime that has several (its points' `flavor:`);
    /// `None` otherwise, and in records written before flavors were named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flavor: Option<String>,
    /// The point's name in the record (its row in the table of every point).
    pub point: String,
    /// The point's median, ns per operation.
    pub median_ns: f64,
    /// Its 95% CI, ns.
    pub ci_low_ns: f64,
    /// Its 95% CI, ns.
    pub ci_high_ns: f64,
    /// This candidate's median over the best's, with the conservative interval built from both 95% CIs
    /// (`overhead_analysis::runtime_comparisons::ratio_with_ci`), or — when it is narrower — the paired one
    /// from the two points' processes of the same rounds (`paired_rounds`); `None` for the best itself, and
    /// when the interval has no upper end (the best's CI reaches zero) or is not a number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<RatioCi>,
    /// When `ratio` is the paired one: how many rounds measured both points, each pair's log ratio of the
    /// process medians, its interval Student's t over the pairs (docs/METHOD.md §12a, §17). `None`: the
    /// conservative interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paired_rounds: Option<usize>,
    /// When the interval has no upper end (`ratio` is `None` because the best's CI reaches zero), its low
    /// end (this CI's low end over the best's high end): the ratio is at least this, and it alone still
    /// decides whether the interval includes 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_low: Option<f64>,
    /// Best, tied with the best, slower, or undecided.
    pub verdict: Verdict,
    /// The point's flags, shown beside the verdict so that a flagged candidate is never silently best or
    /// tied.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<PointFlag>,
}

impl Candidate {
    /// `runtime / implementation`, or the runtime alone when the point names no implementation; a flavor
    /// follows its runtime: `tokio (current_thread) / tokio_mpsc`.
    pub fn label(&self) -> String {
        let runtime = overhead_schema::runtimes::runtime_label(&self.runtime, self.flavor.as_deref());
        match &self.implementation {
            Some(i) => format!("{runtime} / {i}"),
            None => runtime,
        }
    }
}

/// Where a candidate stands against the fastest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The lowest median of its table.
    Best,
    /// Not significantly slower than the best: the ratio's 95% interval includes 1 (its low end ≤ 1).
    Tied,
    /// Significantly slower than the best: the whole ratio interval lies above 1.
    Slower,
    /// The ratio interval has no low end (the best's whole CI lies at or below zero, or a bound is not a
    /// number), so neither tied nor slower can be said.
    Undecided,
}

impl Verdict {
    /// The best and those tied with it.
    pub fn in_best_group(self) -> bool {
        matches!(self, Verdict::Best | Verdict::Tied)
    }
}

/// A flag of a point's result (docs/METHOD.md §3–5), as the tables print it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PointFlag {
    /// CI half-width over the noisy threshold.
    #[serde(rename = "noisy")]
    Noisy,
    /// The processes disagree more than their batches do.
    #[serde(rename = "unstable")]
    Unstable,
    /// No cost the hardware can have.
    #[serde(rename = "<res")]
    BelowResolution,
    /// Measured while the machine ran slow.
    #[serde(rename = "slow")]
    Slow,
}

impl PointFlag {
    /// The flag as the tables print it: `noisy`, `unstable`, `<res`, `slow`.
    pub fn name(self) -> &'static str {
        match self {
            PointFlag::Noisy => "noisy",
            PointFlag::Unstable => "unstable",
            PointFlag::BelowResolution => "<res",
            PointFlag::Slow => "slow",
        }
    }

    /// The flags of `point`, in the tables' order.
    pub fn of(point: &super::PointRecord) -> Vec<PointFlag> {
        [
            (point.shown_noisy(), PointFlag::Noisy),
            (point.shown_unstable(), PointFlag::Unstable),
            (point.below_resolution, PointFlag::BelowResolution),
            (point.slow, PointFlag::Slow),
        ]
        .into_iter()
        .filter_map(|(set, flag)| set.then_some(flag))
        .collect()
    }
}

/// A candidate of a choice table's setting without a result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotMeasured {
    /// The runtime.
    pub runtime: overhead_schema::runtimes::RuntimeId,
    /// The implementation, when the skipped cell names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implementation: Option<String>,
    /// Skipped before running, failed, or timed out.
    pub kind: SkipKind,
    /// Why, as the skipped cell says it.
    pub reason: String,
}

impl NotMeasured {
    /// `runtime / implementation`, or the runtime alone.
    pub fn label(&self) -> String {
        match &self.implementation {
            Some(i) => format!("{} / {i}", self.runtime),
            None => self.runtime.to_string(),
        }
    }
}
