//! `timer.wakeup`: how late a sleeping thread wakes, per timer mechanism, as a latency distribution
//! (cyclictest's measurement, for the timer uses of Kiszka's five scenarios).

use anyhow::bail;

use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point, KERNEL};
use overhead_harness::{Harness, HarnessConfig, Measurement, Mode};
use overhead_record::{Details, Metric};
use overhead_runtime_os::timed_wait::{collect, Mechanism, Wakeups};
use overhead_stats::{distribution, latency_histogram, percentile};

/// The wake-up interval of every point, µs: 1 ms, cyclictest's default `-i1000`.
pub const INTERVAL_US: u64 = 1_000;

/// Kiszka 2006 asks what timers cost on their hot paths; the user-visible end of that path is how late a
/// timed wait returns. Each point sleeps `wakeups_for(mode)` times for 1 ms on one mechanism, pinned,
/// and records latency = actual wake time − intended wake time, both on `CLOCK_MONOTONIC`, as cyclictest
/// does (no RT priority: the thread is an ordinary `SCHED_OTHER` one, so the task's timer slack applies
/// and is recorded as `timer_slack_ns`).
///
/// Results: the full distribution (HdrHistogram, 3 significant digits) in `details.distribution`; the
/// point's samples are the medians of R consecutive chunks of the wake-ups (R = the harness's
/// repetitions, so the Google Benchmark export keeps ≤ 101 entries), so the point's median is the
/// typical latency with a CI. There is no cheaper twin of a wake-up to subtract: the control samples
/// are zeros and the only fixed cost inside every latency is one clock read after the wake.
/// `extra`: `wakeups`, `interval_ns`, `overruns` (periods missed entirely), `early_wakeups` (latencies
/// below zero, recorded as 0: a kernel or clock fault), `timer_slack_ns`.
pub struct Wakeup;

/// What a `timer.wakeup` point reports beside its median (its `extra`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WakeupResult {
    /// Wake-ups timed.
    pub wakeups: f64,
    /// The period asked for (ns).
    pub interval_ns: f64,
    /// Periods that passed without a wake-up of their own.
    pub overruns: f64,
    /// Wake-ups before their intended time (recorded as 0 ns).
    pub early_wakeups: f64,
    /// The thread's timer slack (ns); absent when `prctl` refused to say.
    pub timer_slack_ns: Option<f64>,
}

impl Wakeup {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::timer::WAKEUP;
}

impl Experiment for Wakeup {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Wakeup::ID,
            summary: "wake-up latency distribution at 1 ms: clock_nanosleep relative/absolute, periodic timerfd, \
                      futex timeout",
            source: "Kiszka 2006 (scenarios 1-4: periodic, relative/absolute timer, relative timeout); cyclictest",
            metric: Metric::PerOp,
            requires: KERNEL,
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        Mechanism::ALL
            .iter()
            .map(|m| {
                let params = Params { mechanism: *m, interval_us: INTERVAL_US };
                Planned::Run(ctx.spec_of(self.id(), runtime, &params, vec![ctx.home_cpu()]))
            })
            .collect()
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let Params { mechanism, interval_us } = point.params()?;
        if !(1..=1_000_000).contains(&interval_us) {
            bail!("{}: interval_us {interval_us} is not in 1…1000000 µs", spec.name());
        }
        let interval_ns = interval_us as i64 * 1_000;
        let wakeups = collect(mechanism, interval_ns, h.config.warmup, wakeups_for(&h.config))?;
        Ok(outcome(&wakeups, interval_ns, h.config.repetitions))
    }
}

/// `timer.wakeup`'s parameters.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct Params {
    mechanism: Mechanism,
    /// The sleep or period, µs.
    interval_us: u64,
}

/// Wake-ups per process: quick ~100, default ~300, full ~3000 (0.1 s, 0.3 s, 3 s at 1 ms); a point gets
/// at least three processes.
pub fn wakeups_for(config: &HarnessConfig) -> usize {
    match config.mode {
        Mode::Quick => 100,
        Mode::Default => 300,
        Mode::Full => 3_000,
    }
}

/// The point's outcome from its wake-ups: chunk medians as samples, the distribution in the details.
fn outcome(wakeups: &Wakeups, interval_ns: i64, chunks: usize) -> Outcome {
    let latencies = &wakeups.latencies_ns;
    let early = latencies.iter().filter(|&&l| l < 0).count() as u64;
    let mut notes = Vec::new();
    if early > 0 {
        notes.push(format!("{early} wake-ups came before their intended time (recorded as 0 ns)"));
    }
    if wakeups.overruns > 0 {
        notes.push(format!("{} periods passed without a wake-up of their own", wakeups.overruns));
    }
    let slack = timer_slack_ns();
    let result = WakeupResult {
        wakeups: latencies.len() as f64,
        interval_ns: interval_ns as f64,
        overruns: wakeups.overruns as f64,
        early_wakeups: early as f64,
        timer_slack_ns: slack.is_finite().then_some(slack),
    };
    // CLOCK_MONOTONIC counts whole ns.
    latency_outcome(latencies, chunks, 1.0, notes).with_result(&result)
}

/// The outcome of a point that records one latency per event (ns; one below zero is recorded as 0): the
/// medians of `chunks` consecutive runs of them as its samples (so the point's median is the typical latency
/// with a CI over processes, and an export keeps few entries), zeros as the control (no cheaper twin of an
/// event to subtract), the distribution (HdrHistogram, 3 significant digits) in the details, `notes` as given.
/// `timer.wakeup` and `wake.handoff` use it.
pub fn latency_outcome(latencies_ns: &[i64], chunks: usize, resolution_ns: f64, notes: Vec<String>) -> Outcome {
    let mut hist = latency_histogram();
    for &latency in latencies_ns {
        hist.saturating_record(latency.max(0) as u64);
    }
    let samples = chunk_medians(latencies_ns, chunks);
    let measurement = Measurement {
        counts_per_op: None,
        batch_ops: (latencies_ns.len() / samples.len().max(1)) as u64,
        control_ns: vec![0.0; samples.len()],
        samples_ns: samples,
        per_thread_ns: Vec::new(),
        resolution_ns,
    };
    Outcome {
        measurement,
        notes,
        extra: Default::default(),
        details: Details { distribution: Some(distribution(&hist)), ..Default::default() },
    }
}

/// Medians (ns) of `chunks` consecutive, near-equal runs of `latencies` (sizes differ by at most one);
/// fewer when there are fewer latencies than chunks, none when there are none.
pub fn chunk_medians(latencies: &[i64], chunks: usize) -> Vec<f64> {
    let n = latencies.len();
    let chunks = chunks.clamp(1, n.max(1));
    if n == 0 {
        return Vec::new();
    }
    (0..chunks)
        .map(|c| {
            let mut part: Vec<f64> =
                latencies[c * n / chunks..(c + 1) * n / chunks].iter().map(|&x| x as f64).collect();
            part.sort_by(f64::total_cmp);
            percentile(&part, 0.5)
        })
        .collect()
}

/// This thread's timer slack (ns, `PR_GET_TIMERSLACK`): how late the kernel may fire a normal task's
/// sleep or timeout so it can coalesce timers (50 µs by default; 0 for real-time tasks). NaN if refused.
fn timer_slack_ns() -> f64 {
    // SAFETY: PR_GET_TIMERSLACK takes no pointer arguments and returns the slack.
    let slack = unsafe { libc::prctl(libc::PR_GET_TIMERSLACK, 0, 0, 0, 0) };
    if slack < 0 {
        f64::NAN
    } else {
        slack as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mechanism_gives_the_requested_count_of_late_wakeups() {
        for mechanism in Mechanism::ALL {
            // 0.2 ms periods: 2 + 20 wake-ups take under 10 ms each.
            let w = collect(mechanism, 200_000, 2, 20).unwrap();
            assert_eq!(w.latencies_ns.len(), 20, "{mechanism:?}");
            // The kernel never fires a CLOCK_MONOTONIC timer before its time, and a wake-up cannot be
            // later than the whole test (a loaded VM may delay one by milliseconds, not seconds).
            assert!(w.latencies_ns.iter().all(|&l| (0..2_000_000_000).contains(&l)), "{mechanism:?}: {w:?}");
            let o = outcome(&w, 200_000, 11);
            assert_eq!(o.details.distribution.as_ref().unwrap().count, 20);
            assert_eq!(o.measurement.samples_ns.len(), 11);
            assert_eq!(o.extra["wakeups"], 20.0);
            let params = overhead_record::params::encode(&Params { mechanism, interval_us: 200 });
            assert_eq!(params[0], ("mechanism".to_string(), mechanism.name().to_string()));
        }
    }

    #[test]
    fn chunk_medians_split_evenly() {
        let latencies: Vec<i64> = (0..10).collect();
        assert_eq!(chunk_medians(&latencies, 2), vec![2.0, 7.0]);
        assert_eq!(chunk_medians(&latencies, 3), vec![1.0, 4.0, 7.5]); // 0-2, 3-5, 6-9
        assert_eq!(chunk_medians(&latencies[..2], 5).len(), 2, "no more chunks than latencies");
        assert!(chunk_medians(&[], 5).is_empty());
    }

    #[test]
    fn samples_follow_the_mode() {
        assert_eq!(wakeups_for(&HarnessConfig::for_mode(Mode::Quick)), 100);
        assert_eq!(wakeups_for(&HarnessConfig::for_mode(Mode::Default)), 300);
        assert_eq!(wakeups_for(&HarnessConfig::for_mode(Mode::Full)), 3_000);
    }

    #[test]
    fn early_wakeups_are_counted_and_clamped() {
        let w = Wakeups { latencies_ns: vec![-5, 10, 20], overruns: 1 };
        let o = outcome(&w, 1_000_000, 3);
        assert_eq!(o.extra["early_wakeups"], 1.0);
        assert_eq!(o.details.distribution.unwrap().min_ns, 0.0);
        assert_eq!(o.notes.len(), 2, "{:?}", o.notes);
    }
}
