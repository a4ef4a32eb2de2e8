//! The `clock.*` experiments: reading time and converting ticks (Kiszka 2006).

use overhead_convert::{Direction, Routine};
use std::collections::BTreeMap;

/// The experiment ID `clock.read`.
pub const READ: &str = "clock.read";

/// The experiment ID `clock.convert`.
pub const CONVERT: &str = "clock.convert";

/// The experiment ID `clock.rate`.
pub const RATE: &str = "clock.rate";

/// The experiment ID `clock.offset`.
pub const OFFSET: &str = "clock.offset";

/// Kiszka's benchmark for today: each routine converts a precomputed array of 64 varied inputs in a
/// loop (throughput of independent conversions, each result kept with `black_box`), against the same
/// loop returning its input unconverted, so the loop overhead is compensated as 002's numbers were.
/// The inputs are log-uniform over `[1, 2^32)` — short intervals, the hot-path domain of Kiszka's
/// timer scenarios and the one every routine, 32-bit ones included, can take. The costs of the
/// multiply-based routines do not depend on magnitude, with two exceptions: `exact`'s 128-bit division
/// takes a faster path when the dividend's high half is zero, so its cost here is a lower bound; and
/// `fast_path` ns→tick takes its two-multiply path for the few inputs above `2^64 / (hz/1e9 · 2^32)` ns
/// (1.07 s at 4 GHz), as a timer queue would for its longer timeouts.
///
/// Each point also searches the routine's worst error against `exact` (see
/// `overhead_convert::search`) for intervals up to 1 µs … 1 year at this machine's counter rate, 1 GHz
/// and 4 GHz: `details.tables["max_error"]` (found) and `["error_bound"]` (analytic), and the machine
/// `clock.convert`'s parameters.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct ConvertParams {
    pub routine: Routine,
    pub direction: Direction,
}

/// What a `clock.convert` point reports beside its median (its `extra`): the rate converted at, the
/// routine's constants and overflow point at that rate, quanta's own calibration, and the worst error per
/// range of [`RANGES`].
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ConvertResult {
    /// The counter rate the routine was prepared for: this machine's (Hz).
    pub hz: f64,
    /// The largest input the routine takes at this rate, when it has a limit.
    pub max_input: Option<f64>,
    /// The first input whose result overflows, when there is one.
    pub overflow_input: Option<f64>,
    /// That input in seconds.
    pub overflow_s: Option<f64>,
    /// The rate quanta calibrated for itself (quanta only, when it uses the TSC).
    pub quanta_implied_hz: Option<f64>,
    /// quanta's rate against the harness's (ppm; when both read the TSC).
    pub quanta_vs_harness_ppm: Option<f64>,
    /// The routine's own constants by name (`kernel_mult`, `llmulshft_shift`, …: each routine has its own) and
    /// the worst errors, `max_error_<unit>_<range>` ([`ConvertResult::max_error`]).
    #[serde(flatten)]
    pub by_name: BTreeMap<String, f64>,
}

impl ConvertResult {
    /// The name of a worst error in [`ConvertResult::by_name`]: `max_error_ns_1h` (tick→ns) or
    /// `max_error_ticks_1h` (ns→tick).
    pub fn max_error_name(direction: Direction, range_key: &str) -> String {
        format!("max_error_{}_{range_key}", direction.output_unit())
    }

    /// The worst error over the range `range_key` (e.g. `1h`, [`RANGES`]), in the direction's output unit.
    pub fn max_error(&self, direction: Direction, range_key: &str) -> Option<f64> {
        self.by_name.get(&Self::max_error_name(direction, range_key)).copied()
    }

    /// Sets [`ConvertResult::max_error`].
    pub fn set_max_error(&mut self, direction: Direction, range_key: &str, value: f64) {
        self.by_name.insert(Self::max_error_name(direction, range_key), value);
    }
}
