//! The machine's speed around a point: one fixed reference loop, timed just before and just after each
//! point's measurement, so that a report can tell which points ran while the CPU was slower than usual.
//!
//! Why: on a shared machine (a VM whose SMT sibling another tenant uses, a host that changes frequency) a
//! tight loop can run at half speed for seconds at a time. A point's own CI cannot show that, because all its
//! batches ran in the same state; two cells measured minutes apart can then differ by up to 2× for no reason
//! of their own (seen on the 2-vCPU AMD EPYC guest of the issue 3 note: the empty loop took 0.27 ns per
//! iteration in some points and 0.52 ns in others of one run). pyperf and nanobench warn about unstable
//! machines in the same spirit; here the probe is cheap enough (about 1 ms) to run around every point.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use super::Harness;

/// Iterations per timed batch of the reference loop: ~60 µs at 0.3 ns, far above the clock's resolution.
const ITERATIONS: u64 = 200_000;

/// Timed batches per probe; the median is kept, so one preempted batch does not count.
const BATCHES: usize = 9;

/// How much slower than the run's usual speed a point's reference loop must be to flag the point `slow`:
/// 1.25 means 25% slower than the 10th percentile of the run's reference times.
pub const SLOW_FACTOR: f64 = 1.25;

/// The key of a point's `extra` value holding the reference loop's ns per iteration just before its measurement.
pub const BEFORE: &str = "reference_loop_ns_before";

/// The key of a point's `extra` value holding the reference loop's ns per iteration just after its measurement.
pub const AFTER: &str = "reference_loop_ns_after";

/// A point whose measurement ran slow (see [`SLOW_FACTOR`]) is measured a second time if the first took at most
/// this long, and the attempt the reference loop found faster is kept.
pub const RETRY_WITHIN: Duration = Duration::from_secs(2);

/// Second attempts may take at most this share of a run's time so far (plus [`RETRY_ALLOWANCE`]): on a machine
/// that is slow half the time, retrying every slow point made a run up to 60% longer (measured on the issue 3
/// note's VM), which this caps at about a fifth.
pub const RETRY_SHARE: f64 = 0.2;

/// Retry time allowed before the run has any time to take a share of (ms).
pub const RETRY_ALLOWANCE_MS: f64 = 5_000.0;

/// The key of a point's `extra` value holding how long (ms) its second attempt took (0 when measured once).
pub const RETRIED: &str = "retry_ms";

/// Whether the next point may measure twice: the retries so far (ms, from the points' [`RETRIED`] values) are
/// within [`RETRY_SHARE`] of the run's elapsed time plus [`RETRY_ALLOWANCE_MS`].
pub fn retry_allowed(retried_ms: f64, run_elapsed: Duration) -> bool {
    retried_ms < RETRY_ALLOWANCE_MS + RETRY_SHARE * run_elapsed.as_secs_f64() * 1e3
}

/// The key of a point's `extra` value holding how long (ms) the probe waited for the usual speed before measuring.
pub const WAITED: &str = "reference_wait_ms";

/// The longest a probe waits for the machine to return to its usual speed before measuring anyway.
pub const MAX_WAIT: Duration = Duration::from_millis(300);

/// Every reference time (ns per iteration) in these points' `extra` values, before and after each: the run's
/// usual speed is taken from all of them, so that a point whose probe before or after caught a slow spell does
/// not hide the fast state.
pub fn every_probe<'a>(extras: impl IntoIterator<Item = &'a BTreeMap<String, f64>>) -> Vec<f64> {
    extras.into_iter().flat_map(|extra| [BEFORE, AFTER].into_iter().filter_map(|k| extra.get(k).copied())).collect()
}

/// Times the reference loop until it runs within [`SLOW_FACTOR`] of `usual` (the run's usual ns per iteration, if
/// known) or [`MAX_WAIT`] has passed, and returns the last time with the wait in ms. A measurement started in a
/// slow spell (a busy SMT sibling, a lowered frequency) would read high for reasons of its own; a slow spell
/// usually passes within a few hundred ms on the machines this was seen on. Without `usual` it times once.
pub fn wait_for_usual_speed(h: &Harness, usual: Option<f64>) -> (f64, f64) {
    let start = Instant::now();
    loop {
        let now = reference_loop_ns(h);
        let fast_enough = usual.is_none_or(|u| now < SLOW_FACTOR * u);
        if fast_enough || start.elapsed() >= MAX_WAIT {
            return (now, start.elapsed().as_secs_f64() * 1e3);
        }
    }
}

/// The slower of a point's two reference times (ns per iteration), if the record has them (older records do
/// not).
pub fn point_reference_ns(extra: &BTreeMap<String, f64>) -> Option<f64> {
    match (extra.get(BEFORE), extra.get(AFTER)) {
        (Some(&b), Some(&a)) => Some(b.max(a)),
        (b, a) => b.or(a).copied(),
    }
}

/// The run's usual speed: the 10th percentile of its points' reference times (ns per iteration), so that a run
/// spent mostly in the slow state still measures against its fast one. `None` without reference times.
pub fn usual_reference_ns(references: &[f64]) -> Option<f64> {
    let mut sorted: Vec<f64> = references.iter().copied().filter(|x| x.is_finite() && *x > 0.0).collect();
    sorted.sort_by(f64::total_cmp);
    (!sorted.is_empty()).then(|| sorted[sorted.len() / 10])
}

/// The reference loop: `n` iterations that only keep their index alive, the same body as the control most
/// points subtract (`experiments::empty_loop`). Never inlined, so every probe in every build times the very same
/// machine code, and its speed depends only on the machine's state.
#[inline(never)]
fn reference_loop(n: u64) {
    for i in 0..n {
        std::hint::black_box(i);
    }
}

/// Times the reference loop on the calling thread: the median over [`BATCHES`] batches of ns per iteration.
pub fn reference_loop_ns(h: &Harness) -> f64 {
    reference_loop(ITERATIONS / 10); // warm the code and the branch predictor
    let mut per_iteration: Vec<f64> = (0..BATCHES)
        .map(|_| {
            let t0 = h.clock.start();
            reference_loop(ITERATIONS);
            let t1 = h.clock.stop();
            h.clock.ticks_to_ns(t1.wrapping_sub(t0) as f64) / ITERATIONS as f64
        })
        .collect();
    per_iteration.sort_by(f64::total_cmp);
    per_iteration[BATCHES / 2]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{calibrate, Calibration};
    use crate::harness::{HarnessConfig, Mode};

    #[test]
    fn usual_speed_is_the_fast_state_and_a_point_counts_its_slower_probe() {
        let mut refs = vec![0.52; 12];
        refs.extend([0.27, 0.28, 0.27, 0.30]);
        assert_eq!(usual_reference_ns(&refs), Some(0.27), "10th percentile of 16 values: the second fastest");
        assert_eq!(usual_reference_ns(&[f64::NAN]), None);
        let extra = [(BEFORE.to_string(), 0.27), (AFTER.to_string(), 0.5)].into();
        assert_eq!(point_reference_ns(&extra), Some(0.5));
        assert_eq!(point_reference_ns(&Default::default()), None);
    }

    #[test]
    fn waiting_ends_at_once_when_fast_enough_and_after_the_limit_when_not() {
        let time = calibrate(false, Calibration { span: Duration::from_millis(10), spans: 1 });
        let h = Harness::new(&time, HarnessConfig::for_mode(Mode::Quick));
        let (_, waited) = wait_for_usual_speed(&h, None);
        assert!(waited < MAX_WAIT.as_secs_f64() * 1e3, "no usual speed: one timing, no waiting ({waited} ms)");
        let (_, waited) = wait_for_usual_speed(&h, Some(1e9));
        assert!(waited < MAX_WAIT.as_secs_f64() * 1e3, "any speed beats 1 s per iteration ({waited} ms)");
        // No loop iteration takes 1 fs: it waits the whole limit, then measures anyway.
        let (now, waited) = wait_for_usual_speed(&h, Some(1e-6));
        assert!(waited >= MAX_WAIT.as_secs_f64() * 1e3 && now > 0.0, "{waited} ms");
    }

    #[test]
    fn the_retry_budget_grows_with_the_run() {
        assert!(retry_allowed(0.0, Duration::ZERO));
        assert!(!retry_allowed(RETRY_ALLOWANCE_MS, Duration::ZERO));
        // After 100 s, 20 s of retries beyond the allowance are allowed, not more.
        assert!(retry_allowed(RETRY_ALLOWANCE_MS + 19_999.0, Duration::from_secs(100)));
        assert!(!retry_allowed(RETRY_ALLOWANCE_MS + 20_000.0, Duration::from_secs(100)));
    }

    #[test]
    fn the_reference_loop_costs_a_positive_fraction_of_a_microsecond_per_iteration() {
        let time = calibrate(false, Calibration { span: Duration::from_millis(10), spans: 1 });
        let h = Harness::new(&time, HarnessConfig::for_mode(Mode::Quick));
        let ns = reference_loop_ns(&h);
        // An iteration is a few cycles; even a debug build on a loaded VM stays far below 1 µs.
        assert!(ns > 0.0 && ns < 1_000.0, "{ns} ns per iteration");
    }
}
