//! Harness settings for the three run modes.

use serde::{Deserialize, Serialize};

/// How long and how often to measure. serde: `"quick"`, `"default"`, `"full"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Quick,
    #[default]
    Default,
    Full,
}

impl Mode {
    /// Every mode, shortest first.
    pub const ALL: [Mode; 3] = [Mode::Quick, Mode::Default, Mode::Full];

    /// The mode as the command line and the record name it: `quick`, `default`, `full`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Quick => "quick",
            Mode::Default => "default",
            Mode::Full => "full",
        }
    }
}

/// Batch and repetition settings of one probe process (docs/METHOD.md §1–2). A point is measured by
/// several such processes in rounds (`orchestrator::RoundPolicy`); these say what each one does.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HarnessConfig {
    /// A batch grows by doubling until it takes at least this long (ns).
    pub target_batch_ns: f64,
    /// Batches of test and control run before any is kept.
    pub warmup: usize,
    /// Kept (control, test) batch pairs per process.
    pub repetitions: usize,
    /// Upper bound on operations per batch, whatever the target says.
    pub max_batch_ops: u64,
    /// Fraction of the median that the CI half-width may reach before the point is flagged `noisy`.
    pub noisy_fraction: f64,
    /// Untimed (control, test) pairs run after the kept ones with the kernel's counters open, whose events
    /// per operation the measurement reports (docs/METHOD.md §18); 0 counts nothing. Records written before
    /// it existed read as [`crate::COUNTED_PAIRS`].
    #[serde(default = "default_counted_pairs")]
    pub counted_pairs: usize,
    /// The mode these settings are for, so an experiment that sizes its own work (wake-ups per process,
    /// readings per CPU pair) follows the mode, not a guess from the numbers above. Records written before
    /// it existed read as `default`.
    #[serde(default)]
    pub mode: Mode,
}

impl HarnessConfig {
    /// Per process — quick: ~0.25 ms batches, 1 warm-up, 3 kept; default: ~0.5 ms, 1, 3; full: ~1 ms, 2, 9.
    /// Short, because what varies most is the process, not the batch: the time goes to more processes
    /// (Kalibera & Jones 2013, "repetitions spent where the variance is"). A quarter of a millisecond is
    /// still tens of thousands of clock steps, and `--quick` needs its three processes a point in 30 s.
    pub fn for_mode(mode: Mode) -> HarnessConfig {
        let (target_batch_ns, warmup, repetitions) = match mode {
            Mode::Quick => (2.5e5, 1, 3),
            Mode::Default => (5e5, 1, 3),
            Mode::Full => (1e6, 2, 9),
        };
        HarnessConfig {
            target_batch_ns,
            warmup,
            repetitions,
            max_batch_ops: 1 << 32,
            noisy_fraction: 0.05,
            counted_pairs: crate::COUNTED_PAIRS,
            mode,
        }
    }
}

/// [`HarnessConfig::counted_pairs`] of a record written before it existed.
fn default_counted_pairs() -> usize {
    crate::COUNTED_PAIRS
}
