//! The naive routine: multiply then divide in 64 bits, as `x * NSEC_PER_SEC / hz` is usually written.

use super::Ratio;

/// `x × num / den` with a 64-bit product: exact until the product overflows, garbage after (the
/// product wraps modulo 2^64, as C's unsigned arithmetic does). One multiply and one 64-bit divide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Naive {
    pub ratio: Ratio,
}

impl Naive {
    /// The routine for `ratio`.
    pub fn new(ratio: Ratio) -> Naive {
        Naive { ratio }
    }

    /// `⌊x·num/den⌋` while `x ≤` [`Naive::overflow_point`]; wrapped after.
    #[inline]
    pub fn apply(&self, x: u64) -> u64 {
        x.wrapping_mul(self.ratio.num) / self.ratio.den
    }

    /// The largest input whose product `x·num` fits in 64 bits: `⌊(2^64 − 1) / num⌋`. Tick→ns at any
    /// rate: 1.8·10^10 ticks (6.1 s at 3 GHz); ns→tick at 3 GHz: 6.1·10^9 ns (6.1 s).
    pub fn overflow_point(&self) -> u64 {
        u64::MAX / self.ratio.num
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Direction;

    #[test]
    fn exact_up_to_the_overflow_point_and_wrong_after() {
        for direction in Direction::ALL {
            let n = Naive::new(Ratio::new(direction, 3_000_000_000));
            let p = n.overflow_point();
            assert_eq!(n.apply(p) as u128, n.ratio.exact(p), "{direction:?}");
            assert_ne!(n.apply(p + 1) as u128, n.ratio.exact(p + 1), "{direction:?}");
        }
        // 6.1 s of ticks at 3 GHz
        let p = Naive::new(Ratio::new(Direction::TickToNs, 3_000_000_000)).overflow_point();
        assert_eq!(p, 18_446_744_073);
    }
}
