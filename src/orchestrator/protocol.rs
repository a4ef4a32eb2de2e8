//! The probe protocol: one JSON job in (a command-line argument), JSON lines out on stdout.
//!
//! Kept small and versioned so that a probe written in Go or Java can speak it (docs/ARCHITECTURE.md "The
//! data flow"). Version 2 messages: `result` (the point as this process measured it, and the batch size its
//! first sizing settled on), `note` (free text for the log) and `error` (the point failed, with a message).
//! Version 2 replaced version 1's wait-for-usual-speed fields by the batch-size hint.

use serde::{Deserialize, Serialize};

use crate::clock::TimeSourceInfo;
use crate::harness::HarnessConfig;
use crate::record::{PointRecord, PointSpec};

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
    },
    Note {
        v: u32,
        text: String,
    },
    Error {
        v: u32,
        message: String,
    },
}

impl ProbeMessage {
    /// The message as one line of JSON (no newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("probe messages always serialise")
    }
}
