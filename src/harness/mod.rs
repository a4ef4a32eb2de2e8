//! The measuring method (DESIGN.md "Method" 2–6): batches sized to a target duration, interleaved control
//! batches subtracted, warm-up, repetitions, and thread teams started together on a spin barrier.
//!
//! Experiments never time themselves: they hand the harness a *test* body and a *control* body, each
//! `FnMut(n)` running its operation `n` times, and get back per-operation samples in ns.

mod config;
mod measurement;
mod runs;
mod single;
pub mod speed;
mod spin_barrier;
mod team;

pub use config::{HarnessConfig, Mode};
pub use measurement::Measurement;
pub use spin_barrier::SpinBarrier;
pub use team::TeamReport;

use crate::clock::{Clock, TimeSourceInfo};

/// A harness bound to one calibrated clock and one set of batch/repetition settings.
#[derive(Debug, Clone)]
pub struct Harness {
    pub clock: Clock,
    pub config: HarnessConfig,
    /// Smallest observable step of the clock, ns; used to decide "below resolution".
    pub resolution_ns: f64,
    /// Cost of one clock read, ns; part of the resolution floor of a batch.
    pub read_cost_ns: f64,
}

impl Harness {
    /// A harness timing with the source described by `time` and the settings of `config`.
    pub fn new(time: &TimeSourceInfo, config: HarnessConfig) -> Harness {
        Harness { clock: time.clock, config, resolution_ns: time.resolution_ns, read_cost_ns: time.read_cost_ns }
    }

    /// Runs `body(n)` between the two batch-edge reads and returns the elapsed ticks (no control
    /// subtracted). For checks of the harness itself; experiments use [`Harness::measure`].
    pub fn batch_ticks<F: FnMut(u64)>(&self, body: &mut F, n: u64) -> u64 {
        self.time_batch(body, n)
    }

    /// Runs `body(n)` between the two batch-edge reads and returns the elapsed ticks.
    #[inline(always)]
    fn time_batch<F: FnMut(u64)>(&self, body: &mut F, n: u64) -> u64 {
        let t0 = self.clock.start();
        body(n);
        let t1 = self.clock.stop();
        t1.wrapping_sub(t0)
    }

    /// The per-operation floor below which a batch of `n` operations cannot resolve a difference: one
    /// clock step or one read, whichever is larger, spread over the batch (ns).
    pub fn resolution_per_op_ns(&self, n: u64) -> f64 {
        self.resolution_ns.max(self.read_cost_ns) / n.max(1) as f64
    }
}
