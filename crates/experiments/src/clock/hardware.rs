//! The hardware counter `clock.offset` and `clock.rate` examine, whatever the run times its batches with:
//! the TSC on x86-64 (`lfence; rdtsc`, no rdtscp needed), the virtual counter on aarch64, and
//! `clock_gettime(CLOCK_MONOTONIC_RAW)` elsewhere (whose cross-CPU consistency is then what is seen).

use std::time::Duration;

use overhead_clock::{measure_span, Clock, TimeSourceKind};
use overhead_harness::Harness;

/// The counter this architecture has.
pub const KIND: TimeSourceKind = if cfg!(target_arch = "x86_64") {
    TimeSourceKind::Tsc
} else if cfg!(target_arch = "aarch64") {
    TimeSourceKind::Cntvct
} else {
    TimeSourceKind::ClockMonotonicRaw
};

/// The hardware counter with its rate: the run's own calibration when the run times with it, otherwise
/// a 20 ms calibration against `CLOCK_MONOTONIC_RAW` on the calling thread (`--time-source clock`).
pub fn counter_clock(h: &Harness) -> Clock {
    if h.clock.kind == KIND {
        return h.clock;
    }
    if KIND == TimeSourceKind::ClockMonotonicRaw {
        return Clock::MONOTONIC_RAW;
    }
    let raw = Clock { kind: KIND, hz: 1e9 };
    let (hz, _error_ppm) = measure_span(&raw, Duration::from_millis(20));
    Clock { kind: KIND, hz }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_clock::{calibrate, Calibration};
    use overhead_harness::{HarnessConfig, Mode};

    #[test]
    fn the_counter_has_a_rate_even_when_the_run_times_with_clock_gettime() {
        let time = calibrate(true, Calibration::DEFAULT);
        let h = Harness::new(&time, HarnessConfig::for_mode(Mode::Quick));
        let clock = counter_clock(&h);
        assert_eq!(clock.kind, KIND);
        assert!(clock.hz > 1e6, "{clock:?}");
        let (a, b) = (clock.start(), clock.start());
        assert!(b >= a);
    }
}
