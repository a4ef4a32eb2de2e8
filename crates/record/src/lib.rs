//! The run record (docs/ARCHITECTURE.md "The run record"): Google Benchmark JSON outside, everything richer under
//! the top-level `"overhead"` key.
//!
//! [`RunRecord`] is the source of truth; the Google Benchmark `context` and `benchmarks` are derived from
//! it when the file is written ([`gbench`]), so the two can never disagree.

mod between_runs;
pub mod catalog;
mod choice;
mod comparison;
mod crosscheck;
mod detail;
mod fit;
#[cfg(any(test, feature = "testing"))]
pub mod fixture;
mod host_spread;
mod host_state;
mod hot_path;
/// A parameter enum's serde as its name (defined in `overhead_schema`, under the record).
pub use overhead_schema::param_enum;
/// serde, for the crates that name it through the record.
#[doc(hidden)]
pub use serde;
pub mod gbench;
mod io;
pub mod legacy;
mod machine_state;
mod op_counts;
mod outcome;
pub mod params;
mod point;
mod process_costs;
pub mod result;
mod round_policy;
mod round_rules;
mod run_summary;
mod sides;
mod speed;
mod summaries;

pub use between_runs::BetweenRuns;
pub use catalog::{Catalog, CatalogSnapshot, ExperimentAbout, OwnImpl, RecordOrder};
pub use choice::{Candidate, ChoiceTable, NotMeasured, PointFlag, Verdict};
pub use comparison::{CountFit, RatioCi, RuntimeComparison};
pub use crosscheck::{
    Crosscheck, CrosscheckPair, CrosscheckVerdict, MissingPeer, PairRound, PeerCase, PeerReading, PeerRecord,
};
pub use detail::{Details, Distribution, LabelledTable, Matrix};
pub use fit::{too_few_points_note, FitRecord, TOO_FEW_POINTS};
pub use host_spread::{FamilySpread, HostRelativeFlags, HostSpread};
pub use host_state::{
    estimate_state_rtt_ns, first_two_cpus, own_pair, same_state, Fingerprint, HostState, HostStates, PairStates,
    PointByState, PointRegimes, StateEstimate, StateSpan, HOST_KEYS, HOST_PAIR_A, HOST_PAIR_B, HOST_RTT_AFTER,
    HOST_RTT_BEFORE, HOST_RTT_COST, SAME_STATE_RATIO,
};
pub use hot_path::HotPathResult;
pub use io::{load, temp_file_in, write_atomic, RecordError};
pub use machine_state::{
    probe_cpu_keys, probe_cpu_other_share, CpuShare, MachineState, ACCOUNTING_TICK_S, MAX_SHARE_ERROR, OTHER_THRESHOLD,
    SHARED_POINT_THRESHOLD, STEAL_THRESHOLD,
};
pub use op_counts::{
    estimate_counts, per_op_key, CountEstimate, CPU_SYSTEM_KEY, CPU_USER_KEY, KERNEL_SHARE_KEY, MIN_WINDOW_SHARE,
    TICK_KEY, WINDOW_CPU_KEY,
};
pub use outcome::Outcome;
pub use point::{Metric, PointRecord, PointSpec, ProcessRecord, SkipKind, SkippedPoint, ThreadResult};
pub use process_costs::{ProcessCosts, RECENT_RUNS};
pub use round_policy::RoundPolicy;
pub use run_summary::{family_of, PointRunSummary, RunConfig, RunSummary};
pub use sides::{SideRatio, SideRecord, SideScope, SideSpec, Sides, SIDE_ORDER};
pub use speed::{RunSpeed, SpeedWindow};
pub use summaries::{load_summaries, Summaries};

use serde::{Deserialize, Serialize};

use overhead_clock::TimeSourceInfo;
use overhead_machine::MachineInfo;
use overhead_schema::{HarnessConfig, Mode};

/// Version of the `"overhead"` section's layout. Bump on any change that an older reader would misread.
/// 2: points are merged from several processes (`processes`, `two_level`, `unstable`, `wall_ms`).
pub const SCHEMA_VERSION: u32 = 2;

/// The tool that wrote a record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolInfo {
    pub name: String,
    pub version: String,
    /// `git describe`-style commit the binary was built from, when known at build time; `COMMIT-dirty.HASH` for a
    /// tree with uncommitted changes (HASH: git's hash of `git diff HEAD`, 12 hex digits; `-dirty` alone in
    /// older records).
    pub git_commit: Option<String>,
    /// The crates whose primitives this binary measures (runtimes, channels, locks) at the versions Cargo.lock
    /// resolved when it was built, by name; a crate locked at two versions lists both. Absent in older records.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub crates: Vec<CrateVersion>,
}

/// One crate under test and its version (from Cargo.lock at build time).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrateVersion {
    /// The crate's name on crates.io (`crossbeam-channel`).
    pub name: String,
    /// Its version (`0.5.17`).
    pub version: String,
}

impl CrateVersion {
    /// `name=version,name=version` (the form the binary's build script stamps from Cargo.lock) into crate
    /// versions; pairs without `=` are dropped.
    pub fn parse_list(pairs: &str) -> Vec<CrateVersion> {
        parse_crate_versions(pairs)
    }
}

/// `name=version,name=version` into crate versions; pairs without `=` are dropped.
fn parse_crate_versions(pairs: &str) -> Vec<CrateVersion> {
    pairs
        .split(',')
        .filter_map(|pair| pair.split_once('='))
        .map(|(name, version)| CrateVersion { name: name.into(), version: version.into() })
        .collect()
}

/// What the `overhead` binary was built from. Only the binary crate stamps it (its build script reads git and
/// Cargo.lock), so that a new commit relinks the binary and rebuilds none of the layers below it; the binary
/// hands it down to the orchestrator, which writes it into the record as [`ToolInfo`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildStamp {
    /// The binary's package name (`overhead`).
    pub name: &'static str,
    /// The binary's package version.
    pub version: &'static str,
    /// `git describe --always --abbrev=12`, `-dirty` when a tracked file differed; `None` outside a checkout.
    pub git_commit: Option<&'static str>,
    /// The crates under test as `name=version` pairs, comma-separated, from Cargo.lock.
    pub crate_versions: &'static str,
}

impl ToolInfo {
    /// The tool as its build stamped it.
    pub fn from_stamp(stamp: &BuildStamp) -> ToolInfo {
        ToolInfo {
            name: stamp.name.into(),
            version: stamp.version.into(),
            git_commit: stamp.git_commit.map(str::to_owned),
            crates: parse_crate_versions(stamp.crate_versions),
        }
    }
}

/// Everything one run measured, found and skipped. Serialised as the `"overhead"` key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub schema_version: u32,
    pub tool: ToolInfo,
    pub mode: Mode,
    /// The command line as typed (argv).
    pub command_line: Vec<String>,
    /// RFC 3339 UTC times.
    pub started_utc: String,
    pub finished_utc: Option<String>,
    /// True when the run was stopped (Ctrl-C) before its plan finished; the points kept are complete.
    pub interrupted: bool,
    pub time_source: TimeSourceInfo,
    pub harness: HarnessConfig,
    /// How many processes each point got at least and at most, and the run's time budget; absent in
    /// records older than rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<RoundPolicy>,
    pub machine: MachineInfo,
    /// Conditions that make numbers less trustworthy here (VM, frequency scaling, refused pinning).
    pub warnings: Vec<String>,
    /// How much the machine's speed varied during the run, when points ran slow (analysis, see
    /// `overhead_analysis::analyze`); absent when it held, and in records older than the analysis stage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_warning: Option<String>,
    /// The machine's speed over the run by the reference loop (analysis); absent in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<RunSpeed>,
    /// What else used the measured CPUs during the run; absent in older records and runs that could not
    /// read the kernel's accounting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_state: Option<MachineState>,
    /// Where the host put the measured CPUs over the run: each fingerprinted pair's states (analysis,
    /// docs/METHOD.md §19); absent in older records and where no process took a fingerprint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_states: Option<HostStates>,
    /// The run's typical spread per family, which the shown `noisy` and `unstable` flags are judged against
    /// (analysis, docs/METHOD.md §21); absent in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_spread: Option<HostSpread>,
    /// How far each point moves between runs on this machine, from the history when the run ended; absent
    /// when the history knew no repetition of this configuration (or was not used).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub between_runs: Option<BetweenRuns>,
    /// Points measured, in the order they ran.
    pub points: Vec<PointRecord>,
    /// Points that could not run here, or failed, with the reason.
    pub skipped: Vec<SkippedPoint>,
    /// Fits through series of points (Ben-Asher & Feitelson's `a + b·load`), derived from `points` after each point.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fits: Vec<FitRecord>,
    /// Souvatzis: each runtime against the reference on the switch-bound rows (derived by the analysis).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub comparisons: Vec<RuntimeComparison>,
    /// Kiszka 2006: hot-path time against its counts, least squares (derived by the analysis).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub count_fits: Vec<CountFit>,
    /// For each primitive and setting, its implementations ranked, the best group marked
    /// (derived by the analysis, `overhead_analysis::choose`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<ChoiceTable>,
    /// The sides of a run that measured its plan on two or more configurations (`--side`): what each was,
    /// the other sides' points, and each against the first (docs/METHOD.md §17). Absent in a run of one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sides: Option<Sides>,
    /// What `overhead crosscheck` ran beside the record's points: the peer tools, their readings and each
    /// pair's verdict (docs/METHOD.md §20). Absent from a record of `overhead run`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crosscheck: Option<Crosscheck>,
    /// What the registries answered when the record was last analysed: the experiments' order, summaries and
    /// sources, the runtimes' column order, each runtime's own channel (derived by the analysis). The report
    /// reads these instead of the registries. Empty in records analysed before it existed.
    #[serde(default, skip_serializing_if = "CatalogSnapshot::is_empty")]
    pub catalog: CatalogSnapshot,
}

impl RunRecord {
    /// A record at the start of a run: who made it, how, where and when, with no point measured and nothing
    /// derived yet (the analysis fills the rest). `started_utc` is RFC 3339.
    pub fn begun(
        tool: ToolInfo,
        mode: Mode,
        command_line: Vec<String>,
        started_utc: String,
        time_source: TimeSourceInfo,
        machine: MachineInfo,
    ) -> RunRecord {
        RunRecord {
            schema_version: SCHEMA_VERSION,
            tool,
            mode,
            command_line,
            started_utc,
            finished_utc: None,
            interrupted: false,
            time_source,
            harness: HarnessConfig::for_mode(mode),
            rounds: None,
            machine,
            warnings: Vec::new(),
            speed_warning: None,
            speed: None,
            machine_state: None,
            host_states: None,
            host_spread: None,
            between_runs: None,
            points: Vec::new(),
            skipped: Vec::new(),
            fits: Vec::new(),
            comparisons: Vec::new(),
            count_fits: Vec::new(),
            choices: Vec::new(),
            sides: None,
            crosscheck: None,
            catalog: CatalogSnapshot::default(),
        }
    }

    /// Every point the record holds: its own (the first side's, or the run's without sides), then every other
    /// side's (named `…/side:NAME`), side after side. What the exports and the time summary read, so a run
    /// with sides carries each side.
    pub fn every_point(&self) -> impl Iterator<Item = &PointRecord> {
        let others = self.sides.iter().flat_map(|s| s.sides.iter().skip(1)).flat_map(|s| s.points.iter());
        self.points.iter().chain(others)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The record names the tool, its commit and every crate under test as the binary stamped them.
    #[test]
    fn the_stamp_names_the_crates_under_test() {
        let stamp = BuildStamp {
            name: "overhead",
            version: "0.1.0",
            git_commit: Some("abc-dirty"),
            crate_versions: "crossbeam-channel=0.5.17,tokio=1.48.0",
        };
        let tool = ToolInfo::from_stamp(&stamp);
        assert_eq!((tool.name.as_str(), tool.git_commit.as_deref()), ("overhead", Some("abc-dirty")));
        assert_eq!(tool.crates[1], CrateVersion { name: "tokio".into(), version: "1.48.0".into() });
        assert_eq!(
            parse_crate_versions("a=1.0.0,broken,b=2.1.3"),
            [
                CrateVersion { name: "a".into(), version: "1.0.0".into() },
                CrateVersion { name: "b".into(), version: "2.1.3".into() }
            ]
        );
        assert!(parse_crate_versions("").is_empty());
    }
}
