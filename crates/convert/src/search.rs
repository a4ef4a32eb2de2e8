//! Searching a routine's worst error against the exact routine over an interval range.
//!
//! The method: no search over 10^17 inputs can be exhaustive, so three kinds of input are tried, each
//! aimed at where conversion errors live:
//! 1. exhaustive edges: every input in `[0, 1024]` and `[x_max − 1024, x_max]` (off-by-one and
//!    rounding mistakes at small values; the largest drift at the top, since scaled routines drift
//!    linearly with the input);
//! 2. structure: `2^k − 1, 2^k, 2^k + 1` for every power of two in range (32-bit truncation, shift and
//!    dispatch boundaries) and the routine's own breakpoints ± 1 (its overflow point);
//! 3. dense deterministic sampling: 4096 inputs uniform over the range, 4096 uniform in its top 1/64,
//!    4096 log-uniform (every magnitude), from a SplitMix64 seeded by the range and the ratio, so a run
//!    is reproducible.
//!
//! About 14 500 evaluations per range, a few ms. The result is the worst error found, a lower bound of
//! the true worst; [`super::Prepared::error_bound`] gives the analytic upper bound beside it.

use super::exact::abs_diff;
use super::{Direction, Ratio, NS_PER_S};

/// An interval range of the accuracy table: inputs from 0 up to this long an interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntervalRange {
    /// Column label, e.g. `"1 h"`.
    pub label: &'static str,
    /// Key suffix for `extra` numbers, e.g. `"1h"` in `max_error_ns_1h`.
    pub key: &'static str,
    /// Length in ns.
    pub ns: u64,
}

/// 1 µs, 1 ms, 1 s, 1 min, 1 h, 1 day, 1 year (365 days).
pub const RANGES: [IntervalRange; 7] = [
    IntervalRange { label: "1 µs", key: "1us", ns: 1_000 },
    IntervalRange { label: "1 ms", key: "1ms", ns: 1_000_000 },
    IntervalRange { label: "1 s", key: "1s", ns: NS_PER_S },
    IntervalRange { label: "1 min", key: "1min", ns: 60 * NS_PER_S },
    IntervalRange { label: "1 h", key: "1h", ns: 3_600 * NS_PER_S },
    IntervalRange { label: "1 day", key: "1day", ns: 86_400 * NS_PER_S },
    IntervalRange { label: "1 year", key: "1year", ns: 365 * 86_400 * NS_PER_S },
];

/// The largest input of an interval of `range_ns` in `direction`'s input unit: ticks at `hz` for
/// tick→ns (saturating at `u64::MAX`), ns for ns→tick.
pub fn input_max(direction: Direction, hz: u64, range_ns: u64) -> u64 {
    match direction {
        Direction::TickToNs => (range_ns as u128 * hz as u128 / NS_PER_S as u128).min(u64::MAX as u128) as u64,
        Direction::NsToTick => range_ns,
    }
}

/// The worst error found and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorstError {
    /// `|f(x) − exact(x)|` in output units (ns or ticks).
    pub error: u128,
    /// The input that gave it (the smallest such input among those tried first).
    pub at: u64,
    /// Inputs evaluated.
    pub evaluated: usize,
}

/// Exhaustive edges, then structure, then samples per [module docs](self).
const EDGE: u64 = 1024;
const SAMPLES: usize = 4096;

/// The worst `|f(x) − ratio.exact(x)|` over `x ∈ [0, x_max]`, searched as the module docs say;
/// `breakpoints` are inputs the routine is known to change behaviour at (tried with their neighbours).
pub fn worst_error(f: impl Fn(u64) -> u64, ratio: Ratio, x_max: u64, breakpoints: &[u64]) -> WorstError {
    let mut worst = WorstError { error: 0, at: 0, evaluated: 0 };
    let mut try_x = |x: u64| {
        let error = abs_diff(f(x), ratio.exact(x));
        worst.evaluated += 1;
        if error > worst.error {
            worst.error = error;
            worst.at = x;
        }
    };
    (0..=x_max.min(EDGE)).for_each(&mut try_x);
    (x_max.saturating_sub(EDGE).max(EDGE + 1)..=x_max).for_each(&mut try_x);
    let structural = (1..64).flat_map(|k| {
        let p = 1u64 << k;
        [p - 1, p, p + 1]
    });
    let around = breakpoints.iter().flat_map(|&b| [b.saturating_sub(1), b, b.saturating_add(1)]);
    structural.chain(around).filter(|&x| x <= x_max).for_each(&mut try_x);
    let mut rng = SplitMix64(x_max ^ ratio.num.rotate_left(17) ^ ratio.den.rotate_left(41));
    let top = x_max - x_max / 64;
    let log2_max = (x_max.max(1) as f64).log2();
    for _ in 0..SAMPLES {
        try_x(rng.below(x_max));
        try_x(top + rng.below(x_max - top));
        let log_uniform = 2f64.powf(rng.unit() * log2_max) as u64;
        try_x(log_uniform.min(x_max));
    }
    worst
}

/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny, well-mixed, seedable generator.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    #[allow(clippy::should_implement_trait)] // an infinite generator; Iterator would add an Option per draw
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, n]` (inclusive; the multiply-shift bias is below 2^−64 per value).
    fn below(&mut self, n: u64) -> u64 {
        ((self.next() as u128 * (n as u128 + 1)) >> 64) as u64
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Prepared, Routine};

    fn tick_to_ns(hz: u64) -> Ratio {
        Ratio::new(Direction::TickToNs, hz)
    }

    /// Three planted mistakes, one per kind of input the search tries; each must be found at its size.
    #[test]
    fn search_finds_planted_errors() {
        let ratio = tick_to_ns(3_000_000_000);
        let exact = |x: u64| ratio.exact(x) as u64;
        let x_max = input_max(Direction::TickToNs, 3_000_000_000, 60 * NS_PER_S);
        // 1. an off-by-one on one small input (exhaustive edges)
        let w = worst_error(|x| if x == 700 { exact(x) + 1 } else { exact(x) }, ratio, x_max, &[]);
        assert_eq!((w.error, w.at), (1, 700));
        // 2. a 32-bit truncation of the input (structure: 2^32)
        let w = worst_error(|x| ratio.exact(x as u32 as u64) as u64, ratio, x_max, &[]);
        assert!(w.error > 1_000_000_000, "wrapping at 2^32 ticks loses 1.4 s: found only {}", w.error);
        // 3. a factor 1 ppb too small: drift of 60 ns at 1 min (samples in the top of the range)
        let w = worst_error(|x| (ratio.exact(x) as f64 * (1.0 - 1e-9)) as u64, ratio, x_max, &[]);
        assert!((59..=61).contains(&w.error), "{w:?}");
        // and an exact routine has no error anywhere
        assert_eq!(worst_error(exact, ratio, x_max, &[]).error, 0);
    }

    /// The search stays below the analytic bound and close to it for a drifting routine.
    #[test]
    fn search_meets_the_analytic_bound_of_a_scaled_routine() {
        let p = Prepared::new(Routine::Kernel, Direction::TickToNs, 2_995_234_567).unwrap();
        let x_max = input_max(Direction::TickToNs, p.hz, 3_600 * NS_PER_S);
        let found = worst_error(|x| p.apply(x), p.ratio, x_max, &[]).error;
        let bound = p.error_bound(x_max).unwrap();
        assert!(found <= bound && found + 2 >= bound, "found {found}, bound {bound}");
    }

    #[test]
    fn input_max_is_in_the_input_unit() {
        assert_eq!(input_max(Direction::TickToNs, 3_000_000_000, NS_PER_S), 3_000_000_000);
        assert_eq!(input_max(Direction::NsToTick, 3_000_000_000, NS_PER_S), NS_PER_S);
    }

    #[test]
    fn search_of_one_range_is_quick_and_deterministic() {
        let ratio = tick_to_ns(2_995_234_567);
        let x_max = input_max(Direction::TickToNs, 2_995_234_567, RANGES[6].ns);
        let a = worst_error(|x| (x as f64 * ratio.as_f64()) as u64, ratio, x_max, &[]);
        let b = worst_error(|x| (x as f64 * ratio.as_f64()) as u64, ratio, x_max, &[]);
        assert_eq!(a, b);
        // Quick by its work, not by a clock (a time bound is the host's, not the search's): 14,506 inputs
        // here, ~0.1 ms; a search that stopped pruning would evaluate millions.
        assert!(a.evaluated > 14_000 && a.evaluated < 20_000, "{a:?}");
    }
}
