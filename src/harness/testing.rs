//! Test support: one quick harness for the crate's tests (docs/ARCHITECTURE.md "Layout").

use super::{Harness, HarnessConfig, Mode};
use crate::clock::{calibrate, Calibration};

/// A real-clock harness with tiny batches (0.2 ms target, one warm-up, three repetitions), for tests
/// that check what a measurement does, never how fast: its numbers are not to be asserted on.
pub(crate) fn quick_harness() -> Harness {
    let time = calibrate(false, Calibration { span: std::time::Duration::from_millis(5), spans: 1 });
    let mut config = HarnessConfig::for_mode(Mode::Quick);
    (config.target_batch_ns, config.warmup, config.repetitions) = (2e5, 1, 3);
    Harness::new(&time, config)
}
