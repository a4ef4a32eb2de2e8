//! The probe protocol: one JSON job in (a command-line argument), JSON lines out on stdout.
//!
//! Kept small and versioned so that a probe written in Go or Java can speak it (docs/ARCHITECTURE.md "The
//! data flow"). Version 2 messages: `result` (the point as this process measured it, and the batch size its
//! first sizing settled on), `note` (free text for the log) and `error` (the point failed, with a message).
//! Version 2 replaced version 1's wait-for-usual-speed fields by the batch-size hint. `result` and
//! `batches` may carry `pin_refusals`, the count of refused pinning requests, read as 0 when absent,
//! so probes that do not write it speak version 2 all the same. A probe in another
//! language (`runtimes::external`, `probes/`) answers `batches` instead of `result`: its raw batch times,
//! from which the orchestrator makes the point, so the method's statistics live in one place (Rust).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use overhead_clock::TimeSourceInfo;
use overhead_harness::HarnessConfig;
use overhead_record::{PointRecord, PointSpec, ToolInfo};

/// Protocol version spoken by this build.
pub const VERSION: u32 = 2;

/// What the orchestrator asks a probe to do: measure one point with this clock and these settings.
/// The clock is calibrated once per run by the orchestrator so probes start measuring at once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeJob {
    pub v: u32,
    pub spec: PointSpec,
    pub time_source: TimeSourceInfo,
    pub harness: HarnessConfig,
    /// The batch size (operations) the point's first process settled on: this process tries it first and
    /// keeps it when a batch of it lasts near the target (`Harness::with_batch_hint`). Absent in round 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_ops_hint: Option<u64>,
    /// The two CPUs whose cache-line round trip the probe times just before and just after its measurement,
    /// its host-state fingerprint (docs/METHOD.md §19): the point's first two CPUs, or for a point on one CPU
    /// the run's first two. Absent on a machine with one CPU, for ranks across hosts, and from older
    /// orchestrators; then no fingerprint is taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_pair: Option<[usize; 2]>,
}

/// One line of probe output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ProbeMessage {
    Result {
        v: u32,
        point: Box<PointRecord>,
        /// The N of the probe's first batch sizing, for the point's later processes; absent when nothing
        /// was sized.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sized_batch_ops: Option<u64>,
        /// How many of the process's pinning requests the kernel refused (its threads ran unpinned; the
        /// point's notes say which); absent when none was.
        #[serde(default, skip_serializing_if = "is_zero")]
        pin_refusals: usize,
    },
    /// An external probe's raw batches (`probes/README.md`); the orchestrator makes the point from them.
    Batches {
        v: u32,
        #[serde(flatten)]
        batches: Box<RawBatches>,
    },
    Note {
        v: u32,
        text: String,
    },
    /// An external probe in the `grain.sweep` conversation has set its runtime up and waits for requests
    /// (probes/README.md "grain.sweep").
    Ready {
        v: u32,
    },
    /// An external probe's answer to a [`RunsRequest`] of the `grain.sweep` conversation.
    Runs {
        v: u32,
        #[serde(flatten)]
        runs: Box<TimedRuns>,
    },
    Error {
        v: u32,
        message: String,
    },
    /// What a binary of this tool answers to `overhead about`: the protocol it speaks and its build, so a run
    /// with sides (`--side NAME=PATH`) can refuse a binary it could not drive before measuring anything.
    About {
        v: u32,
        tool: ToolInfo,
    },
}

/// What an external probe measured for one point: the total ns of each kept test batch and of the control
/// batch interleaved with it, all of `batch_ops` iterations, plus what the point's record carries besides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RawBatches {
    /// Iterations per batch (N), test and control alike.
    pub batch_ops: u64,
    /// Operations per iteration the result is reported per (2 for a round trip reported per message).
    pub per: f64,
    /// Total ns of each kept test batch.
    pub test_ns: Vec<f64>,
    /// Total ns of the control batch run just before each test batch.
    pub control_ns: Vec<f64>,
    /// The probe clock's smallest step (ns), for the whole batch.
    pub resolution_ns: f64,
    /// The N its first sizing settled on.
    #[serde(default)]
    pub sized_batch_ops: Option<u64>,
    #[serde(default)]
    pub notes: Vec<String>,
    #[serde(default)]
    pub extra: BTreeMap<String, f64>,
    /// For a team: each member's own kept test batches (total ns), one row per member.
    #[serde(default)]
    pub per_thread_test_ns: Vec<Vec<f64>>,
    /// How many of its pinning requests the kernel refused (the notes say which); optional, 0 when absent.
    #[serde(default)]
    pub pin_refusals: usize,
}

/// Whether a count is zero: such a count is left out of a message.
fn is_zero(count: &usize) -> bool {
    *count == 0
}

/// A request of the `grain.sweep` conversation, one line on the external probe's stdin: `runs` runs of
/// the point's work split into `tasks` tasks, each timed after its own empty control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunsRequest {
    /// Tasks the work is split into (≥ 1).
    pub tasks: u64,
    /// Runs to time (≥ 1).
    pub runs: u64,
}

/// An external probe's runs of one [`RunsRequest`]: total ns of each run and of the empty control
/// timed just before it, and where the tasks ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimedRuns {
    /// The request's task count.
    pub tasks: u64,
    /// Total ns of each run of the whole work.
    pub test_ns: Vec<f64>,
    /// Total ns of the empty control (two clock reads) just before each run.
    pub control_ns: Vec<f64>,
    /// Tasks of all the runs that ran on each CPU, as `[cpu, tasks]`; CPUs without tasks may be absent.
    #[serde(default)]
    pub cpu_counts: Vec<(usize, u64)>,
    /// Tasks whose CPU the probe cannot tell (every task of a Java probe).
    #[serde(default)]
    pub other_count: u64,
}

impl RawBatches {
    /// The batches per operation, as the Rust harness hands them back: test minus its control over
    /// `batch_ops · per`, the control alone, each member's batches minus the team's control, the resolution
    /// per operation.
    ///
    /// Errors: no batch, test and control of different counts, or a zero N or `per`.
    pub fn measurement(&self) -> Result<overhead_harness::Measurement, String> {
        if self.test_ns.is_empty() || self.test_ns.len() != self.control_ns.len() {
            return Err(format!(
                "{} test and {} control batches: expected as many of each, at least one",
                self.test_ns.len(),
                self.control_ns.len()
            ));
        }
        let ops = self.batch_ops as f64 * self.per;
        if ops.is_nan() || ops <= 0.0 {
            return Err(format!(
                "batch_ops {} × per {}: expected a positive number of operations",
                self.batch_ops, self.per
            ));
        }
        let minus_control = |batches: &[f64]| -> Vec<f64> {
            batches.iter().zip(&self.control_ns).map(|(t, c)| (t - c) / ops).collect()
        };
        Ok(overhead_harness::Measurement {
            counts_per_op: None,
            batch_ops: self.batch_ops,
            samples_ns: minus_control(&self.test_ns),
            control_ns: self.control_ns.iter().map(|c| c / ops).collect(),
            per_thread_ns: self.per_thread_test_ns.iter().map(|member| minus_control(member)).collect(),
            resolution_ns: self.resolution_ns / ops,
        })
    }
}

impl ProbeMessage {
    /// The message as one line of JSON (no newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("probe messages always serialise")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batches_line_of_an_external_probe_reads_and_subtracts_its_control() {
        let line = r#"{"type":"batches","v":2,"batch_ops":1000,"per":2,"test_ns":[5000,6000],"control_ns":[1000,2000],"resolution_ns":40,"sized_batch_ops":1000,"notes":["n"],"extra":{"k":1.5},"per_thread_test_ns":[[5000,6000],[3000,4000]]}"#;
        let ProbeMessage::Batches { v: 2, batches } = serde_json::from_str(line).unwrap() else {
            panic!("not batches")
        };
        assert_eq!((batches.sized_batch_ops, batches.notes.len(), batches.extra["k"]), (Some(1000), 1, 1.5));
        let m = batches.measurement().unwrap();
        assert_eq!(m.samples_ns, [2.0, 2.0], "(test − control) / (N · per)");
        assert_eq!(m.control_ns, [0.5, 1.0]);
        assert_eq!(m.per_thread_ns, [vec![2.0, 2.0], vec![1.0, 1.0]]);
        assert_eq!(m.resolution_ns, 0.02);
        let minimal =
            r#"{"type":"batches","v":2,"batch_ops":1,"per":1,"test_ns":[1],"control_ns":[],"resolution_ns":1}"#;
        let ProbeMessage::Batches { batches, .. } = serde_json::from_str(minimal).unwrap() else {
            panic!("not batches")
        };
        assert!(batches.measurement().unwrap_err().contains("1 test and 0 control"));
    }

    #[test]
    fn refused_pinnings_travel_as_a_count_left_out_when_zero() {
        let point = Box::new(overhead_record::fixture::point("base.call", "os", &[], 1.0));
        let result = |pin_refusals| ProbeMessage::Result {
            v: VERSION,
            point: point.clone(),
            sized_batch_ops: None,
            pin_refusals,
        };
        let refusals = |message: &ProbeMessage| {
            let line = serde_json::to_string(message).unwrap();
            let Ok(ProbeMessage::Result { pin_refusals, .. }) = serde_json::from_str(&line) else { panic!("{line}") };
            (pin_refusals, line.contains("pin_refusals"))
        };
        assert_eq!(refusals(&result(0)), (0, false), "a result without refusals reads as before");
        assert_eq!(refusals(&result(2)), (2, true));
        let batches = |extra: &str| {
            let line = format!(
                r#"{{"type":"batches","v":2,"batch_ops":1,"per":1,"test_ns":[1],"control_ns":[1],"resolution_ns":1{extra}}}"#
            );
            let Ok(ProbeMessage::Batches { batches, .. }) = serde_json::from_str(&line) else { panic!("{line}") };
            batches.pin_refusals
        };
        assert_eq!(batches(""), 0, "an external probe need not say");
        assert_eq!(batches(r#","pin_refusals":3"#), 3);
    }
}
