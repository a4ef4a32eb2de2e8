//! The `quanta` crate's conversion, as a peer to compare with. quanta calibrates its own scale (a
//! 64-bit factor over a power of two, `⌊x·factor⌋ >> shift`) against `CLOCK_MONOTONIC` for up to 200 ms
//! when its first `Clock` is made, and cannot be given a rate; it converts ticks to ns only.

/// A calibrated `quanta::Clock` used only for its tick→ns conversion, `Clock::delta_as_nanos(0, x)`
/// (its public API for a raw delta; `delta` is the same wrapped in a `Duration`).
#[derive(Debug, Clone)]
pub struct QuantaPeer {
    clock: quanta::Clock,
}

impl QuantaPeer {
    /// quanta's clock; the first one in a process calibrates (up to 200 ms of busy-waiting).
    pub fn new() -> QuantaPeer {
        QuantaPeer { clock: quanta::Clock::new() }
    }

    /// `delta_as_nanos(0, ticks)`: ns for `ticks` counter ticks at quanta's calibrated rate (0 for 0).
    #[inline]
    pub fn ticks_to_ns(&self, ticks: u64) -> u64 {
        self.clock.delta_as_nanos(0, ticks)
    }

    /// The rate quanta's scale implies, in Hz: 2^40 ticks over the ns it makes of them.
    pub fn implied_hz(&self) -> f64 {
        let ticks = 1u64 << 40;
        ticks as f64 * 1e9 / self.ticks_to_ns(ticks) as f64
    }

    /// True when quanta fell back to its monotonic clock (no invariant TSC): its "raw" values are
    /// then ns already and its conversion is the identity.
    pub fn is_identity(&self) -> bool {
        [1u64 << 40, 12_345_678_901].iter().all(|&x| self.ticks_to_ns(x) == x)
    }
}

impl Default for QuantaPeer {
    fn default() -> QuantaPeer {
        QuantaPeer::new()
    }
}
