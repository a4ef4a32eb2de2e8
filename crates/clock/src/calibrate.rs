//! Choosing the time source and calibrating its rate against `CLOCK_MONOTONIC_RAW`.

use std::time::Duration;

use super::counter::clock_gettime_ns;
use super::source::{Clock, TimeSourceInfo, TimeSourceKind};

/// Calibration settings: how long each span is and how many spans are taken.
#[derive(Debug, Clone, Copy)]
pub struct Calibration {
    /// Length of one calibration span.
    pub span: Duration,
    /// Number of spans; the rate is their median and the spread enters the error.
    pub spans: usize,
}

impl Calibration {
    /// Three 50 ms spans: about 0.15 s, giving a few ppm on an undisturbed machine.
    pub const DEFAULT: Calibration = Calibration { span: Duration::from_millis(50), spans: 3 };
}

/// One simultaneous reading of the counter and CLOCK_MONOTONIC_RAW: the counter value at the midpoint
/// of the two counter reads that bracket the clock_gettime call, and half their distance (the
/// uncertainty of the pairing), all in ticks.
struct Pairing {
    ticks: f64,
    ns: u64,
    half_width: f64,
}

/// The tightest of 32 bracketed readings, so a preemption between the reads does not widen the pairing.
fn pair(clock: &Clock) -> Pairing {
    let mut best: Option<Pairing> = None;
    for _ in 0..32 {
        let t0 = clock.start();
        let ns = clock_gettime_ns(libc::CLOCK_MONOTONIC_RAW);
        let t1 = clock.stop();
        let half_width = t1.saturating_sub(t0) as f64 / 2.0;
        if best.as_ref().is_none_or(|b| half_width < b.half_width) {
            best = Some(Pairing { ticks: t0 as f64 + half_width, ns, half_width });
        }
    }
    best.expect("32 readings were taken")
}

/// Rate of `clock` in Hz and its uncertainty in ppm over one span (busy-waits for the span so the CPU
/// stays awake and on the same core). The rate is measured on the calling thread's CPU, so `clock.rate`
/// uses it per CPU.
pub fn measure_span(clock: &Clock, span: Duration) -> (f64, f64) {
    let a = pair(clock);
    let until = a.ns + span.as_nanos() as u64;
    while clock_gettime_ns(libc::CLOCK_MONOTONIC_RAW) < until {
        std::hint::spin_loop();
    }
    let b = pair(clock);
    let ticks = b.ticks - a.ticks;
    let ns = (b.ns - a.ns) as f64;
    let hz = ticks * 1e9 / ns;
    // Pairing uncertainty on both ends plus clock_gettime's 1 ns quantum on both ends.
    let error_ppm = ((a.half_width + b.half_width) / ticks + 2.0 / ns) * 1e6;
    (hz, error_ppm)
}

/// Decides which counter to use, calibrates it, and measures its read cost and resolution.
///
/// `force_clock_gettime` selects CLOCK_MONOTONIC_RAW even when a usable counter exists (the user's
/// `--time-source clock`). The TSC is used only when CPUID reports it invariant and rdtscp exists: a TSC
/// that changes rate with P-states or stops in C-states would make ticks mean different times.
pub fn calibrate(force_clock_gettime: bool, settings: Calibration) -> TimeSourceInfo {
    let (candidate, reason) = choose(force_clock_gettime);
    let (clock, calibration_error_ppm) = match candidate {
        TimeSourceKind::ClockMonotonicRaw => (Clock::MONOTONIC_RAW, 0.0),
        kind => {
            let raw = Clock { kind, hz: 1e9 };
            let mut rates: Vec<(f64, f64)> =
                (0..settings.spans.max(1)).map(|_| measure_span(&raw, settings.span)).collect();
            rates.sort_by(|x, y| x.0.total_cmp(&y.0));
            let (hz, quantum_ppm) = rates[rates.len() / 2];
            let spread_ppm = (rates[rates.len() - 1].0 - rates[0].0) / hz * 1e6 / 2.0;
            (Clock { kind, hz }, quantum_ppm.max(spread_ppm))
        }
    };
    let (read_cost_ns, resolution_ns) = read_cost_and_resolution(&clock);
    TimeSourceInfo { clock, reason, calibration_error_ppm, read_cost_ns, resolution_ns }
}

fn choose(force_clock_gettime: bool) -> (TimeSourceKind, String) {
    if force_clock_gettime {
        return (TimeSourceKind::ClockMonotonicRaw, "requested with --time-source clock".into());
    }
    #[cfg(target_arch = "x86_64")]
    {
        let cpuid = raw_cpuid::CpuId::new();
        let invariant = cpuid.get_advanced_power_mgmt_info().is_some_and(|p| p.has_invariant_tsc());
        let rdtscp = cpuid.get_extended_processor_and_feature_identifiers().is_some_and(|f| f.has_rdtscp());
        if invariant && rdtscp {
            return (TimeSourceKind::Tsc, "invariant TSC (CPUID 0x80000007 EDX[8]) with rdtscp".into());
        }
        let why = if invariant { "CPU lacks rdtscp" } else { "TSC not reported invariant by CPUID" };
        (TimeSourceKind::ClockMonotonicRaw, format!("{why}; using clock_gettime"))
    }
    #[cfg(target_arch = "aarch64")]
    {
        (TimeSourceKind::Cntvct, "aarch64 virtual counter".into())
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        (TimeSourceKind::ClockMonotonicRaw, "no counter support for this architecture".into())
    }
}

/// Median cost of one `start()` read (11 runs of 4096 reads) and the smallest non-zero step between
/// consecutive reads, both in ns.
fn read_cost_and_resolution(clock: &Clock) -> (f64, f64) {
    const READS: usize = 4096;
    let mut costs = Vec::with_capacity(11);
    let mut min_step = u64::MAX;
    for _ in 0..11 {
        let first = clock.start();
        let mut prev = first;
        for _ in 0..READS {
            let now = clock.start();
            let step = now.wrapping_sub(prev);
            if step > 0 && step < min_step {
                min_step = step;
            }
            prev = now;
        }
        costs.push((prev - first) as f64 / READS as f64);
    }
    costs.sort_by(f64::total_cmp);
    (clock.ticks_to_ns(costs[costs.len() / 2]), clock.ticks_to_ns(min_step as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibrated_rate_agrees_with_monotonic_raw_over_a_sleep() {
        let info = calibrate(false, Calibration { span: Duration::from_millis(20), spans: 3 });
        assert!(info.clock.hz > 1e6, "{info:?}");
        assert!(info.read_cost_ns > 0.0 && info.resolution_ns > 0.0);
        // Independent check: ticks over a 30 ms sleep, converted, match the kernel clock within 1%
        // (generous: a loaded VM can preempt between the paired reads).
        let (t0, n0) = (info.clock.start(), clock_gettime_ns(libc::CLOCK_MONOTONIC_RAW));
        std::thread::sleep(Duration::from_millis(30));
        let (t1, n1) = (info.clock.stop(), clock_gettime_ns(libc::CLOCK_MONOTONIC_RAW));
        let measured = info.clock.ticks_to_ns((t1 - t0) as f64);
        let reference = (n1 - n0) as f64;
        assert!((measured / reference - 1.0).abs() < 0.01, "{measured} vs {reference}");
    }

    #[test]
    fn forced_clock_gettime_needs_no_calibration() {
        let info = calibrate(true, Calibration::DEFAULT);
        assert_eq!(info.clock.kind, TimeSourceKind::ClockMonotonicRaw);
        assert_eq!(info.calibration_error_ppm, 0.0);
        assert!(info.reason.contains("requested"));
    }
}
