//! Tick↔ns conversion (seed 002: `xnarch_tsc_to_ns` and its inverse).
//!
//! PLACEHOLDER: the minimal exact routine the timer queue codes against. The `clock.convert` branch
//! replaces this module with the full set of routines (scaled math, 32-bit fast paths, error per range);
//! only [`Converter::new`], [`Converter::ticks_to_ns`] and [`Converter::ns_to_ticks`] are relied on.

/// Converts between counter ticks and ns for a counter running at `hz` ticks per second, with exact
/// 128-bit integer math rounding down (seed 002's "accurate 64-bit division", `xnarch_tsc_to_ns`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Converter {
    hz: u64,
}

impl Converter {
    /// A converter for a counter of `hz` ticks per second.
    ///
    /// Panics: `hz` is 0 (no counter runs at 0 Hz; a caller passing one has not calibrated).
    pub fn new(hz: u64) -> Converter {
        assert!(hz > 0, "Converter::new: hz must be above 0, got 0");
        Converter { hz }
    }

    /// `ticks` as ns, rounded down; saturates at `u64::MAX` (only past ~584 years at 1 GHz).
    #[inline]
    pub fn ticks_to_ns(&self, ticks: u64) -> u64 {
        let ns = ticks as u128 * 1_000_000_000 / self.hz as u128;
        u64::try_from(ns).unwrap_or(u64::MAX)
    }

    /// `ns` as ticks, rounded down; saturates at `u64::MAX`.
    #[inline]
    pub fn ns_to_ticks(&self, ns: u64) -> u64 {
        let ticks = ns as u128 * self.hz as u128 / 1_000_000_000;
        u64::try_from(ticks).unwrap_or(u64::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_both_ways_and_rounds_down() {
        let c = Converter::new(3_000_000_000);
        assert_eq!(c.ticks_to_ns(3_000_000_000), 1_000_000_000);
        assert_eq!(c.ns_to_ticks(1), 3);
        assert_eq!(c.ticks_to_ns(2), 0, "2 ticks at 3 GHz are 0.67 ns, rounded down");
        let odd = Converter::new(2_899_999_999);
        let t = 1u64 << 50;
        assert!(odd.ns_to_ticks(odd.ticks_to_ns(t)) <= t);
        assert_eq!(Converter::new(1).ticks_to_ns(u64::MAX), u64::MAX, "saturates");
    }
}
