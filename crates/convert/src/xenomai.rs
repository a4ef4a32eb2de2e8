//! Xenomai's conversion arithmetic, the routines Kiszka 2006 benchmarks: `llmulshft` (scaled math, Jan
//! Kiszka's `fast_tsc_to_ns`), `nodiv_llimd` and `nodiv_imuldiv` (Gilles Chanteperdrix's division-free
//! multiply by a precomputed 32.64 fraction), and the 32-bit `imuldiv`. Semantics follow Xenomai's
//! `include/cobalt/uapi/asm-generic/arith.h` and, where x86-64 overrides it, `asm/xenomai/uapi/arith.h`
//! (`imulq` + `shrd` for `llmulshft`, `mulq` with a `0x80000000` rounding add for `nodiv_ullimd`).
//! Xenomai's factors are `unsigned` (32-bit): a rate above `u32::MAX` Hz cannot be set up.

use super::Ratio;

/// `(m, d)` of `ratio` as Xenomai's 32-bit `unsigned` parameters, or why not.
fn u32_pair(ratio: Ratio) -> Result<(u32, u32), String> {
    match (u32::try_from(ratio.num), u32::try_from(ratio.den)) {
        (Ok(m), Ok(d)) => Ok((m, d)),
        _ => Err(format!("Xenomai's factors are 32-bit; {}/{} does not fit", ratio.num, ratio.den)),
    }
}

/// `xnarch_llmulshft(op, m, s)`: `(op × m) >> s` with `m ≤ 2^31 − 1`, from `xnarch_init_llmulshft`.
/// The factor is truncated (not rounded), so the result drifts below the exact one by up to
/// `x·(num/den − m/2^s) + 1`: about 1 ns per 2^30 ns-worth of ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Llmulshft {
    pub mult: u32,
    pub shift: u32,
}

impl Llmulshft {
    /// `xnarch_init_llmulshft(m_in = num, d_in = den)`: the largest `s ≤ 31` with
    /// `⌊num·2^s / den⌋ ≤ 0x7FFFFFFF`.
    ///
    /// Errors: `num` or `den` does not fit in 32 bits, or no shift keeps the factor in 31 bits
    /// (`num/den ≥ 2^31`).
    pub fn new(ratio: Ratio) -> Result<Llmulshft, String> {
        let (m, d) = u32_pair(ratio)?;
        for shift in (0..=31u32).rev() {
            let mult = ((m as u64) << shift) / d as u64;
            if mult <= 0x7FFF_FFFF {
                return Ok(Llmulshft { mult: mult as u32, shift });
            }
        }
        Err(format!("{m}/{d} needs a factor above 2^31 even with shift 0"))
    }

    /// The x86-64 form: signed 64×64→128 multiply (`imulq`), then the low 64 bits of the product
    /// shifted right by `s` (`shrd`). Inputs ≥ 2^63 are negative `long long`s to Xenomai.
    #[inline]
    pub fn apply(&self, x: u64) -> u64 {
        ((x as i64 as i128 * self.mult as i128) >> self.shift) as u64
    }
}

/// `struct xnarch_u32frac` widened to what `xnarch_init_u32frac(m, d)` computes: `integ = ⌊m/d⌋` and
/// `frac = ⌊(m mod d)·2^64 / d⌋`, a 32.64 fixed-point factor. Multiplying by it needs no division.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct U32Frac {
    pub integ: u32,
    pub frac: u64,
}

impl U32Frac {
    /// `xnarch_init_u32frac(&f, num, den)`.
    ///
    /// Errors: `num` or `den` does not fit in 32 bits.
    pub fn new(ratio: Ratio) -> Result<U32Frac, String> {
        let (m, d) = u32_pair(ratio)?;
        // div96by32((m % d) << 32, 0, d): the 96-bit (m mod d)·2^64 divided by d.
        let frac = (((m % d) as u128) << 64) / d as u128;
        Ok(U32Frac { integ: m / d, frac: frac as u64 })
    }

    /// `xnarch_nodiv_ullimd(op, frac, integ)` on x86-64: the high 64 bits of `op × frac` after adding
    /// `0x80000000` to the low half (a partial rounding), plus `integ × op` (wrapping, as `imulq`
    /// does). Within 1 of the exact result in either direction. Xenomai's `nodiv_llimd` is this with
    /// the sign handled around it; `u64` inputs need only the unsigned core.
    #[inline]
    pub fn nodiv_llimd(&self, x: u64) -> u64 {
        let high = ((x as u128 * self.frac as u128 + 0x8000_0000) >> 64) as u64;
        high.wrapping_add((self.integ as u64).wrapping_mul(x))
    }

    /// `xnarch_nodiv_imuldiv(op, f)`: 32-bit input and result, `(op × (frac >> 32)) >> 32 + integ × op`
    /// in `unsigned` arithmetic (the result wraps past `u32::MAX`). The input is taken as C would take
    /// a `u64` passed for an `unsigned`: its low 32 bits.
    #[inline]
    pub fn nodiv_imuldiv(&self, x: u64) -> u64 {
        let op = x as u32;
        let high = ((op as u64 * (self.frac >> 32)) >> 32) as u32;
        high.wrapping_add(self.integ.wrapping_mul(op)) as u64
    }
}

/// `xnarch_imuldiv(i, mult, div)`: `(unsigned)((u64)i × mult / div)`: a 32×32→64 multiply and a 64/32
/// divide. Exact while the input and the result fit in 32 bits; the result wraps after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Imuldiv {
    pub mult: u32,
    pub div: u32,
}

impl Imuldiv {
    /// The routine with `mult = num`, `div = den`.
    ///
    /// Errors: `num` or `den` does not fit in 32 bits.
    pub fn new(ratio: Ratio) -> Result<Imuldiv, String> {
        let (mult, div) = u32_pair(ratio)?;
        Ok(Imuldiv { mult, div })
    }

    /// The low 32 bits of the input, multiplied and divided; the quotient truncated to 32 bits.
    #[inline]
    pub fn apply(&self, x: u64) -> u64 {
        ((x as u32 as u64 * self.mult as u64) / self.div as u64) as u32 as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Direction;

    #[test]
    fn llmulshft_factor_is_the_largest_31_bit_one() {
        let l = Llmulshft::new(Ratio::new(Direction::TickToNs, 1_000_000_000)).unwrap();
        assert_eq!((l.mult, l.shift), (1 << 30, 30), "2^31 itself does not fit in 31 bits");
        let l = Llmulshft::new(Ratio::new(Direction::TickToNs, 3_000_000_000)).unwrap();
        assert_eq!((l.mult, l.shift), (715_827_882, 31));
        let l = Llmulshft::new(Ratio::new(Direction::NsToTick, 3_000_000_000)).unwrap();
        assert_eq!((l.mult, l.shift), (1_610_612_736, 29));
        assert!(Llmulshft::new(Ratio::new(Direction::TickToNs, 5_000_000_000)).is_err());
    }

    #[test]
    fn u32frac_is_the_32_64_fraction() {
        let f = U32Frac::new(Ratio::new(Direction::TickToNs, 4_000_000_000)).unwrap();
        assert_eq!((f.integ, f.frac), (0, 1 << 62), "1/4 is exactly 2^62 / 2^64");
        let f = U32Frac::new(Ratio::new(Direction::NsToTick, 2_500_000_000)).unwrap();
        assert_eq!((f.integ, f.frac), (2, 1 << 63));
        assert_eq!(f.nodiv_llimd(1_000_000_000), 2_500_000_000);
        assert_eq!(f.nodiv_imuldiv(1_000), 2_500);
    }

    #[test]
    fn thirty_two_bit_routines_wrap_past_u32() {
        let ratio = Ratio::new(Direction::NsToTick, 4_000_000_000);
        let i = Imuldiv::new(ratio).unwrap();
        assert_eq!(i.apply(1_073_741_823), 4_294_967_292);
        assert_eq!(i.apply(1_073_741_824), 0, "4·2^30 wraps a 32-bit result");
        let f = U32Frac::new(ratio).unwrap();
        assert_eq!(f.nodiv_imuldiv(1_073_741_824), 0);
    }
}
