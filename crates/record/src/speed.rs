//! The machine's speed over a run, as the reference loop timed around every probe process saw it
//! (docs/METHOD.md §13): a finding of the run, recorded so that `compare` and the history can set two runs'
//! speeds side by side.

use serde::{Deserialize, Serialize};

/// The reference loop's ns per iteration over all of a run's processes: the median with its 95% CI (order
/// statistics over every reading, before and after each process), and its course over the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSpeed {
    /// Median ns per iteration of the reference loop over every reading of the run.
    pub median_ns: f64,
    /// 95% CI of that median (order statistics), ns per iteration.
    pub ci_low_ns: f64,
    pub ci_high_ns: f64,
    /// Readings it is over (two per process: before and after).
    pub readings: usize,
    /// The median in consecutive windows of the run ([`SpeedWindow`]), in time order; empty for records
    /// whose processes carry no start time.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub course: Vec<SpeedWindow>,
}

/// The reference loop's median over the processes that started in one window of the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpeedWindow {
    /// Start of the window, seconds after the run started.
    pub start_s: f64,
    /// Its length (s).
    pub length_s: f64,
    /// Median ns per iteration over the window's readings.
    pub median_ns: f64,
    /// 95% CI of that median (order statistics), ns per iteration.
    pub ci_low_ns: f64,
    pub ci_high_ns: f64,
    /// Readings in the window.
    pub readings: usize,
}
