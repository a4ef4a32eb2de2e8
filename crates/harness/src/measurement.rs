//! What the harness hands back for one point.

use serde::{Deserialize, Serialize};

use overhead_stats::Summary;

/// Per-operation samples of one point, in ns, one per repetition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    /// Operations per batch (the N every kept batch ran).
    pub batch_ops: u64,
    /// Test minus its interleaved control, per operation (ns), one per repetition.
    pub samples_ns: Vec<f64>,
    /// The control batch alone, per operation (ns), one per repetition: lmbench's "ovr".
    pub control_ns: Vec<f64>,
    /// Per-thread samples (ns per operation, control subtracted), for thread teams; empty otherwise.
    pub per_thread_ns: Vec<Vec<f64>>,
    /// The smallest per-operation difference a batch of `batch_ops` can resolve (ns).
    pub resolution_ns: f64,
}

impl Measurement {
    /// The same measurement per `k`-th of an operation: every time divided by `k`. For bodies whose one
    /// iteration is `k` of the reported operation (a round trip of two handoffs is `k = 2`).
    pub fn per(mut self, k: f64) -> Measurement {
        let scale = |v: &mut Vec<f64>| v.iter_mut().for_each(|x| *x /= k);
        scale(&mut self.samples_ns);
        scale(&mut self.control_ns);
        self.per_thread_ns.iter_mut().for_each(scale);
        self.resolution_ns /= k;
        self
    }

    /// Summary of `samples_ns`; `None` when there are no finite samples.
    pub fn summary(&self) -> Option<Summary> {
        Summary::of(&self.samples_ns)
    }

    /// Summary of the control samples.
    pub fn control_summary(&self) -> Option<Summary> {
        Summary::of(&self.control_ns)
    }

    /// True when the result cannot be told from zero: its CI reaches down to the resolution floor.
    pub fn below_resolution(&self) -> bool {
        self.summary().is_none_or(|s| s.ci_low <= self.resolution_ns)
    }
}
