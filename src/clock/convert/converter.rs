//! The conversion other code uses: seed 002's recommendation, "if (ns <= ULONG_MAX) nodiv_imuldiv else
//! [the full 64-bit routine]", division-free in both directions.

use super::{Direction, Ratio};

/// A factor `num/den` as `integ + frac/2^64`: Xenomai's `xnarch_u32frac` with the integer part widened
/// to 64 bits and the fraction rounded *up*, plus the top 32 bits of that fraction (also rounded up) for
/// the 32-bit path. Applying it is two multiplies and no division.
///
/// Rounding the fraction up rather than truncating it as Xenomai does makes every result the floor or
/// the ceiling of the true quotient `x·num/den` (less than 1 unit from it, never 2): the product
/// gains less than `x/2^64` of a unit on the full path and `x/2^32` on the 32-bit one, both below 1.
/// So a result is never below the exact `⌊x·num/den⌋`, at most 1 above it, and exact whenever the
/// quotient is a whole number (1 s of ticks is exactly 10^9 ns). A result that would exceed `u64`
/// saturates at `u64::MAX`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fraction {
    integ: u64,
    frac: u64,
    /// `⌈(num mod den)·2^32/den⌉`, at most 2^32: the fraction for the 32-bit path.
    frac32: u64,
}

impl Fraction {
    /// `integ = ⌊num/den⌋`, `frac = ⌈(num mod den)·2^64/den⌉` (`xnarch_init_u32frac`, rounded up).
    ///
    /// # Panics
    /// When `num/den ≥ 2^32`: the 32-bit path's `integ × x` could overflow 64 bits (a counter slower
    /// than 0.23 Hz, or faster than 4.29·10^18 Hz).
    pub fn new(ratio: Ratio) -> Fraction {
        let (integ, rest, den) = (ratio.num / ratio.den, (ratio.num % ratio.den) as u128, ratio.den as u128);
        assert!(integ <= u32::MAX as u64, "a factor of {}/{} is at or above 2^32", ratio.num, ratio.den);
        // rest ≤ den − 1, so ⌈rest·2^64/den⌉ ≤ 2^64 − 1 ((den−1)·2^64 + den − 1 < den·2^64), and
        // ⌈rest·2^32/den⌉ ≤ 2^32.
        let frac = (rest << 64).div_ceil(den) as u64;
        let frac32 = (rest << 32).div_ceil(den) as u64;
        Fraction { integ, frac, frac32 }
    }

    /// The integer part of the factor.
    pub fn integ(&self) -> u64 {
        self.integ
    }

    /// The fractional part of the factor, in units of 2^−64, rounded up.
    pub fn frac(&self) -> u64 {
        self.frac
    }

    /// Seed 002's dispatch: the 32-bit path for inputs up to `u32::MAX`, the 64-bit one above.
    ///
    /// Monotonic across the switch: with `r = (num mod den)·2^32/den`, the 32-bit path gives
    /// `integ·(2^32 − 1) + ⌈r⌉ − 1` at `2^32 − 1` (or `integ·(2^32 − 1)` when `⌈r⌉ = 0`), and the 64-bit
    /// path gives `integ·2^32 + ⌊⌈r·2^32⌉/2^32⌋ ≥ integ·2^32 + ⌊r⌋` at `2^32`, which is never smaller.
    #[inline]
    pub fn apply(&self, x: u64) -> u64 {
        if x <= u32::MAX as u64 {
            self.apply_u32(x as u32)
        } else {
            self.apply_u64(x)
        }
    }

    /// `nodiv_imuldiv` in 64-bit registers: `(x × frac32) >> 32 + integ × x`, two independent
    /// multiplies (faster than one 64×64→128 multiply and a double shift on the CPUs tried). Nothing can
    /// overflow (`x, integ < 2^32`, `frac32 ≤ 2^32`: the sum is below `(2^32 − 1)·2^32`), so there is no
    /// 32-bit wrap either: seed 002's version keeps the result in 32 bits and would wrap for ns→tick
    /// above `u32::MAX / (hz / 1e9)` ns.
    #[inline]
    pub fn apply_u32(&self, x: u32) -> u64 {
        let x = x as u64;
        ((x * self.frac32) >> 32) + self.integ * x
    }

    /// `nodiv_ullimd` with the fraction rounded up instead of Xenomai's rounding add: the high half of
    /// the 64×64 product `x × frac`, plus `integ × x`.
    #[inline]
    pub fn apply_u64(&self, x: u64) -> u64 {
        let high = ((x as u128 * self.frac as u128) >> 64) as u64;
        high.saturating_add(self.integ.saturating_mul(x))
    }
}

/// Tick↔ns conversion for a counter of a given rate: the division-free fast path seed 002 recommends
/// (two 64-bit multiplies for inputs up to `u32::MAX`, a 64×64→128 one and a 64-bit one above). Each result is the floor or the ceiling of the
/// true value (at most 1 ns or 1 tick above the exact floor, never below it; exact on whole quotients),
/// and the conversion is monotonic (a larger input never gives a smaller result).
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

    /// A tick count (or difference) in ns: `⌊ticks × 1e9 / hz⌋` or 1 ns more.
    #[inline]
    pub fn ticks_to_ns(&self, ticks: u64) -> u64 {
        self.to_ns.apply(ticks)
    }

    /// An interval in ns in ticks: `⌊ns × hz / 1e9⌋` or 1 tick more (a timer armed with it never fires
    /// before the tick the exact floor names; it may fire one tick later).
    #[inline]
    pub fn ns_to_ticks(&self, ns: u64) -> u64 {
        self.to_ticks.apply(ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The floor or the ceiling of the true value (≥ exact floor, ≤ floor + 1, exact on whole quotients),
    /// at the edges of both paths and far beyond.
    #[test]
    fn floor_or_ceiling_on_edges() {
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
                    let whole = (x as u128 * ratio.num as u128) % ratio.den as u128 == 0;
                    let ok = if whole { got == exact } else { got >= exact && got - exact <= 1 };
                    assert!(ok, "{hz} Hz {direction:?} x={x}: {got} vs exact {exact}");
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

    /// The 32-bit path and the 64-bit one agree wherever both apply, but for the one unit the 32-bit
    /// fraction's coarser rounding may add (both are ≥ the exact floor and ≤ it + 1).
    #[test]
    fn thirty_two_bit_path_is_the_widened_nodiv_imuldiv() {
        for hz in [32_768, 2_995_234_567, 4_000_000_000] {
            for direction in Direction::ALL {
                let ratio = Ratio::new(direction, hz);
                let f = Fraction::new(ratio);
                for x in [0u32, 1, 12_345, 3_000_000_001, u32::MAX] {
                    let (short, full) = (f.apply_u32(x), f.apply_u64(x as u64));
                    assert!(short >= full && short - full <= 1, "{hz} Hz {direction:?} x={x}: {short} vs {full}");
                    assert!(short as u128 >= ratio.exact(x as u64), "{hz} Hz {direction:?} x={x}");
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
