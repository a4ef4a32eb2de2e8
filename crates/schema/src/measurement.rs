//! What the harness hands back for one point.

use serde::{Deserialize, Serialize};

use overhead_machine::{CounterKind, Counts};
use overhead_stats::{percentile, Summary};

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
    /// The kernel's events per operation, control subtracted (docs/METHOD.md §18); `None` where the
    /// measurement did not count them (the kernel refused the counters, an external probe, a measurement
    /// that times itself).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts_per_op: Option<CountsPerOp>,
}

/// What one operation cost the kernel and the hardware, in events per operation (control subtracted, a
/// team's threads summed, the process's switches once): for each [`CounterKind`] counted, the median over the
/// counted pairs of (test batch's count − its control's count) / N, from [`overhead_machine::ThreadCounters`]
/// read at batch edges. A fraction is an average: 0.5 context switches per operation is one every other
/// operation. `cpu_ns` is ns of CPU time per operation; the PMU's kinds appear only where the machine has one.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CountsPerOp(pub Vec<(CounterKind, f64)>);

impl CountsPerOp {
    /// Per operation from kept (control, test) count pairs of batches of `n` operations: for each kind that
    /// every pair counted, the median over the pairs of (test − control) / n. `None` without pairs.
    pub fn from_pairs(n: u64, pairs: &[(Counts, Counts)]) -> Option<CountsPerOp> {
        if pairs.is_empty() {
            return None;
        }
        let per_op = |kind: CounterKind| -> Option<f64> {
            let mut values = pairs
                .iter()
                .map(|(c, t)| Some((t.of(kind)? as f64 - c.of(kind)? as f64) / n.max(1) as f64))
                .collect::<Option<Vec<f64>>>()?;
            values.sort_by(f64::total_cmp);
            Some(percentile(&values, 0.5))
        };
        Some(CountsPerOp(CounterKind::ALL.iter().filter_map(|&kind| Some((kind, per_op(kind)?))).collect()))
    }

    /// Each count divided by `k` (a body whose iteration is `k` operations).
    pub fn per(self, k: f64) -> CountsPerOp {
        CountsPerOp(self.0.into_iter().map(|(kind, v)| (kind, v / k)).collect())
    }

    /// The count of `kind` per operation, where it was counted.
    pub fn of(&self, kind: CounterKind) -> Option<f64> {
        self.0.iter().find(|(k, _)| *k == kind).map(|&(_, v)| v)
    }

    /// The counts as `(name, value)` pairs, names as [`CounterKind::name`] gives them.
    pub fn named(&self) -> impl Iterator<Item = (&'static str, f64)> + '_ {
        self.0.iter().map(|&(kind, v)| (kind.name(), v))
    }
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
        self.counts_per_op = self.counts_per_op.take().map(|c| c.per(k));
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

/// What a team measurement hands back besides the samples (`overhead_harness::Harness::measure_seated_team`).
#[derive(Debug, Clone, PartialEq)]
pub struct TeamReport {
    pub measurement: Measurement,
    /// CPUs whose pinning the kernel refused, with the error text; the thread ran unpinned.
    pub pin_failures: Vec<(usize, String)>,
}
