//! The conversion other code uses: Kiszka's recommendation, "if (ns <= ULONG_MAX) nodiv_imuldiv else
//! [the full 64-bit routine]", division-free in both directions.

use super::{Direction, Ratio};

/// A factor `num/den` as `integ + frac/2^64`: Xenomai's `xnarch_u32frac` with the integer part widened
/// to 64 bits and the fraction rounded *up*, plus the same factor in 32.32 fixed point (also rounded
/// up) for short inputs. Applying it takes one 64-bit multiply for short inputs, two above, and no
/// division.
///
/// Rounding the fraction up rather than truncating it as Xenomai does makes every result the floor or
/// the ceiling of the true quotient `x·num/den` (less than 1 unit from it, never 2): the product
/// gains less than `x/2^64` of a unit on the full path and `x/2^32` on the short one, both below 1.
/// So a result is never below the exact `⌊x·num/den⌋`, at most 1 above it, and exact whenever the
/// quotient is a whole number (1 s of ticks is exactly 10^9 ns). A result that would exceed `u64`
/// saturates at `u64::MAX`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fraction {
    integ: u64,
    frac: u64,
    /// `integ·2^32 + ⌈(num mod den)·2^32/den⌉`: the factor in 32.32 fixed point.
    fixed_32_32: u64,
    /// The largest input of the short path: `u32::MAX`, or less when `x × fixed_32_32` would overflow.
    short_max: u64,
}

impl Fraction {
    /// `integ = ⌊num/den⌋`, `frac = ⌈(num mod den)·2^64/den⌉` (`xnarch_init_u32frac`, rounded up), and
    /// the 32.32 factor with its short-path limit.
    ///
    /// # Panics
    /// When `num/den` reaches 2^32 − 1: the 32.32 factor would not fit in 64 bits (a counter slower
    /// than 0.24 Hz, or faster than 4.29·10^18 Hz).
    pub fn new(ratio: Ratio) -> Fraction {
        let (integ, rest, den) = (ratio.num / ratio.den, (ratio.num % ratio.den) as u128, ratio.den as u128);
        // rest ≤ den − 1, so ⌈rest·2^64/den⌉ ≤ 2^64 − 1 ((den−1)·2^64 + den − 1 < den·2^64), and
        // ⌈rest·2^32/den⌉ ≤ 2^32.
        let frac = (rest << 64).div_ceil(den) as u64;
        let fixed = ((integ as u128) << 32) + (rest << 32).div_ceil(den);
        let fixed_32_32 = u64::try_from(fixed)
            .unwrap_or_else(|_| panic!("a factor of {}/{} is at or above 2^32 − 1", ratio.num, ratio.den));
        // fixed ≥ 1: either integ ≥ 1, or rest = num > 0.
        let short_max = (u64::MAX / fixed_32_32).min(u32::MAX as u64);
        Fraction { integ, frac, fixed_32_32, short_max }
    }

    /// The integer part of the factor.
    pub fn integ(&self) -> u64 {
        self.integ
    }

    /// The fractional part of the factor, in units of 2^−64, rounded up.
    pub fn frac(&self) -> u64 {
        self.frac
    }

    /// The largest input [`Fraction::apply`] takes the short path for: `u32::MAX` when the factor is
    /// below 1 (tick→ns from a counter of 1 GHz or more), else `⌊(2^64 − 1) / factor⌋` (ns→tick at
    /// 4 GHz: 2^30 ns, about 1.07 s).
    pub fn short_max(&self) -> u64 {
        self.short_max
    }

    /// Kiszka's dispatch ("if (ns <= ULONG_MAX) nodiv_imuldiv else the full routine"): the short path
    /// for inputs up to [`Fraction::short_max`], the 64-bit one above.
    ///
    /// Monotonic across the switch at `T = short_max`: the short path is at most `⌊v(T)⌋ + 1` at `T`
    /// and the full path at least `⌊v(T + 1)⌋ = ⌊v(T) + num/den⌋` at `T + 1`, which is no smaller when
    /// `num/den ≥ 1`; when `num/den < 1`, `T = 2^32 − 1`, and with `r = (num mod den)·2^32/den` the short
    /// path gives `⌈r⌉ − 1` (or 0) there while the full path gives `⌊⌈r·2^32⌉/2^32⌋ ≥ ⌊r⌋` at `2^32`.
    #[inline]
    pub fn apply(&self, x: u64) -> u64 {
        if x <= self.short_max {
            self.apply_short(x)
        } else {
            self.apply_u64(x)
        }
    }

    /// `nodiv_imuldiv` as one 64-bit multiply: `(x × integ.frac32) >> 32`, which equals Xenomai's two
    /// terms `integ·x + (x × frac32) >> 32` exactly (`integ·x·2^32` has no fractional bits). Valid for
    /// `x ≤ short_max` (the product fits in 64 bits); the result is then 64 bits wide, where Kiszka's
    /// keeps 32 and would wrap for ns→tick above `u32::MAX / (hz / 1e9)` ns.
    #[inline]
    pub fn apply_short(&self, x: u64) -> u64 {
        x.wrapping_mul(self.fixed_32_32) >> 32
    }

    /// `nodiv_ullimd` with the fraction rounded up instead of Xenomai's rounding add: the high half of
    /// the 64×64 product `x × frac`, plus `integ × x`.
    #[inline]
    pub fn apply_u64(&self, x: u64) -> u64 {
        let high = ((x as u128 * self.frac as u128) >> 64) as u64;
        high.saturating_add(self.integ.saturating_mul(x))
    }
}

/// Tick↔ns conversion for a counter of a given rate: the division-free fast path Kiszka 2006 recommends
/// (one 64-bit multiply for inputs up to `u32::MAX`, or up to 2^64 / factor when that is smaller, a
/// 64×64→128 and a 64-bit one above). Each result is the floor or the ceiling of the
/// true value (at most 1 ns or 1 tick above the exact floor, never below it; exact on whole quotients),
/// and the conversion is monotonic (a larger input never gives a smaller result).
///
/// ```
/// use overhead_convert::Converter;
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
                let short = Fraction::new(ratio).short_max();
                let edges = [0, 1, 999, u32::MAX as u64 - 1, u32::MAX as u64, 1 << 32, u64::MAX / 2, short, short + 1];
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

    /// The switch from the short to the 64-bit path never steps backwards.
    #[test]
    fn monotonic_across_the_dispatch_boundary() {
        for hz in [32_768, 999_999_999, 1_000_000_000, 2_995_234_567, 3_999_999_999, 10_000_000_000] {
            for direction in Direction::ALL {
                let f = Fraction::new(Ratio::new(direction, hz));
                let boundary = f.short_max();
                let mut previous = f.apply(boundary - 10_000);
                for x in boundary - 9_999..=boundary + 10_000 {
                    let y = f.apply(x);
                    assert!(y >= previous, "{hz} Hz {direction:?}: f({x}) = {y} < {previous}");
                    previous = y;
                }
            }
        }
    }

    /// The short path is Xenomai's two-term `nodiv_imuldiv` (widened to 64 bits, fraction rounded up)
    /// and agrees with the 64-bit path but for the one unit its coarser fraction may add.
    #[test]
    fn short_path_is_the_widened_nodiv_imuldiv() {
        for hz in [32_768, 2_995_234_567, 4_000_000_000] {
            for direction in Direction::ALL {
                let ratio = Ratio::new(direction, hz);
                let f = Fraction::new(ratio);
                let frac32 = ((ratio.num % ratio.den) << 32).div_ceil(ratio.den);
                for x in [0, 1, 12_345, 1_000_000_007, 3_000_000_001, u32::MAX as u64].map(|x| x.min(f.short_max())) {
                    let short = f.apply_short(x);
                    assert_eq!(short, ((x * frac32) >> 32) + ratio.num / ratio.den * x, "{hz} Hz {direction:?} x={x}");
                    let full = f.apply_u64(x);
                    assert!(short >= full && short - full <= 1, "{hz} Hz {direction:?} x={x}: {short} vs {full}");
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "at or above 2^32 − 1")]
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
