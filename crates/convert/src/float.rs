//! Conversion by one double-precision multiply, as `Duration::from_secs_f64`-style code does it.

use super::Ratio;

/// `(x as f64 × num/den) as u64`: two roundings to 53 bits (the input and the product) and a
/// truncation. Exact while `x` and the result stay below 2^53; beyond, the error grows with the value:
/// at most `x·(num/den)·2^−51 + 1` (see [`F64Scale::error_bound`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct F64Scale {
    pub scale: f64,
}

impl F64Scale {
    /// The factor of `ratio` rounded to a double.
    pub fn new(ratio: Ratio) -> F64Scale {
        F64Scale { scale: ratio.as_f64() }
    }

    /// The product, truncated toward zero (Rust's `as` saturates at `u64::MAX`).
    #[inline]
    pub fn apply(&self, x: u64) -> u64 {
        (x as f64 * self.scale) as u64
    }

    /// Upper bound of `|apply(x) − exact(x)|` for every `x ≤ x_max`: each of the three roundings (input,
    /// factor, product) is within 2^−53 relative, so the real product is within `y·(3·2^−53 + ε) <
    /// y·2^−51` of the true `y = x·num/den`; truncating instead of flooring adds less than 1.
    pub fn error_bound(&self, x_max: u64) -> u128 {
        let y = x_max as f64 * self.scale;
        (y * 2f64.powi(-51)).ceil() as u128 + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Direction;

    #[test]
    fn exact_on_small_values_and_bounded_on_large_ones() {
        let ratio = Ratio::new(Direction::TickToNs, 4_000_000_000);
        let f = F64Scale::new(ratio);
        assert_eq!(f.apply(4_000_000_000), 1_000_000_000);
        let x = u64::MAX / 2;
        let err = (f.apply(x) as u128).abs_diff(ratio.exact(x));
        assert!(err <= f.error_bound(x), "{err} > {}", f.error_bound(x));
        assert!(f.error_bound(x) > 1, "2^63 ticks are far past 53 bits");
    }
}
