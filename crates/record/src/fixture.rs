//! Records made up for tests: known values, real machine description.

use crate::{BuildStamp, Metric, PointRecord, PointSpec, RunRecord, SkipKind, SkippedPoint, ToolInfo};
use overhead_clock::{calibrate, Calibration};
use overhead_machine::MachineInfo;
use overhead_schema::Mode;
use overhead_stats::Summary;
use std::collections::BTreeMap;

/// The spec of a point of `experiment` for `runtime` with the given parameters on `cpus`, on this host.
pub fn spec(experiment: &str, runtime: &str, params: &[(&str, &str)], cpus: &[usize]) -> PointSpec {
    let mut spec = PointSpec {
        experiment: experiment.into(),
        runtime: runtime.into(),
        params: params.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        cpus: cpus.to_vec(),
        placement: None,
        hosts: Vec::new(),
    };
    // As the plan and the record reader leave it: the named placement parsed into the field.
    spec.settle_placement();
    spec
}

/// Processes of one point, one per round from 1, whose median batches are `medians` (ns): one operation a
/// batch, three batches, 1 ms each, no start time, state or extra values.
pub fn processes(medians: &[f64]) -> Vec<crate::ProcessRecord> {
    medians
        .iter()
        .enumerate()
        .map(|(i, &median_ns)| crate::ProcessRecord {
            round: i + 1,
            batch_ops: 1,
            batches: 3,
            median_ns,
            wall_ms: 1.0,
            started_s: None,
            state: None,
            extra: Default::default(),
        })
        .collect()
}

/// A point of `experiment` for `runtime` with the given parameters whose samples centre on `median`.
pub fn point(experiment: &str, runtime: &str, params: &[(&str, &str)], median: f64) -> PointRecord {
    let spec = spec(experiment, runtime, params, &[0, 1]);
    let samples: Vec<f64> = [0.95, 0.975, 1.0, 1.0, 1.025, 1.05].iter().map(|f| f * median).collect();
    let (summary, control) = (Summary::of(&samples).unwrap(), Summary::of(&[0.25, 0.25, 0.5]).unwrap());
    PointRecord {
        threads: 2,
        batch_ops: 1 << 20,
        samples_ns: samples,
        control_ns: vec![0.25, 0.25, 0.5],
        resolution_ns: 1e-5,
        notes: vec!["a note".into()],
        extra: [("resolution_ns".to_string(), 10.0)].into(),
        ..PointRecord::unmerged(spec, Metric::PerOp, summary, control)
    }
}

/// A record with one `sync.faa` point (median 10 ns) and one timed-out point.
/// A count of `key` (`cs_per_op`, `kernel_share`, …) with median `median` and interval `[ci_low, ci_high]` at
/// 95%, over five processes: a point's [`crate::CountEstimate`] as the merge writes it.
pub fn count(key: &str, median: f64, ci_low: f64, ci_high: f64) -> crate::CountEstimate {
    crate::CountEstimate { key: key.into(), median, ci_low, ci_high, ci_level: 0.95, processes: 5 }
}

pub fn sample_record() -> RunRecord {
    let faa = point("sync.faa", "os", &[("variable", "shared"), ("threads", "2")], 10.0);
    let mut record = RunRecord::begun(
        ToolInfo::from_stamp(&BuildStamp { name: "overhead", version: "0.1.0", git_commit: None, crate_versions: "" }),
        Mode::Quick,
        vec!["overhead".into(), "run".into()],
        "2026-11-21T10:00:00+00:00".into(),
        calibrate(true, Calibration::DEFAULT),
        MachineInfo::detect(),
    );
    record.interrupted = true;
    record.warnings = vec!["a warning".into()];
    record.skipped = vec![SkippedPoint::new(faa.spec.clone(), SkipKind::TimedOut, "timed out after 1 s")];
    record.points = vec![faa];
    record
}

/// A run summary of one machine and configuration with `(name, median)` points, each with a CI of ±`rel`
/// of its median.
pub fn run_summary(label: &str, points: &[(&str, f64)], rel: f64) -> super::RunSummary {
    super::RunSummary {
        label: label.into(),
        started_utc: String::new(),
        config: Some(super::RunConfig {
            machine: "m".into(),
            kernel: "k".into(),
            build: "b".into(),
            options: "default".into(),
        }),
        speed_ns: Some(0.25),
        max_other_share: Some(0.01),
        max_steal_share: Some(0.0),
        points: points
            .iter()
            .map(|&(n, m)| {
                let p = super::PointRunSummary {
                    median_ns: m,
                    ci_low_ns: m * (1.0 - rel),
                    ci_high_ns: m * (1.0 + rel),
                    processes: 5,
                };
                (n.to_string(), p)
            })
            .collect(),
        process_wall_ms: BTreeMap::new(),
        host_state_rtt_ns: Default::default(),
    }
}

/// A side's ratio to the baseline of `scope` named `name`, side `b`, with a ±2% CI over 5 pairs, flagged or
/// not (its p-value 0.001 or 0.5).
pub fn side_ratio(scope: crate::SideScope, name: &str, ratio: f64, flagged: bool) -> crate::SideRatio {
    crate::SideRatio {
        scope,
        name: name.into(),
        side: "b".into(),
        ratio,
        ci_low: ratio * 0.98,
        ci_high: ratio * 1.02,
        n: 5,
        p_value: if flagged { 0.001 } else { 0.5 },
        flagged,
        not_compared: None,
        state_mismatched_pairs: 0,
    }
}
