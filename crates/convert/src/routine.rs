//! The routines by name, and a routine bound to a direction and a rate with what is known of its
//! range and error.

use super::exact::abs_diff;
use super::{Converter, Direction, F64Scale, Imuldiv, KernelScale, Llmulshft, Naive, Ratio, U32Frac};

/// A conversion routine, by its `routine` parameter value (see the module table); serialised as that value
/// ([`Routine::name`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Routine {
    /// `exact`: [`Ratio::exact`].
    Exact,
    /// `naive`: [`Naive`].
    Naive,
    /// `kernel`: [`KernelScale`].
    Kernel,
    /// `llmulshft`: [`Llmulshft`].
    Llmulshft,
    /// `nodiv_llimd`: [`U32Frac::nodiv_llimd`].
    NodivLlimd,
    /// `imuldiv`: [`Imuldiv`].
    Imuldiv,
    /// `nodiv_imuldiv`: [`U32Frac::nodiv_imuldiv`].
    NodivImuldiv,
    /// `fast_path`: [`Converter`].
    FastPath,
    /// `f64`: [`F64Scale`].
    F64,
    /// `quanta`: [`super::QuantaPeer`] (no rate can be given to it, so it has no [`Prepared`] form).
    Quanta,
}

impl Routine {
    /// Every routine, in the order points and report rows take them.
    pub const ALL: [Routine; 10] = [
        Routine::Exact,
        Routine::Naive,
        Routine::Kernel,
        Routine::Llmulshft,
        Routine::NodivLlimd,
        Routine::Imuldiv,
        Routine::NodivImuldiv,
        Routine::FastPath,
        Routine::F64,
        Routine::Quanta,
    ];

    /// The parameter value.
    pub fn name(self) -> &'static str {
        match self {
            Routine::Exact => "exact",
            Routine::Naive => "naive",
            Routine::Kernel => "kernel",
            Routine::Llmulshft => "llmulshft",
            Routine::NodivLlimd => "nodiv_llimd",
            Routine::Imuldiv => "imuldiv",
            Routine::NodivImuldiv => "nodiv_imuldiv",
            Routine::FastPath => "fast_path",
            Routine::F64 => "f64",
            Routine::Quanta => "quanta",
        }
    }

    /// The routine named `name`.
    pub fn parse(name: &str) -> Option<Routine> {
        Routine::ALL.into_iter().find(|r| r.name() == name)
    }

    /// One line: what the routine computes.
    pub fn summary(self) -> &'static str {
        match self {
            Routine::Exact => "128-bit multiply and divide (the reference)",
            Routine::Naive => "64-bit multiply then divide; wraps past its overflow point",
            Routine::Kernel => "Linux clocks_calc_mult_shift (600 s range) + mul_u64_u32_shr",
            Routine::Llmulshft => "Xenomai llmulshft: (x × m) >> s, 31-bit truncated factor",
            Routine::NodivLlimd => "Xenomai nodiv_llimd: high half of x × 32.64 fraction, no division",
            Routine::Imuldiv => "Xenomai imuldiv: 32-bit input and result, 64/32 divide",
            Routine::NodivImuldiv => "Xenomai nodiv_imuldiv: 32-bit input and result, no division",
            Routine::FastPath => "Kiszka's dispatch (Converter): one multiply for short inputs, two above",
            Routine::F64 => "one f64 multiply, truncated",
            Routine::Quanta => "quanta::Clock::delta_as_nanos at quanta's own calibrated rate",
        }
    }

    /// Why the routine has no conversion in `direction`, when it has none.
    pub fn unsupported(self, direction: Direction) -> Option<&'static str> {
        match (self, direction) {
            (Routine::Quanta, Direction::NsToTick) => Some("quanta exposes no ns→tick conversion"),
            _ => None,
        }
    }

    /// True for the routines whose input is a 32-bit `unsigned` (ranges past `u32::MAX` do not apply).
    pub fn is_32_bit(self) -> bool {
        matches!(self, Routine::Imuldiv | Routine::NodivImuldiv)
    }
}

/// A routine's constants for one direction and rate, one variant per [`Routine`] but `quanta`; a timed
/// loop matches on it once and calls the routine's own inlined function.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Imp {
    /// The ratio of the [`Prepared`] is all it needs.
    Exact,
    Naive(Naive),
    Kernel(KernelScale),
    Llmulshft(Llmulshft),
    /// Applied with [`U32Frac::nodiv_llimd`].
    NodivLlimd(U32Frac),
    Imuldiv(Imuldiv),
    /// Applied with [`U32Frac::nodiv_imuldiv`].
    NodivImuldiv(U32Frac),
    /// Both directions; the [`Prepared`]'s direction picks the method.
    FastPath(Converter),
    F64(F64Scale),
}

/// A routine set up for `direction` at `hz`: apply it, and ask how far it is right.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prepared {
    pub routine: Routine,
    pub direction: Direction,
    pub hz: u64,
    pub ratio: Ratio,
    pub imp: Imp,
}

impl Prepared {
    /// `routine` for `direction` at `hz` (≥ 1).
    ///
    /// Errors: the routine cannot be set up for this rate (Xenomai's 32-bit factors above 4.29 GHz), or
    /// cannot be given a rate at all (`quanta`).
    pub fn new(routine: Routine, direction: Direction, hz: u64) -> Result<Prepared, String> {
        if hz == 0 {
            return Err("a counter rate of 0 Hz cannot be converted".into());
        }
        let ratio = Ratio::new(direction, hz);
        let imp = match routine {
            Routine::Exact => Imp::Exact,
            Routine::Naive => Imp::Naive(Naive::new(ratio)),
            Routine::Kernel => Imp::Kernel(KernelScale::new(direction, hz)),
            Routine::Llmulshft => Imp::Llmulshft(Llmulshft::new(ratio)?),
            Routine::NodivLlimd => Imp::NodivLlimd(U32Frac::new(ratio)?),
            Routine::Imuldiv => Imp::Imuldiv(Imuldiv::new(ratio)?),
            Routine::NodivImuldiv => Imp::NodivImuldiv(U32Frac::new(ratio)?),
            Routine::FastPath => Imp::FastPath(Converter::new(hz)),
            Routine::F64 => Imp::F64(F64Scale::new(ratio)),
            Routine::Quanta => return Err("quanta calibrates its own rate and cannot be given one".into()),
        };
        Ok(Prepared { routine, direction, hz, ratio, imp })
    }

    /// The routine's result for input `x` (for search and tests; timed loops call the `Imp` directly).
    pub fn apply(&self, x: u64) -> u64 {
        match &self.imp {
            Imp::Exact => self.ratio.exact(x) as u64,
            Imp::Naive(n) => n.apply(x),
            Imp::Kernel(k) => k.apply(x),
            Imp::Llmulshft(l) => l.apply(x),
            Imp::NodivLlimd(f) => f.nodiv_llimd(x),
            Imp::Imuldiv(i) => i.apply(x),
            Imp::NodivImuldiv(f) => f.nodiv_imuldiv(x),
            Imp::FastPath(c) => match self.direction {
                Direction::TickToNs => c.ticks_to_ns(x),
                Direction::NsToTick => c.ns_to_ticks(x),
            },
            Imp::F64(f) => f.apply(x),
        }
    }

    /// `|apply(x) − exact(x)|` in output units.
    pub fn error_at(&self, x: u64) -> u128 {
        abs_diff(self.apply(x), self.ratio.exact(x))
    }

    /// The largest input the routine takes by its type: `u32::MAX` for the 32-bit routines, `i64::MAX`
    /// for `llmulshft` (a `long long`), `u64::MAX` for the others.
    pub fn max_input(&self) -> u64 {
        match self.imp {
            Imp::Imuldiv(_) | Imp::NodivImuldiv(_) => u32::MAX as u64,
            Imp::Llmulshft(_) => i64::MAX as u64,
            _ => u64::MAX,
        }
    }

    /// The largest input whose result is still within [`Prepared::error_bound`]: past it an
    /// intermediate or the result overflows (or the exact result no longer fits in `u64`).
    pub fn domain_max(&self) -> u64 {
        let fit = self.ratio.exact_fit_max().min(self.max_input());
        let u32_result = || ((1u128 << 32) * self.ratio.den as u128 - 1) / self.ratio.num as u128;
        let scaled_fit =
            |mult: u64, shift: u32| ((((1u128 << 64) << shift) - 1) / mult.max(1) as u128).min(u64::MAX as u128) as u64;
        match self.imp {
            Imp::Naive(n) => fit.min(n.overflow_point()),
            Imp::Imuldiv(_) | Imp::NodivImuldiv(_) => (fit as u128).min(u32_result()) as u64,
            Imp::Kernel(k) => fit.min(scaled_fit(k.mult as u64, k.shift)),
            Imp::Llmulshft(l) => fit.min(scaled_fit(l.mult as u64, l.shift)),
            _ => fit,
        }
    }

    /// The first input that overflows, when the routine overflows before the exact result leaves `u64`
    /// and within the inputs it takes (`naive`'s product, the 32-bit routines' result).
    pub fn overflow_input(&self) -> Option<u64> {
        let d = self.domain_max();
        (d < self.max_input() && d < self.ratio.exact_fit_max()).then(|| d + 1)
    }

    /// An upper bound of the error (output units) over every input in `[0, x_max]`, from the routine's
    /// arithmetic; `None` when `x_max` is past [`Prepared::domain_max`] (overflow: no bound).
    ///
    /// Division routines: 0 (`exact`, `naive`, `imuldiv`). Fraction routines: 1 (`nodiv_*`: the truncated
    /// fraction loses less than one unit, Xenomai's rounding add gains less than one; `fast_path`: the
    /// rounded-up fraction gains less than one). Scaled routines (`kernel`, `llmulshft`): `⌊x_max·|m/2^s −
    /// num/den|⌋ + 1`. `f64`: see [`F64Scale::error_bound`].
    pub fn error_bound(&self, x_max: u64) -> Option<u128> {
        if x_max > self.domain_max() {
            return None;
        }
        Some(match self.imp {
            Imp::Exact | Imp::Naive(_) | Imp::Imuldiv(_) => 0,
            Imp::NodivLlimd(_) | Imp::NodivImuldiv(_) | Imp::FastPath(_) => 1,
            Imp::Kernel(k) => scaled_bound(k.mult as u64, k.shift, self.ratio, x_max),
            Imp::Llmulshft(l) => scaled_bound(l.mult as u64, l.shift, self.ratio, x_max),
            Imp::F64(f) => f.error_bound(x_max),
        })
    }

    /// The routine's set-up constants, for the record (`kernel_mult`, `kernel_shift`, …).
    pub fn constants(&self) -> Vec<(&'static str, f64)> {
        match self.imp {
            Imp::Kernel(k) => {
                vec![
                    ("kernel_mult", k.mult as f64),
                    ("kernel_shift", k.shift as f64),
                    ("kernel_maxsec", k.maxsec as f64),
                ]
            }
            Imp::Llmulshft(l) => vec![("llmulshft_mult", l.mult as f64), ("llmulshft_shift", l.shift as f64)],
            Imp::NodivLlimd(f) | Imp::NodivImuldiv(f) => {
                vec![("frac_integ", f.integ as f64), ("frac_frac", f.frac as f64)]
            }
            _ => Vec::new(),
        }
    }
}

/// `⌊x_max·|mult/2^shift − num/den|⌋ + 1`, rounded up: the two floors of values that differ by `δ` differ
/// by at most `⌊δ⌋ + 1`, and `δ` grows linearly with the input.
fn scaled_bound(mult: u64, shift: u32, ratio: Ratio, x_max: u64) -> u128 {
    // |mult·den − num·2^shift| / (den·2^shift), exactly in integers, then scaled in f64 with margin.
    let a = mult as u128 * ratio.den as u128;
    let b = (ratio.num as u128) << shift;
    let per_unit = a.abs_diff(b) as f64 / (ratio.den as f64 * 2f64.powi(shift as i32));
    (x_max as f64 * per_unit * (1.0 + 1e-12)).floor() as u128 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    const RATES: [u64; 4] = [24_000_000, 1_000_000_000, 2_995_234_567, 4_000_000_000];

    /// Every routine against exact on the edge values the brief names: 0, 1, u32::MAX, u64::MAX/2 and
    /// the routine's own overflow point; within its analytic bound inside its domain, and past the
    /// bound just after the overflow point.
    #[test]
    fn every_routine_within_its_bound_on_edge_values() {
        for routine in Routine::ALL {
            for direction in Direction::ALL {
                for hz in RATES {
                    let Ok(p) = Prepared::new(routine, direction, hz) else {
                        assert!(routine == Routine::Quanta, "{routine:?} could not be set up at {hz} Hz");
                        continue;
                    };
                    let edges = [0, 1, u32::MAX as u64, u64::MAX / 2, p.domain_max()];
                    for x in edges.into_iter().filter(|&x| x <= p.domain_max()) {
                        let bound = p.error_bound(x).expect("inside the domain");
                        let err = p.error_at(x);
                        assert!(err <= bound, "{routine:?} {direction:?} {hz} Hz x={x}: error {err} > bound {bound}");
                    }
                    if let Some(over) = p.overflow_input() {
                        let bound = p.error_bound(over - 1).unwrap();
                        assert!(
                            p.error_at(over) > bound,
                            "{routine:?} {direction:?} {hz} Hz: no overflow at its overflow point {over}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn overflow_points_are_where_the_arithmetic_says() {
        let naive = Prepared::new(Routine::Naive, Direction::TickToNs, 3_000_000_000).unwrap();
        assert_eq!(naive.overflow_input(), Some(u64::MAX / 1_000_000_000 + 1));
        // ns→tick at 4 GHz: 32-bit results overflow at 2^32 ticks = 2^30 ns.
        let imuldiv = Prepared::new(Routine::Imuldiv, Direction::NsToTick, 4_000_000_000).unwrap();
        assert_eq!(imuldiv.overflow_input(), Some(1 << 30));
        // tick→ns at 4 GHz: the result is a quarter of the input, so only the input type limits it.
        let imuldiv = Prepared::new(Routine::Imuldiv, Direction::TickToNs, 4_000_000_000).unwrap();
        assert_eq!((imuldiv.overflow_input(), imuldiv.domain_max()), (None, u32::MAX as u64));
        let fast = Prepared::new(Routine::FastPath, Direction::TickToNs, 3_000_000_000).unwrap();
        assert_eq!(fast.overflow_input(), None);
    }

    #[test]
    fn names_round_trip_and_quanta_is_tick_to_ns_only() {
        for r in Routine::ALL {
            assert_eq!(Routine::parse(r.name()), Some(r));
        }
        assert!(Routine::Quanta.unsupported(Direction::NsToTick).is_some());
        assert!(Routine::Quanta.unsupported(Direction::TickToNs).is_none());
        assert!(Prepared::new(Routine::Quanta, Direction::TickToNs, 1_000_000_000).is_err());
        assert!(Prepared::new(Routine::Llmulshft, Direction::TickToNs, 5_000_000_000).is_err());
    }
}
