//! How far each point's median moves between runs of this configuration on this machine, as the history
//! knew it when the run ended (docs/METHOD.md §13). Written by `overhead run` after it added the run to the
//! history, so that a report made later from the record alone can say it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The run level as the record keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BetweenRuns {
    /// Where it came from, in words ("this machine's history: 6 runs in 1 configuration, …").
    pub source: String,
    /// Runs with a repetition behind it.
    pub runs: usize,
    /// Per point: the half-width (% of the median) of the 95% range in which a run's median falls around the
    /// configuration's long-run value: its within-run error and the run level together.
    pub points_pct: BTreeMap<String, f64>,
}
