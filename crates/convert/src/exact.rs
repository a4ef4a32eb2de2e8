//! The conversion factor, the two directions, and the exact reference routine.

/// Nanoseconds per second: the `num` of tick→ns and the `den` of ns→tick.
pub const NS_PER_S: u64 = 1_000_000_000;

/// Which way a conversion goes. Parameter values (and serialised as): `tick_to_ns`, `ns_to_tick`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Counter ticks to ns (Kiszka's `tsc_to_ns`, the kernel's clocksource direction).
    TickToNs,
    /// ns to counter ticks (Kiszka's `ns_to_tsc`, the kernel's clockevent direction).
    NsToTick,
}

impl Direction {
    /// Both directions, tick→ns first.
    pub const ALL: [Direction; 2] = [Direction::TickToNs, Direction::NsToTick];

    /// The parameter value: `tick_to_ns` or `ns_to_tick`.
    pub fn name(self) -> &'static str {
        match self {
            Direction::TickToNs => "tick_to_ns",
            Direction::NsToTick => "ns_to_tick",
        }
    }

    /// The direction named `name` (see [`Direction::name`]).
    pub fn parse(name: &str) -> Option<Direction> {
        Direction::ALL.into_iter().find(|d| d.name() == name)
    }

    /// Unit of the input: `"ticks"` or `"ns"`.
    pub fn input_unit(self) -> &'static str {
        match self {
            Direction::TickToNs => "ticks",
            Direction::NsToTick => "ns",
        }
    }

    /// Unit of the output, and so of a conversion error: `"ns"` or `"ticks"`.
    pub fn output_unit(self) -> &'static str {
        match self {
            Direction::TickToNs => "ns",
            Direction::NsToTick => "ticks",
        }
    }
}

/// A conversion factor: `output = input × num / den`. Both parts are non-zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ratio {
    pub num: u64,
    pub den: u64,
}

impl Ratio {
    /// The factor of `direction` for a counter of `hz` ticks per second (`hz` ≥ 1): `1e9 / hz` or
    /// `hz / 1e9`.
    ///
    /// # Panics
    /// When `hz` is 0: no counter has that rate, and every conversion would divide by it.
    pub fn new(direction: Direction, hz: u64) -> Ratio {
        assert!(hz > 0, "a counter rate of 0 Hz cannot be converted");
        match direction {
            Direction::TickToNs => Ratio { num: NS_PER_S, den: hz },
            Direction::NsToTick => Ratio { num: hz, den: NS_PER_S },
        }
    }

    /// The reference routine: `⌊x × num / den⌋` with a 128-bit product and a 128-bit division, exact for
    /// every `x` (the result may exceed `u64` when `num > den`).
    #[inline]
    pub fn exact(&self, x: u64) -> u128 {
        x as u128 * self.num as u128 / self.den as u128
    }

    /// The largest input whose exact result still fits in a `u64`.
    pub fn exact_fit_max(&self) -> u64 {
        // ⌊x·num/den⌋ ≤ u64::MAX ⇔ x·num < (u64::MAX + 1)·den ⇔ x ≤ ((2^64·den) − 1) / num.
        let limit = ((1u128 << 64) * self.den as u128 - 1) / self.num as u128;
        limit.min(u64::MAX as u128) as u64
    }

    /// `num / den` as a float (for display and the `f64` routine).
    pub fn as_f64(&self) -> f64 {
        self.num as f64 / self.den as f64
    }
}

/// The absolute difference of a routine's result and the exact one, in output units.
#[inline]
pub(super) fn abs_diff(value: u64, exact: u128) -> u128 {
    (value as u128).abs_diff(exact)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_is_the_floor_of_the_true_quotient() {
        let r = Ratio::new(Direction::TickToNs, 3_000_000_000);
        assert_eq!(r.exact(0), 0);
        assert_eq!(r.exact(2), 0); // 0.67 ns
        assert_eq!(r.exact(3), 1);
        assert_eq!(r.exact(u64::MAX), u64::MAX as u128 / 3);
        let r = Ratio::new(Direction::NsToTick, 3_000_000_000);
        assert_eq!(r.exact(u64::MAX), u64::MAX as u128 * 3, "the product must not wrap");
    }

    #[test]
    fn exact_fit_max_is_tight() {
        let r = Ratio::new(Direction::NsToTick, 4_000_000_000);
        let x = r.exact_fit_max();
        assert!(r.exact(x) <= u64::MAX as u128);
        assert!(r.exact(x + 1) > u64::MAX as u128);
        assert_eq!(Ratio::new(Direction::TickToNs, 4_000_000_000).exact_fit_max(), u64::MAX);
    }

    #[test]
    fn directions_round_trip_by_name() {
        for d in Direction::ALL {
            assert_eq!(Direction::parse(d.name()), Some(d));
        }
        assert_eq!(Direction::parse("sideways"), None);
    }
}
