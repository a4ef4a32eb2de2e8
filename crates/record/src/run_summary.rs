//! A run as the run level needs it (docs/METHOD.md §13): its configuration, its speed and state, and each
//! point's median with its within-run CI. What the history keeps of every run, and what `compare` reads of
//! every record it is given.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::RunRecord;
use overhead_schema::Mode;
use overhead_stats::{Summary, Z95};

/// What must be equal for two runs to be repetitions of one configuration: the machine, its kernel, the
/// build and the options. Runs that differ in any of these differ by what a user wants to find, so the run
/// level is never estimated from such differences.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RunConfig {
    /// Host name, CPU model and logical CPU count: `host|model|cpus`.
    pub machine: String,
    /// The kernel release.
    pub kernel: String,
    /// The tool's version and commit: `version+commit`.
    pub build: String,
    /// The mode and the options that change what is measured (experiments, runtimes, CPUs, budget, time
    /// source), in the order typed; output paths and exports are left out.
    pub options: String,
}

/// One point of a run: its median and within-run 95% CI (ns), and the processes behind them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PointRunSummary {
    pub median_ns: f64,
    pub ci_low_ns: f64,
    pub ci_high_ns: f64,
    /// The processes the CI is over (its Student-t degrees of freedom + 1); 0 when the CI is not a t interval
    /// over processes (a plain Google Benchmark file).
    pub processes: usize,
}

impl PointRunSummary {
    /// From a point's summary and its process count.
    pub fn of(summary: &Summary, processes: usize) -> PointRunSummary {
        PointRunSummary { median_ns: summary.median, ci_low_ns: summary.ci_low, ci_high_ns: summary.ci_high, processes }
    }

    /// The standard error of `ln(median)` that the 95% CI implies: `ln(high / low) / (2 q)`, with `q` the
    /// quantile the CI was built with — Student's t with `processes − 1` degrees of freedom for a point of
    /// several processes (docs/METHOD.md §3), the normal 1.96 otherwise (`processes` 0 or 1: one process, or a
    /// plain Google Benchmark file's order-statistic CI). `None` when the median or a bound is not positive.
    pub fn log_se(&self) -> Option<f64> {
        let q = if self.processes >= 2 {
            use statrs::distribution::{ContinuousCDF, StudentsT};
            StudentsT::new(0.0, 1.0, (self.processes - 1) as f64).map_or(Z95, |t| t.inverse_cdf(0.975))
        } else {
            Z95
        };
        (self.median_ns > 0.0 && self.ci_low_ns > 0.0 && self.ci_high_ns >= self.ci_low_ns)
            .then(|| (self.ci_high_ns / self.ci_low_ns).ln() / (2.0 * q))
    }
}

/// A run reduced to what comparing runs needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// Where it came from: a record's path, or the history's id.
    pub label: String,
    /// RFC 3339 UTC start time (empty when unknown).
    pub started_utc: String,
    /// `None` for a plain Google Benchmark file, which says nothing of its machine or build.
    pub config: Option<RunConfig>,
    /// The reference loop's median ns per iteration over the run; `None` when not recorded.
    pub speed_ns: Option<f64>,
    /// The largest share of a measured CPU's time taken by other processes, and by the hypervisor (steal).
    pub max_other_share: Option<f64>,
    pub max_steal_share: Option<f64>,
    /// Point name → its summary, in name order.
    pub points: BTreeMap<String, PointRunSummary>,
    /// Point name → what one of its probe processes took here, start-up included (ms, the mean over the
    /// run's processes): what a later run plans its time from ([`super::ProcessCosts`]). Empty in summaries
    /// older than it and in plain Google Benchmark files.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub process_wall_ms: BTreeMap<String, f64>,
    /// Point name → the host state its estimate stands for, as the state's cache-line round trip (ns), for the
    /// cross-core points that have one ([`super::estimate_state_rtt_ns`]): `compare` compares a point only
    /// between runs in one state (docs/METHOD.md §19). Empty in older summaries.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub host_state_rtt_ns: BTreeMap<String, f64>,
}

impl RunSummary {
    /// Renames points written under older names to today's ([`super::legacy::upgrade_name`]), in every map
    /// keyed by a point's name: its summary, its processes' cost and its host state.
    pub fn upgrade_names(&mut self) {
        fn renamed<V>(map: &mut BTreeMap<String, V>) {
            let old = std::mem::take(map);
            *map = old.into_iter().map(|(name, v)| (super::legacy::upgrade_name(&name), v)).collect();
        }
        renamed(&mut self.points);
        renamed(&mut self.process_wall_ms);
        renamed(&mut self.host_state_rtt_ns);
    }

    /// The summary of a record read from `label`: of its own points (a run with sides: its baseline's).
    pub fn of_record(record: &RunRecord, label: &str) -> RunSummary {
        Self::of_points(record, &record.points, RunConfig::of(record), label)
    }

    /// The summary of each side of a record with sides, each its own configuration (its build, its
    /// environment) with its points under their plain names, as a run of that side alone would have them;
    /// the record's own summary for a record without sides.
    pub fn of_sides(record: &RunRecord, label: &str) -> Vec<RunSummary> {
        let Some(sides) = &record.sides else {
            return vec![Self::of_record(record, label)];
        };
        sides
            .sides
            .iter()
            .enumerate()
            .map(|(i, side)| {
                let points = if i == 0 { &record.points } else { &side.points };
                let config = RunConfig::of_side(record, side);
                Self::of_points(record, points, config, &format!("{label} side {}", side.spec.name))
            })
            .collect()
    }

    /// A summary of `points` of `record` (named by their spec: a side's without its suffix) in `config`.
    fn of_points(record: &RunRecord, points: &[super::PointRecord], config: RunConfig, label: &str) -> RunSummary {
        RunSummary {
            label: label.to_string(),
            started_utc: record.started_utc.clone(),
            config: Some(config),
            speed_ns: record.speed.as_ref().map(|s| s.median_ns),
            max_other_share: record.machine_state.as_ref().map(|m| m.max_other()),
            max_steal_share: record.machine_state.as_ref().map(|m| m.max_steal()),
            points: points
                .iter()
                .map(|p| (p.spec.name(), PointRunSummary::of(&p.summary, p.processes.len().max(1))))
                .collect(),
            process_wall_ms: points
                .iter()
                .filter(|p| !p.processes.is_empty() && p.wall_ms > 0.0)
                .map(|p| (p.spec.name(), p.wall_ms / p.processes.len() as f64))
                .collect(),
            host_state_rtt_ns: record
                .host_states
                .as_ref()
                .map(|states| {
                    points
                        .iter()
                        .filter_map(|p| Some((p.spec.name(), super::estimate_state_rtt_ns(p, states)?)))
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    /// Whether the machine-state check flagged the run as shared: another process took more than
    /// [`super::OTHER_THRESHOLD`] of a measured CPU, or the hypervisor more than [`super::STEAL_THRESHOLD`]
    /// (docs/METHOD.md §14). Unknown state counts as quiet.
    pub fn was_shared(&self) -> bool {
        self.max_other_share.is_some_and(|o| o > super::OTHER_THRESHOLD)
            || self.max_steal_share.is_some_and(|s| s > super::STEAL_THRESHOLD)
    }

    /// The family of each point ([`family_of`]) with its points.
    pub fn families(&self) -> BTreeMap<&str, Vec<&str>> {
        let mut families: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for name in self.points.keys() {
            families.entry(family_of(name)).or_default().push(name);
        }
        families
    }
}

impl RunConfig {
    /// The machine's identity in the history: `host|CPU model|logical CPUs`.
    pub fn machine_of(m: &overhead_machine::MachineInfo) -> String {
        format!("{}|{}|{}", m.host_name, m.cpu_model, m.logical_cpus)
    }

    /// The configuration a record was measured in.
    pub fn of(record: &RunRecord) -> RunConfig {
        let m = &record.machine;
        RunConfig {
            machine: RunConfig::machine_of(m),
            kernel: m.kernel.clone(),
            build: build_of(&record.tool),
            options: options_of(record.mode, &record.command_line),
        }
    }

    /// The configuration one side of a record with sides was measured in: the side's build, and the run's
    /// options (without the sides) with the side's environment after them (`env:K=V`).
    pub fn of_side(record: &RunRecord, side: &super::SideRecord) -> RunConfig {
        let mut config = RunConfig::of(record);
        config.build = build_of(&side.tool);
        for (k, v) in &side.spec.env {
            config.options += &format!(" env:{k}={v}");
        }
        config
    }
}

/// A build as the history tells builds apart: `version+commit`.
fn build_of(tool: &super::ToolInfo) -> String {
    format!("{}+{}", tool.version, tool.git_commit.as_deref().unwrap_or("unknown"))
}

/// The mode and the measuring options of a `run` command line: every argument after `run` except the
/// output directory, the exports and the history switch, which change where results go, not what they are,
/// and the sides, each of which is a configuration of its own ([`RunConfig::of_side`]).
fn options_of(mode: Mode, argv: &[String]) -> String {
    const NOT_MEASURING: [&str; 4] = ["--out", "--export", "--no-history", "--side"];
    let mut kept = vec![mode.name().to_string()];
    let mut args = argv.iter().skip_while(|a| a.as_str() != "run").skip(1);
    while let Some(arg) = args.next() {
        let flag = arg.split('=').next().unwrap_or(arg);
        if NOT_MEASURING.contains(&flag) {
            if !arg.contains('=') && flag != "--no-history" {
                args.next();
            }
            continue;
        }
        if arg == "--quick" || arg == "--full" {
            continue;
        }
        kept.push(arg.clone());
    }
    kept.join(" ")
}

/// The family of a point name: the experiment ID up to its first `.` (`sync.faa/…` → `sync`); a name
/// without one (a plain Google Benchmark name) is its own family up to the first `/`.
pub fn family_of(name: &str) -> &str {
    let id = name.split('/').next().unwrap_or(name);
    id.split('.').next().unwrap_or(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An older summary's tokio point reads under today's name in every map, its host state and process cost
    /// included (compare finds the state under the new name).
    #[test]
    fn an_older_summary_renames_every_map_keyed_by_a_point() {
        let old = "spawn.forkjoin/runtime:tokio/mechanism:spawn/threads:2";
        let today = "spawn.forkjoin/runtime:tokio/flavor:multi_thread/mechanism:spawn/threads:2";
        let mut summary = crate::fixture::run_summary("old", &[(old, 300.0)], 0.05);
        summary.process_wall_ms.insert(old.into(), 12.0);
        summary.host_state_rtt_ns.insert(old.into(), 55.0);
        summary.upgrade_names();
        assert!(summary.points.contains_key(today) && !summary.points.contains_key(old));
        assert_eq!(summary.process_wall_ms.get(today), Some(&12.0));
        assert_eq!(summary.host_state_rtt_ns.get(today), Some(&55.0));
    }

    #[test]
    fn the_options_keep_what_changes_the_measurement_and_drop_where_it_goes() {
        let argv: Vec<String> =
            ["overhead", "run", "--quick", "--out", "/tmp/x", "--only", "sync", "--export=csv", "--no-history"]
                .iter()
                .map(|s| s.to_string())
                .collect();
        assert_eq!(options_of(Mode::Quick, &argv), "quick --only sync");
        let sides: Vec<String> = ["overhead", "run", "--side", "a=", "--side=b=./x", "--only", "sync"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(options_of(Mode::Default, &sides), "default --only sync");
        let plain: Vec<String> = ["target/release/overhead", "run"].iter().map(|s| s.to_string()).collect();
        assert_eq!(options_of(Mode::Default, &plain), "default");
    }

    #[test]
    fn the_log_standard_error_follows_the_ci() {
        let p = PointRunSummary { median_ns: 100.0, ci_low_ns: 90.0, ci_high_ns: 110.0, processes: 0 };
        let se = p.log_se().unwrap();
        assert!((se - (110f64 / 90.0).ln() / 3.919927969).abs() < 1e-9);
        // Three processes: the CI is t(2) wide, 4.303 standard errors each way.
        let three = PointRunSummary { processes: 3, ..p }.log_se().unwrap();
        assert!((three - (110f64 / 90.0).ln() / (2.0 * 4.302652730)).abs() < 1e-6, "{three}");
        assert!(PointRunSummary { ci_low_ns: -1.0, ..p }.log_se().is_none());
    }
}
