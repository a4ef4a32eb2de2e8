//! Harness settings for the three run modes.

use serde::{Deserialize, Serialize};

/// How long and how often to measure. serde: `"quick"`, `"default"`, `"full"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Quick,
    Default,
    Full,
}

/// Batch and repetition settings (DESIGN.md "Method" 2 and 4).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HarnessConfig {
    /// A batch grows by doubling until it takes at least this long (ns).
    pub target_batch_ns: f64,
    /// Batches of test and control run before any is kept.
    pub warmup: usize,
    /// Kept (control, test) batch pairs; the point's sample count.
    pub repetitions: usize,
    /// Upper bound on operations per batch, whatever the target says.
    pub max_batch_ops: u64,
    /// Fraction of the median that the CI half-width may reach before the point is flagged `noisy`.
    pub noisy_fraction: f64,
}

impl HarnessConfig {
    /// quick: ~1 ms batches, 11 repetitions; default: ~10 ms, 31; full: ~10 ms, 101.
    pub fn for_mode(mode: Mode) -> HarnessConfig {
        let (target_batch_ns, warmup, repetitions) = match mode {
            Mode::Quick => (1e6, 2, 11),
            Mode::Default => (1e7, 3, 31),
            Mode::Full => (1e7, 5, 101),
        };
        HarnessConfig { target_batch_ns, warmup, repetitions, max_batch_ops: 1 << 32, noisy_fraction: 0.05 }
    }
}
