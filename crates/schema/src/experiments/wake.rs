//! The `wake.*` experiments: waking another thread.

use crate::variants::wake::{Mechanism, WaiterState};
use serde::{Deserialize, Serialize};

/// The experiment ID `wake.handoff`.
pub const HANDOFF: &str = "wake.handoff";

/// `wake.handoff`'s parameters (the plan adds the placement).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandoffParams {
    /// The wake path.
    pub mechanism: Mechanism,
    /// Blocked or spinning when the wake comes.
    pub waiter: WaiterState,
}

/// What a `wake.handoff` point reports beside its median wake latency (its `extra`, ns unless named).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HandoffResult {
    /// Timed rounds in this process.
    pub rounds: f64,
    /// The waker's call (the sender's cost): median, 99th percentile.
    pub waker_ns_p50: f64,
    pub waker_ns_p99: f64,
    /// The wake latency (the receiver's side): 50th, 99th and 99.9th percentiles of the process's rounds.
    pub latency_ns_p50: f64,
    pub latency_ns_p99: f64,
    pub latency_ns_p999: f64,
    /// The round trip (two wakes), median.
    pub rtt_ns_p50: f64,
    /// The waiter's voluntary context switches per timed round: about 1 when it really slept each round.
    pub waiter_switches_per_round: f64,
    /// The share of timed rounds whose wake a spinning waiter caught in its spin.
    pub caught_spinning_fraction: f64,
    /// Rounds whose latency read below zero (two CPUs' counters apart by more than the wake; recorded as 0).
    pub negative_latencies: f64,
}
