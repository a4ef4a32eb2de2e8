//! One experiment point: what was asked (spec), what came back (record), or why nothing did (skipped).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::detail::Details;
use overhead_machine::Placement;
pub use overhead_schema::runtimes::RuntimeId;
use overhead_stats::{ProcessMode, Summary, TwoLevel};

/// What a reported time means (docs/METHOD.md §11). serde: `"per_op"`, `"rtt"`, `"one_way"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Time for one operation (a call, a read, a barrier episode, a spawn + join).
    PerOp,
    /// Round trip: there and back again.
    Rtt,
    /// One way, half a measured round trip only where the path is symmetric.
    OneWay,
}

impl Metric {
    /// What one reported time covers, as an axis or a heading says it: `per operation`, `per round trip`,
    /// `one way`.
    pub fn time_per(self) -> &'static str {
        match self {
            Metric::PerOp => "per operation",
            Metric::Rtt => "per round trip",
            Metric::OneWay => "one way",
        }
    }
}

/// A point to measure: experiment, runtime, parameters in their fixed order, and the CPUs it uses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointSpec {
    /// Public experiment ID, e.g. `sync.faa`.
    pub experiment: String,
    /// The runtime that measures it (its public name; `RuntimeUnderTest::name`).
    pub runtime: RuntimeId,
    /// Parameters in the experiment's fixed key order, e.g. `[("variable","shared"),("threads","2")]`.
    pub params: Vec<(String, String)>,
    /// Logical CPUs the point's threads are pinned to, thread 0 first; for a point whose threads run free
    /// ([`PointSpec::threads_free`]), the CPUs they may all run on.
    pub cpus: Vec<usize>,
    /// Where its parties run: the `placement:` parameter of its name where it has one (parsed once, by the
    /// plan and by the record reader: [`PointSpec::settle_placement`]), else how its first two CPUs relate
    /// (two-party points without the parameter); `None` for a point on one CPU.
    pub placement: Option<Placement>,
    /// For a point whose processes are MPI ranks across hosts (`--hosts`): rank `i` runs on
    /// `hosts[i]`, pinned to `cpus[i]` there. Empty (and absent from the record) for a point on this
    /// machine alone, whose ranks, if any, all run here.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
}

impl PointSpec {
    /// Google Benchmark-style name: `experiment/runtime:R/key:value/...`.
    pub fn name(&self) -> String {
        gbench_name(&self.experiment, &self.runtime, &self.params)
    }

    /// The runtime as a table names it: `tokio (current_thread)` for a flavor of a runtime that has several
    /// (its `flavor:` parameter), else the runtime's name.
    pub fn runtime_label(&self) -> String {
        overhead_schema::runtimes::runtime_label(&self.runtime, self.param(overhead_schema::runtimes::FLAVOR_KEY))
    }

    /// The value of parameter `key`, if the point has it.
    pub fn param(&self, key: &str) -> Option<&str> {
        self.params.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Whether the point's threads run free on [`PointSpec::cpus`] (the `placement:free` of
    /// `msg.throughput`, [`Placement::Free`]) rather than pinned one per CPU: then no thread has a CPU of its
    /// own to report.
    pub fn threads_free(&self) -> bool {
        self.placement == Some(Placement::Free)
    }

    /// Sets [`PointSpec::placement`] from the `placement:` parameter when the point's name has one: the one
    /// place the parameter is parsed. A value that names no placement leaves the field as it is (an
    /// experiment's own decoding then refuses it by name).
    pub fn settle_placement(&mut self) {
        if let Some(placement) = self.param(overhead_schema::placement::PLACEMENT_KEY).and_then(Placement::named) {
            self.placement = Some(placement);
        }
    }

    /// The parameters as the experiment's typed struct ([`super::params::decode`]).
    ///
    /// Errors: a parameter is missing or its value is not what `P` takes; the message names the point.
    pub fn params_as<P: serde::de::DeserializeOwned>(&self) -> anyhow::Result<P> {
        super::params::decode(self)
    }

    /// Whether this is a point of the experiment with ID `id`.
    pub fn is(&self, id: &str) -> bool {
        self.experiment == id
    }

    /// The experiment's family, the part of the ID before the dot (`sync` for `sync.faa`).
    pub fn family(&self) -> &str {
        self.experiment.split('.').next().unwrap_or(&self.experiment)
    }
}

/// A Google Benchmark-style name, `experiment/runtime:R/key:value/...` (docs/ARCHITECTURE.md "Experiments"), for a
/// point or a series of points.
pub fn gbench_name(experiment: &str, runtime: &str, params: &[(String, String)]) -> String {
    let mut name = format!("{experiment}/runtime:{runtime}");
    for (k, v) in params {
        name.push_str(&format!("/{k}:{v}"));
    }
    name
}

/// One thread's result in a team measurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadResult {
    pub cpu: usize,
    /// Summary of this thread's samples, ns per operation.
    pub summary: Summary,
}

/// A measured point: every process that measured it, summarised over processes (docs/METHOD.md).
///
/// A probe process hands back one of these for its own batches alone (`processes` empty, `summary` over its
/// batches); the orchestrator merges a point's processes into the record's (`analysis::merge_processes`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointRecord {
    pub name: String,
    pub spec: PointSpec,
    pub metric: Metric,
    /// Unit of every time in this record: always `"ns"`.
    pub unit: String,
    /// Threads that ran the operation (1 unless a team).
    pub threads: usize,
    /// Operations per batch (of the representative process; see `processes` for each one's).
    pub batch_ops: u64,
    /// Summary of the control-subtracted samples (ns per operation). Once two or more processes measured the
    /// point, `median`, `ci_low`, `ci_high` and `ci_level` are the two-level estimate and its interval
    /// (`two_level`); the other fields describe every batch of every process together.
    pub summary: Summary,
    /// Summary of the control alone (ns per operation), lmbench's "ovr", over every process's batches.
    pub control: Summary,
    /// Raw samples, ns per operation, one per kept batch, process after process in the order of `processes`.
    pub samples_ns: Vec<f64>,
    pub control_ns: Vec<f64>,
    /// The processes that measured the point, one per round, in order; their batches are consecutive runs of
    /// `samples_ns`. Empty in a probe's own answer and in records older than rounds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub processes: Vec<ProcessRecord>,
    /// The estimate over processes with the variance at each level; absent with fewer than two processes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub two_level: Option<TwoLevel>,
    /// When the processes' medians fall in distinct modes (`overhead_stats::process_modes`: the host placed
    /// their vCPUs differently, say), each mode's process count, median and range, lowest first; the estimate
    /// then lies between them and describes none. Empty otherwise, and in older records.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modes: Vec<ProcessMode>,
    /// Per-thread results for teams (of the representative process); empty otherwise.
    pub per_thread: Vec<ThreadResult>,
    /// CI half-width above the harness's noisy fraction of the median.
    pub noisy: bool,
    /// The processes disagree more than their batches do: the between-process variance dominates
    /// ([`TwoLevel::is_unstable`]).
    #[serde(default)]
    pub unstable: bool,
    /// `noisy` and `unstable` as the report shows them: judged against the run's typical spread in the
    /// point's family (`RunRecord::host_spread`, docs/METHOD.md §21). Absent where they are judged
    /// absolutely: older records, and families with too few points for a typical spread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub for_host: Option<super::HostRelativeFlags>,
    /// The reference loop timed around the point ran at least 25% slower than the run's usual speed
    /// (`overhead_analysis::analyze`; docs/METHOD.md §1).
    #[serde(default)]
    pub slow: bool,
    /// The point's time differs between the host's states (docs/METHOD.md §19): `by_state` holds each
    /// state's estimate, and `summary` the state most processes met.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub host_state: bool,
    /// The point's processes grouped by host state, where they met more than one (analysis); absent
    /// otherwise and in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by_state: Option<super::PointByState>,
    /// Its processes' batch series by class (flat, changed, no steady state; analysis), where any was long
    /// enough to classify; absent otherwise and in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regimes: Option<super::PointRegimes>,
    /// The value is not a cost the hardware can have, or cannot be told from zero: the CI reaches down to
    /// the timing resolution, the estimate is below one cycle, or it lies inside the control's own scatter.
    pub below_resolution: bool,
    /// Which of those, in words; absent when `below_resolution` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub below_resolution_why: Option<String>,
    /// Wall time of every probe process of the point together, start-up included (ms).
    #[serde(default)]
    pub wall_ms: f64,
    /// The resolution floor per operation at this batch size (ns).
    pub resolution_ns: f64,
    /// Free-form remarks from the experiment (e.g. a refused pinning).
    pub notes: Vec<String>,
    /// Extra numbers an experiment reports beside the main one, with the unit in the key
    /// (e.g. `resolution_ns`).
    pub extra: BTreeMap<String, f64>,
    /// What each operation cost the kernel and the hardware (context switches, faults, CPU time, the kernel's
    /// share…), each over the point's processes with its interval (docs/METHOD.md §18); empty where nothing
    /// was counted, and in older records.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counts: Vec<super::CountEstimate>,
    /// Matrices, a latency distribution or labelled tables, for experiments whose result is more than
    /// one time (absent from the JSON when empty).
    #[serde(default, skip_serializing_if = "Details::is_empty")]
    pub details: Details,
}

impl PointRecord {
    /// A point as one process measured it, before any merge: named after `spec`, times in ns, its summary
    /// and its control's; one thread, no batch size, samples or resolution until the caller sets them (a
    /// struct update: `PointRecord { threads, batch_ops, samples_ns, ..PointRecord::unmerged(…) }`); no
    /// processes, two-level estimate, modes, regimes or host states (the merge's); no flags, notes, extra,
    /// counts or details.
    pub fn unmerged(spec: PointSpec, metric: Metric, summary: Summary, control: Summary) -> PointRecord {
        PointRecord {
            name: spec.name(),
            spec,
            metric,
            unit: "ns".into(),
            threads: 1,
            batch_ops: 0,
            summary,
            control,
            samples_ns: Vec::new(),
            control_ns: Vec::new(),
            processes: Vec::new(),
            two_level: None,
            modes: Vec::new(),
            per_thread: Vec::new(),
            noisy: false,
            unstable: false,
            for_host: None,
            slow: false,
            host_state: false,
            by_state: None,
            regimes: None,
            below_resolution: false,
            below_resolution_why: None,
            wall_ms: 0.0,
            resolution_ns: 0.0,
            notes: Vec::new(),
            extra: BTreeMap::new(),
            counts: Vec::new(),
            details: Details::default(),
        }
    }

    /// Whether the report marks the point `noisy`: judged against this host's typical spread where the
    /// analysis judged it so ([`PointRecord::for_host`]), else the absolute flag.
    pub fn shown_noisy(&self) -> bool {
        self.for_host.map_or(self.noisy, |f| f.noisy)
    }

    /// Whether the report marks the point `unstable`, as [`PointRecord::shown_noisy`].
    pub fn shown_unstable(&self) -> bool {
        self.for_host.map_or(self.unstable, |f| f.unstable)
    }

    /// Each process's batches (ns per operation), in the order of `processes`: consecutive runs of
    /// `samples_ns`, `batches` long each (cut short where a record holds fewer samples).
    pub fn process_batches(&self) -> Vec<&[f64]> {
        let mut at = 0;
        self.processes
            .iter()
            .map(|q| {
                let end = (at + q.batches).min(self.samples_ns.len());
                let batches = &self.samples_ns[at.min(end)..end];
                at = end;
                batches
            })
            .collect()
    }

    /// The point's side numbers as its experiment's typed result ([`super::result::from_extra`]): how a
    /// report reads what the experiment wrote with [`super::Outcome::with_result`].
    ///
    /// Errors: a key the result requires is missing (a record of an older build, or of another experiment).
    pub fn result_as<T: serde::de::DeserializeOwned>(&self) -> anyhow::Result<T> {
        super::result::from_extra(&self.extra)
    }
}

/// One probe process of a point (docs/METHOD.md "Rounds").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProcessRecord {
    /// The round it ran in, from 1.
    pub round: usize,
    /// Operations per batch in this process.
    pub batch_ops: u64,
    /// How many batches it kept: the next this many entries of the point's `samples_ns`.
    pub batches: usize,
    /// Median of its batches (ns per operation): what the two-level estimate averages.
    pub median_ns: f64,
    /// Wall time of the process, start-up included (ms).
    pub wall_ms: f64,
    /// When the process started, seconds after the run started; absent in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_s: Option<f64>,
    /// The host state its fingerprints fell in (an index into its pair's states in the record's
    /// `host_states`; analysis); absent where it has none: no fingerprint, or the host moved the CPUs
    /// during its measurement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<usize>,
    /// The experiment's extra values as this process measured them (the point's `extra` holds their
    /// medians over processes).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, f64>,
}

/// Why a point has no result. serde: `"skipped"`, `"failed"`, `"timed_out"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipKind {
    /// It cannot run here (too few CPUs, runtime lacks the construct); decided before running.
    Skipped,
    /// The probe ran and failed (error, crash, bad output).
    Failed,
    /// The probe ran past its time limit and was killed.
    TimedOut,
}

/// A point without a result, kept so that nothing is silently dropped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkippedPoint {
    pub name: String,
    pub spec: PointSpec,
    pub kind: SkipKind,
    pub reason: String,
}

impl SkippedPoint {
    /// A point skipped before running, for `reason`.
    pub fn new(spec: PointSpec, kind: SkipKind, reason: impl Into<String>) -> SkippedPoint {
        SkippedPoint { name: spec.name(), spec, kind, reason: reason.into() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The named placement becomes the spec's, whatever the topology's relation of its CPUs said; a name
    /// without one, or with a value no placement has, leaves the field alone.
    #[test]
    fn the_named_placement_settles_into_the_field() {
        let mut across = crate::fixture::spec("mpi.pingpong", "mpi", &[("placement", "other_host")], &[0, 0]);
        across.placement = Some(Placement::SameCpu);
        across.settle_placement();
        assert_eq!(across.placement, Some(Placement::OtherHost));
        let mut free = crate::fixture::spec("msg.throughput", "os", &[("placement", "free")], &[0, 1]);
        free.placement = Some(Placement::OtherCore);
        free.settle_placement();
        assert!(free.threads_free());
        let mut unnamed = crate::fixture::spec("sync.faa", "os", &[("threads", "2")], &[0, 1]);
        unnamed.placement = Some(Placement::OtherCore);
        unnamed.settle_placement();
        assert_eq!(unnamed.placement, Some(Placement::OtherCore));
        let mut odd = crate::fixture::spec("msg.ipc", "os", &[("placement", "next_door")], &[0, 1]);
        odd.settle_placement();
        assert_eq!(odd.placement, None);
    }
}
