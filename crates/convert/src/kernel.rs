//! The Linux kernel's scaled math: `ns = (cycles × mult) >> shift`, with `mult` and `shift` chosen by
//! `clocks_calc_mult_shift` (kernel/time/clocksource.c) for a guaranteed range of `maxsec` seconds, and
//! applied with `mul_u64_u32_shr` (include/linux/math64.h), whose 128-bit product cannot overflow.

use super::{Direction, NS_PER_S};

/// The kernel's cap on the conversion range of a counter wider than 32 bits: 10 minutes, "still a
/// reasonable amount" (`__clocksource_update_freq_scale`, `clockevents_config`).
const MAXSEC_CAP: u32 = 600;

/// `clocks_calc_mult_shift(&mult, &shift, from, to, maxsec)`: the `(mult, shift)` pair with the largest
/// shift (the finest factor) such that `mult ≈ to·2^shift / from` (rounded to nearest) and
/// `maxsec·from × mult` still fits in 64 bits.
///
/// The same steps as the kernel: `sftacc` starts at 32 and loses one bit for every significant bit of
/// `(maxsec·from) >> 32`; then `shift` counts down from 32 until `mult >> sftacc` is zero.
pub fn clocks_calc_mult_shift(from: u32, to: u32, maxsec: u32) -> (u32, u32) {
    // Bits of `maxsec·from` above 32 are bits the multiplier must leave free.
    let mut tmp = (maxsec as u64 * from as u64) >> 32;
    let mut sftacc = 32u32;
    while tmp != 0 {
        tmp >>= 1;
        sftacc -= 1;
    }
    let mut sft = 32u32;
    let mut mult = 0u64;
    while sft > 0 {
        mult = ((to as u64) << sft) + from as u64 / 2;
        mult /= from as u64;
        if mult >> sftacc == 0 {
            break;
        }
        sft -= 1;
    }
    (mult as u32, sft)
}

/// `mul_u64_u32_shr(a, mul, shift)`: `(a × mul) >> shift` through a 128-bit product, truncated to 64
/// bits as the kernel's helper returns it.
#[inline]
pub fn mul_u64_u32_shr(a: u64, mul: u32, shift: u32) -> u64 {
    ((a as u128 * mul as u128) >> shift) as u64
}

/// A kernel `(mult, shift)` pair and the range it was chosen for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelScale {
    pub mult: u32,
    pub shift: u32,
    /// The range in seconds the pair guarantees for the kernel's own 64-bit `cycles × mult`
    /// (`clocksource_cyc2ns`); [`KernelScale::apply`] uses a 128-bit product and goes further.
    pub maxsec: u32,
}

impl KernelScale {
    /// The pair the kernel would compute for `direction` at `hz`.
    pub fn new(direction: Direction, hz: u64) -> KernelScale {
        match direction {
            Direction::TickToNs => KernelScale::clocksource(hz),
            Direction::NsToTick => KernelScale::clockevent(hz),
        }
    }

    /// Tick→ns as `__clocksource_update_freq_scale` sets it up for a 64-bit counter such as the TSC:
    /// `sec = mask / freq / scale`, capped at 600 s because the mask is wider than 32 bits; then
    /// `clocks_calc_mult_shift(freq, NSEC_PER_SEC / scale, sec·scale)`; then `mult` halved (and `shift`
    /// decremented) until an 11% NTP adjustment (`clocksource_max_adjustment`) cannot overflow it.
    /// A rate that fits in `u32` is registered in Hz (`clocksource_register_hz`), a faster one in kHz as
    /// x86 registers the TSC (`clocksource_register_khz`, the rate rounded down to a kHz).
    pub fn clocksource(hz: u64) -> KernelScale {
        let (freq, scale) = hz_or_khz(hz);
        let mask = u64::MAX;
        let sec = match mask / freq as u64 / scale as u64 {
            0 => 1,
            s if s > MAXSEC_CAP as u64 && mask > u32::MAX as u64 => MAXSEC_CAP as u64,
            s => s,
        } as u32;
        let (mult, shift) = clocks_calc_mult_shift(freq, (NS_PER_S / scale as u64) as u32, sec * scale);
        let (mult, shift) = fit_ntp_adjustment(mult, shift);
        KernelScale { mult, shift, maxsec: sec }
    }

    /// ns→tick as `clockevents_config` sets it up for a device with a 64-bit delta (the TSC deadline
    /// timer): 600 s, then `clocks_calc_mult_shift(NSEC_PER_SEC, freq, 600)` (`clockevents_calc_mult_shift`).
    /// Rates above `u32::MAX` Hz are taken in kHz (`NSEC_PER_MSEC` → kHz), as for [`KernelScale::clocksource`].
    pub fn clockevent(hz: u64) -> KernelScale {
        let (freq, scale) = hz_or_khz(hz);
        let (mult, shift) = clocks_calc_mult_shift((NS_PER_S / scale as u64) as u32, freq, MAXSEC_CAP * scale);
        KernelScale { mult, shift, maxsec: MAXSEC_CAP }
    }

    /// `mul_u64_u32_shr(x, mult, shift)`.
    #[inline]
    pub fn apply(&self, x: u64) -> u64 {
        mul_u64_u32_shr(x, self.mult, self.shift)
    }
}

/// The loop of `__clocksource_update_freq_scale` after `clocks_calc_mult_shift`: halve `mult` (and
/// decrement `shift`) while `mult ± clocksource_max_adjustment(mult)` (11%) would wrap a `u32`.
fn fit_ntp_adjustment(mut mult: u32, mut shift: u32) -> (u32, u32) {
    let max_adjustment = |mult: u32| (mult as u64 * 11 / 100) as u32;
    while mult.checked_add(max_adjustment(mult)).is_none() || mult.checked_sub(max_adjustment(mult)).is_none() {
        mult >>= 1;
        shift -= 1;
    }
    (mult, shift)
}

/// `(freq, scale)`: the rate in Hz with scale 1 when it fits in 32 bits, else in kHz with scale 1000.
fn hz_or_khz(hz: u64) -> (u32, u32) {
    match u32::try_from(hz) {
        Ok(freq) => (freq, 1),
        Err(_) => ((hz / 1000).min(u32::MAX as u64) as u32, 1000),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected pairs from a line-by-line C transcription of the kernel's function (gcc, x86-64).
    /// 19.2 MHz → (0x34155555, 24) is the pair the kernel logs for the common ARM arch timer.
    #[test]
    fn mult_shift_agrees_with_the_kernel_algorithm() {
        // ((from, to, maxsec), (mult, shift))
        let cases = [
            ((1_000_000_000, 1_000_000_000, 600), (8_388_608, 23)),
            ((19_200_000, 1_000_000_000, 600), (0x3415_5555, 24)),
            ((3_000_000_000, 1_000_000_000, 600), (5_592_405, 24)),
            ((4_000_000_000, 1_000_000_000, 600), (2_097_152, 23)),
            ((2_995_234_567, 1_000_000_000, 600), (5_601_303, 24)),
            ((1_000_000_000, 3_000_000_000, 600), (12_582_912, 22)),
            ((1_000_000_000, 4_000_000_000, 600), (8_388_608, 21)),
            ((24_000_000, 1_000_000_000, 600), (699_050_667, 24)),
            ((1_193_182, 1_000_000_000, 3599), (3_515_225_674, 22)),
        ];
        for ((from, to, maxsec), expected) in cases {
            assert_eq!(clocks_calc_mult_shift(from, to, maxsec), expected, "from {from} to {to} maxsec {maxsec}");
        }
    }

    /// 32.768 kHz with a 1 s range gives mult 4e9 (shift 17), which an 11% adjustment would overflow:
    /// the clocksource set-up halves it.
    #[test]
    fn clocksource_halves_mult_that_cannot_take_an_ntp_adjustment() {
        assert_eq!(clocks_calc_mult_shift(32_768, 1_000_000_000, 1), (4_000_000_000, 17));
        assert_eq!(fit_ntp_adjustment(4_000_000_000, 17), (2_000_000_000, 16));
        assert_eq!(fit_ntp_adjustment(5_592_405, 24), (5_592_405, 24), "a small mult is left alone");
        let k = KernelScale::clocksource(3_000_000_000);
        assert_eq!((k.mult, k.shift, k.maxsec), (5_592_405, 24, 600));
    }

    #[test]
    fn rates_beyond_u32_are_taken_in_khz() {
        let k = KernelScale::clocksource(5_000_000_000);
        assert_eq!(k, {
            let (m, s) = clocks_calc_mult_shift(5_000_000, 1_000_000, 600_000);
            KernelScale { mult: m, shift: s, maxsec: 600 }
        });
        // 5 GHz: 1 s of ticks is 1e9 ns within the pair's rounding
        assert!(k.apply(5_000_000_000).abs_diff(1_000_000_000) < 100);
    }

    #[test]
    fn mul_u64_u32_shr_does_not_overflow() {
        assert_eq!(mul_u64_u32_shr(u64::MAX, 1 << 31, 31), u64::MAX);
        assert_eq!(mul_u64_u32_shr(3, 5_592_405, 24), 0);
        assert_eq!(mul_u64_u32_shr(3_000_000_000, 5_592_405, 24), 999_999_940);
    }
}
