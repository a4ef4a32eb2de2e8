//! The probe protocol: one JSON job in (a command-line argument), JSON lines out on stdout.
//!
//! Kept small and versioned so that a probe written in Go or Java can speak it (DESIGN.md "Probe
//! protocol"). Version 1 messages: `result` (a complete point record), `note` (free text for the log)
//! and `error` (the point failed, with a message).

use serde::{Deserialize, Serialize};

use crate::clock::TimeSourceInfo;
use crate::harness::HarnessConfig;
use crate::record::{PointRecord, PointSpec};

/// Protocol version spoken by this build.
pub const VERSION: u32 = 1;

/// What the orchestrator asks a probe to do: measure one point with this clock and these settings.
/// The clock is calibrated once per run by the orchestrator so probes start measuring at once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeJob {
    pub v: u32,
    pub spec: PointSpec,
    pub time_source: TimeSourceInfo,
    pub harness: HarnessConfig,
    /// The run's usual reference-loop speed so far (ns per iteration, see `harness::speed`), once a few points
    /// have measured it: the probe waits for the machine to run near it before measuring. Absent in jobs from
    /// older orchestrators, and for the first points of a run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usual_reference_ns: Option<f64>,
    /// Whether the probe may measure a second time when the first attempt ran while the machine was slow
    /// (`harness::speed::RETRY_WITHIN`); the orchestrator withholds it once the run's retry budget is spent.
    #[serde(default)]
    pub retry_slow: bool,
}

/// One line of probe output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ProbeMessage {
    Result { v: u32, point: Box<PointRecord> },
    Note { v: u32, text: String },
    Error { v: u32, message: String },
}

impl ProbeMessage {
    /// The message as one line of JSON (no newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("probe messages always serialise")
    }
}
