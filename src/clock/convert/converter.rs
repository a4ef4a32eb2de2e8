//! The conversion other code uses: seed 002's recommendation, "if (ns <= ULONG_MAX) nodiv_imuldiv else
//! [the full 64-bit routine]", division-free in both directions.

use super::{Direction, Ratio};

/// A factor `num/den` as `integ + frac/2^64`: Xenomai's `xnarch_u32frac` with the integer part widened
/// to 64 bits, plus the same factor as one 32.32 fixed-point number for the 32-bit path. Applying it
/// is one or two multiplies and no division.
///
/// Results are never above the exact `⌊x·num/den⌋` and at most 1 below it (the fraction is truncated,
/// so the product loses less than `x/2^64` of a unit on the full path and `x/2^32` on the 32-bit one).
/// A result that would exceed `u64` saturates at `u64::MAX`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fraction {
    integ: u64,
    frac: u64,
    /// `integ·2^32 + ⌊frac/2^32⌋`: the factor in 32.32 fixed point (needs `integ < 2^32`).
    fixed_32_32: u64,
}

impl Fraction {
    /// `integ = ⌊num/den⌋`, `frac = ⌊(num mod den)·2^64/den⌋` (`xnarch_init_u32frac`).
    ///
    /// # Panics
    /// When `num/den ≥ 2^32`: the 32-bit path's factor would not fit in 64 bits (a counter slower than
    /// 0.23 Hz, or faster than 4.29·10^18 Hz).
    pub fn new(ratio: Ratio) -> Fraction {
        let integ = ratio.num / ratio.den;
        assert!(integ <= u32::MAX as u64, "a factor of {}/{} is at or above 2^32", ratio.num, ratio.den);
        let frac = ((((ratio.num % ratio.den) as u128) << 64) / ratio.den as u128) as u64;
        Fraction { integ, frac, fixed_32_32: (integ << 32) | (frac >> 32) }
    }

    /// The integer part of the factor.
    pub fn integ(&self) -> u64 {
        self.integ
    }

    /// The fractional part of the factor, in units of 2^−64.
    pub fn frac(&self) -> u64 {
        self.frac
    }

    /// Seed 002's dispatch: the 32-bit path for inputs up to `u32::MAX`, the 64-bit one above.
    #[inline]
    pub fn apply(&self, x: u64) -> u64 {
        if x <= u32::MAX as u64 {
            self.apply_u32(x as u32)
        } else {
            self.apply_u64(x)
        }
    }

    /// `nodiv_imuldiv` with its two terms folded into one multiply: `(x × integ.frac32) >> 32` equals
    /// `integ·x + (x × (frac >> 32)) >> 32` exactly, because `integ·x·2^32` has no fractional bits. The
    /// result cannot overflow (`x < 2^32` and `integ < 2^32`), so no 32-bit wrap either: seed 002's
    /// version keeps the result in 32 bits and would wrap for ns→tick above `u32::MAX / (hz / 1e9)` ns.
    #[inline]
    pub fn apply_u32(&self, x: u32) -> u64 {
        ((x as u128 * self.fixed_32_32 as u128) >> 32) as u64
    }

    /// `nodiv_ullimd` without the rounding add: the high half of the 64×64 product `x × frac`, plus
    /// `integ × x`.
    #[inline]
    pub fn apply_u64(&self, x: u64) -> u64 {
        let high = ((x as u128 * self.frac as u128) >> 64) as u64;
        high.saturating_add(self.integ.saturating_mul(x))
    }
}

/// Tick↔ns conversion for a counter of a given rate: the division-free fast path seed 002 recommends
/// (one multiply for inputs up to `u32::MAX`, two above), at most 1 ns or 1 tick
/// below the exact floor, never above it, and monotonic (a larger input never gives a smaller result).
///
/// ```
/// use overhead::clock::convert::Converter;
/// let c = Converter::new(3_000_000_000);
/// assert_eq!(c.ticks_to_ns(3_000_000_000), 1_000_000_000);
/// assert_eq!(c.ns_to_ticks(1_000), 3_000);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Converter {
    hz: u64,
    to_ns: Fraction,
    to_ticks: Fraction,
}

impl Converter {
    /// A converter for a counter of `hz` ticks per second.
    ///
    /// # Panics
    /// When `hz` is 0 or above 4.29·10^18 (no counter runs at either; see [`Fraction::new`]).
    pub fn new(hz: u64) -> Converter {
        Converter {
            hz,
            to_ns: Fraction::new(Ratio::new(Direction::TickToNs, hz)),
            to_ticks: Fraction::new(Ratio::new(Direction::NsToTick, hz)),
        }
    }

    /// The counter rate this converter was made for (Hz).
    pub fn hz(&self) -> u64 {
        self.hz
    }

    /// A tick count (or difference) in ns: `⌊ticks × 1e9 / hz⌋` or 1 ns less.
    #[inline]
    pub fn ticks_to_ns(&self, ticks: u64) -> u64 {
        self.to_ns.apply(ticks)
    }

    /// An interval in ns in ticks: `⌊ns × hz / 1e9⌋` or 1 tick less (a timer armed with it fires at
    /// most one tick early, never late).
    #[inline]
    pub fn ns_to_ticks(&self, ns: u64) -> u64 {
        self.to_ticks.apply(ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Within 1 below the exact floor, never above, at the edges of both paths and far beyond.
    #[test]
    fn within_one_below_exact_on_edges() {
        for hz in [
            1,
            32_768,
            24_000_000,
            1_000_000_000,
            2_995_234_567,
            4_000_000_000,
            10_000_000_000,
            4_000_000_000_000_000_000,
        ] {
            let c = Converter::new(hz);
            for direction in Direction::ALL {
                let ratio = Ratio::new(direction, hz);
                let f = |x| match direction {
                    Direction::TickToNs => c.ticks_to_ns(x),
                    Direction::NsToTick => c.ns_to_ticks(x),
                };
                let edges = [0, 1, 999, u32::MAX as u64 - 1, u32::MAX as u64, 1 << 32, u64::MAX / 2];
                for x in edges.into_iter().chain([ratio.exact_fit_max()]).filter(|&x| x <= ratio.exact_fit_max()) {
                    let exact = ratio.exact(x);
                    let got = f(x) as u128;
                    assert!(got <= exact && exact - got <= 1, "{hz} Hz {direction:?} x={x}: {got} vs {exact}");
                }
            }
        }
    }

    /// The switch from the 32-bit to the 64-bit path never steps backwards.
    #[test]
    fn monotonic_across_the_dispatch_boundary() {
        for hz in [1_000_000_000, 2_995_234_567, 3_999_999_999] {
            let c = Converter::new(hz);
            let boundary = u32::MAX as u64;
            for f in [Converter::ticks_to_ns, Converter::ns_to_ticks] {
                let mut previous = f(&c, boundary - 10_000);
                for x in boundary - 9_999..=boundary + 10_000 {
                    let y = f(&c, x);
                    assert!(y >= previous, "{hz} Hz: f({x}) = {y} < {previous}");
                    previous = y;
                }
            }
        }
    }

    /// The folded 32.32 factor gives exactly Xenomai's two-term `nodiv_imuldiv` (widened to 64 bits).
    #[test]
    fn folded_factor_equals_the_two_term_form() {
        for hz in [32_768, 2_995_234_567, 4_000_000_000] {
            for direction in Direction::ALL {
                let f = Fraction::new(Ratio::new(direction, hz));
                for x in [0u32, 1, 12_345, 3_000_000_001, u32::MAX] {
                    let two_term = ((x as u64 * (f.frac() >> 32)) >> 32) + f.integ() * x as u64;
                    assert_eq!(f.apply_u32(x), two_term, "{hz} Hz {direction:?} x={x}");
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "at or above 2^32")]
    fn refuses_a_factor_the_32_bit_path_cannot_hold() {
        Converter::new(u64::MAX);
    }

    #[test]
    fn saturates_instead_of_wrapping() {
        let c = Converter::new(4_000_000_000);
        assert_eq!(c.ns_to_ticks(u64::MAX), u64::MAX);
        assert_eq!(c.hz(), 4_000_000_000);
    }
}
