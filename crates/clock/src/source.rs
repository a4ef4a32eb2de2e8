//! The clock the harness times batches with.

use serde::{Deserialize, Serialize};

use super::counter::{clock_gettime_ns, Counter};

/// Which counter a [`Clock`] reads. serde: `"tsc"`, `"cntvct"`, `"clock_monotonic_raw"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeSourceKind {
    /// x86-64 time-stamp counter, `lfence; rdtsc` / `rdtscp; lfence` at the edges.
    Tsc,
    /// aarch64 virtual counter `cntvct_el0`.
    Cntvct,
    /// `clock_gettime(CLOCK_MONOTONIC_RAW)`, ticks are ns.
    ClockMonotonicRaw,
}

/// A calibrated clock: a counter and its rate. Copy it into every thread that times batches.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Clock {
    pub kind: TimeSourceKind,
    /// Ticks per second of the counter (1e9 for `clock_monotonic_raw`).
    pub hz: f64,
}

impl Clock {
    /// The `clock_gettime(CLOCK_MONOTONIC_RAW)` clock; needs no calibration.
    pub const MONOTONIC_RAW: Clock = Clock { kind: TimeSourceKind::ClockMonotonicRaw, hz: 1e9 };

    /// Counter read at the start of a batch, in ticks.
    #[inline(always)]
    pub fn start(&self) -> u64 {
        match self.kind {
            #[cfg(target_arch = "x86_64")]
            TimeSourceKind::Tsc => Counter::tsc_start(),
            #[cfg(target_arch = "aarch64")]
            TimeSourceKind::Cntvct => Counter::cntvct(),
            _ => clock_gettime_ns(libc::CLOCK_MONOTONIC_RAW),
        }
    }

    /// Counter read at the end of a batch, in ticks.
    #[inline(always)]
    pub fn stop(&self) -> u64 {
        match self.kind {
            #[cfg(target_arch = "x86_64")]
            TimeSourceKind::Tsc => Counter::tsc_stop(),
            #[cfg(target_arch = "aarch64")]
            TimeSourceKind::Cntvct => Counter::cntvct(),
            _ => clock_gettime_ns(libc::CLOCK_MONOTONIC_RAW),
        }
    }

    /// Converts a tick count (or a difference of ticks, possibly fractional) to ns.
    pub fn ticks_to_ns(&self, ticks: f64) -> f64 {
        ticks * 1e9 / self.hz
    }
}

/// A source of ticks for timing batches: what the harness reads at batch edges (docs/METHOD.md §1, §8).
///
/// The harness is generic over it ([`overhead_harness::Harness`]`<C = Clock>`), so every measurement is
/// compiled for one tick source, with no dynamic dispatch and no extra branch between the two reads. [`Clock`]
/// is the real one; tests use a scripted one whose time moves only when told (`harness::testing`,
/// docs/ARCHITECTURE.md "Test support"), so that they know exactly what each batch took.
pub trait Ticks: Clone + Send + Sync {
    /// Counter read at the start of a batch, in ticks.
    fn start(&self) -> u64;

    /// Counter read at the end of a batch, in ticks.
    fn stop(&self) -> u64;

    /// Ticks per second of the counter.
    fn hz(&self) -> f64;

    /// Converts a tick count (or a difference of ticks, possibly fractional) to ns.
    #[inline]
    fn ticks_to_ns(&self, ticks: f64) -> f64 {
        ticks * 1e9 / self.hz()
    }
}

impl Ticks for Clock {
    #[inline(always)]
    fn start(&self) -> u64 {
        Clock::start(self)
    }

    #[inline(always)]
    fn stop(&self) -> u64 {
        Clock::stop(self)
    }

    #[inline(always)]
    fn hz(&self) -> f64 {
        self.hz
    }

    #[inline(always)]
    fn ticks_to_ns(&self, ticks: f64) -> f64 {
        Clock::ticks_to_ns(self, ticks)
    }
}

/// What the record says about the time source (docs/METHOD.md §8): which counter, its rate and how
/// well that rate is known, what one read costs and the smallest step it shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimeSourceInfo {
    pub clock: Clock,
    /// Why this source was chosen (e.g. "invariant TSC", "requested", "TSC not invariant").
    pub reason: String,
    /// Uncertainty of `clock.hz` against CLOCK_MONOTONIC_RAW, in ppm (0 for clock_monotonic_raw itself).
    pub calibration_error_ppm: f64,
    /// Median cost of one batch-edge read, in ns.
    pub read_cost_ns: f64,
    /// Smallest non-zero step seen between consecutive reads, in ns.
    pub resolution_ns: f64,
}
