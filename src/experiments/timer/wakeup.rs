//! `timer.wakeup`: how late a sleeping thread wakes, per timer mechanism, as a latency distribution
//! (cyclictest's measurement, for the timer uses of seed 002's five scenarios).

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::AtomicU32;

use anyhow::{bail, Context as _};

use crate::clock::clock_gettime_ns;
use crate::experiments::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, KERNEL};
use crate::harness::{Harness, HarnessConfig, Measurement, Mode};
use crate::record::{Details, Metric, PointSpec};
use crate::stats::{distribution, latency_histogram, percentile};

/// The wake-up interval of every point, µs: 1 ms, cyclictest's default `-i1000`.
pub const INTERVAL_US: u64 = 1_000;

/// How a thread asks to be woken. Parameter values: [`Mechanism::name`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mechanism {
    /// `clock_nanosleep(CLOCK_MONOTONIC, 0, interval)`: seed 002 scenario 2 (relative timer);
    /// `cyclictest -r`. Intended wake time: the clock read just before the call + interval.
    NanosleepRelative,
    /// `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next)` with `next` advancing by the interval:
    /// scenario 4 (absolute timer); cyclictest's default mode. Intended: `next`.
    NanosleepAbsolute,
    /// A `timerfd` armed once with a period, each wake-up a blocking `read`: scenario 1 (periodic timer,
    /// whose hot path is the timer interrupt alone). Intended: first expiry + (expiries − 1) × period.
    TimerfdPeriodic,
    /// `FUTEX_WAIT` on a word nobody changes, with a relative timeout that expires: scenario 3
    /// (relative timeout) in the rare case it fires. Intended: the clock read before the call + timeout.
    FutexTimeout,
}

impl Mechanism {
    /// Every mechanism, in the order a run takes them.
    pub const ALL: [Mechanism; 4] = [
        Mechanism::NanosleepRelative,
        Mechanism::NanosleepAbsolute,
        Mechanism::TimerfdPeriodic,
        Mechanism::FutexTimeout,
    ];

    /// The parameter value, e.g. `clock_nanosleep_relative`.
    pub fn name(self) -> &'static str {
        match self {
            Mechanism::NanosleepRelative => "clock_nanosleep_relative",
            Mechanism::NanosleepAbsolute => "clock_nanosleep_absolute",
            Mechanism::TimerfdPeriodic => "timerfd_periodic",
            Mechanism::FutexTimeout => "futex_timeout",
        }
    }
}

/// Seed 002 asks what timers cost on their hot paths; the user-visible end of that path is how late a
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

impl Experiment for Wakeup {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: "timer.wakeup",
            summary: "wake-up latency distribution at 1 ms: clock_nanosleep relative/absolute, periodic timerfd, \
                      futex timeout",
            source: "seed 002 (scenarios 1-4: periodic, relative/absolute timer, relative timeout); cyclictest",
            metric: Metric::PerOp,
            requires: KERNEL,
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &str) -> Vec<Planned> {
        Mechanism::ALL
            .iter()
            .map(|m| {
                let params = Params { mechanism: *m, interval_us: INTERVAL_US };
                Planned::Run(ctx.spec_of(self.id(), runtime, &params, vec![ctx.home_cpu()]))
            })
            .collect()
    }
    fn run(&self, spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
        let Params { mechanism, interval_us } = spec.params_as()?;
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

crate::record::params::param_enum!(Mechanism);

/// Wake-ups per process: quick ~100, default ~300, full ~3000 (0.1 s, 0.3 s, 3 s at 1 ms); a point gets
/// at least three processes.
pub fn wakeups_for(config: &HarnessConfig) -> usize {
    match config.mode {
        Mode::Quick => 100,
        Mode::Default => 300,
        Mode::Full => 3_000,
    }
}

/// Latencies of one mechanism's wake-ups, in the order taken.
#[derive(Debug, Clone, PartialEq)]
pub struct Wakeups {
    /// Actual − intended wake time on `CLOCK_MONOTONIC`, ns (negative: woke early).
    pub latencies_ns: Vec<i64>,
    /// Periods that passed without a wake-up of their own (absolute and periodic mechanisms).
    pub overruns: u64,
}

/// Sleeps `warmup + count` times for `interval_ns` on `mechanism` and keeps the last `count` latencies.
/// Interrupted waits (EINTR) and spurious futex returns are retried, not counted.
///
/// Errors: the system call failed (named in the message), e.g. `timerfd_create` refused.
pub fn collect(mechanism: Mechanism, interval_ns: i64, warmup: usize, count: usize) -> anyhow::Result<Wakeups> {
    let total = warmup + count;
    // Allocated once here: the wake-up loops below only push within this capacity.
    let mut latencies = Vec::with_capacity(total);
    let overruns = match mechanism {
        Mechanism::NanosleepRelative => nanosleep_relative(interval_ns, total, &mut latencies)?,
        Mechanism::NanosleepAbsolute => nanosleep_absolute(interval_ns, total, &mut latencies)?,
        Mechanism::TimerfdPeriodic => timerfd_periodic(interval_ns, total, &mut latencies)?,
        Mechanism::FutexTimeout => futex_timeouts(interval_ns, total, &mut latencies)?,
    };
    latencies.drain(..warmup.min(latencies.len()));
    Ok(Wakeups { latencies_ns: latencies, overruns })
}

/// `CLOCK_MONOTONIC` now, ns.
#[inline(always)]
fn now() -> i64 {
    clock_gettime_ns(libc::CLOCK_MONOTONIC) as i64
}

fn timespec(ns: i64) -> libc::timespec {
    libc::timespec { tv_sec: (ns / 1_000_000_000) as libc::time_t, tv_nsec: (ns % 1_000_000_000) as libc::c_long }
}

fn nanosleep_relative(interval: i64, total: usize, out: &mut Vec<i64>) -> anyhow::Result<u64> {
    let ts = timespec(interval);
    while out.len() < total {
        let start = now();
        // SAFETY: `ts` is a valid timespec for the call; a null remainder pointer is allowed.
        let rc = unsafe { libc::clock_nanosleep(libc::CLOCK_MONOTONIC, 0, &ts, std::ptr::null_mut()) };
        let woke = now();
        match rc {
            0 => out.push(woke - (start + interval)),
            libc::EINTR => {}
            e => return Err(std::io::Error::from_raw_os_error(e)).context("clock_nanosleep (relative)"),
        }
    }
    Ok(0)
}

fn nanosleep_absolute(interval: i64, total: usize, out: &mut Vec<i64>) -> anyhow::Result<u64> {
    let mut overruns = 0;
    let mut next = now() + interval;
    while out.len() < total {
        let ts = timespec(next);
        // SAFETY: as above; with TIMER_ABSTIME `ts` is the absolute wake time.
        let rc =
            unsafe { libc::clock_nanosleep(libc::CLOCK_MONOTONIC, libc::TIMER_ABSTIME, &ts, std::ptr::null_mut()) };
        let woke = now();
        match rc {
            0 => {}
            libc::EINTR => continue,
            e => return Err(std::io::Error::from_raw_os_error(e)).context("clock_nanosleep (TIMER_ABSTIME)"),
        }
        out.push(woke - next);
        next += interval;
        // A wake-up later than a whole period skips the periods already past, as cyclictest does, so
        // one late wake-up is not followed by a burst of immediate ones.
        while next <= woke {
            next += interval;
            overruns += 1;
        }
    }
    Ok(overruns)
}

fn timerfd_periodic(interval: i64, total: usize, out: &mut Vec<i64>) -> anyhow::Result<u64> {
    // SAFETY: a plain system call; the result is checked before use.
    let raw = unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_CLOEXEC) };
    if raw < 0 {
        return Err(std::io::Error::last_os_error()).context("timerfd_create(CLOCK_MONOTONIC)");
    }
    // SAFETY: `raw` is a fresh descriptor that nothing else owns; OwnedFd closes it once.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    let first = now() + interval;
    let spec = libc::itimerspec { it_interval: timespec(interval), it_value: timespec(first) };
    // SAFETY: `spec` is valid for the call; a null old-value pointer is allowed.
    let rc = unsafe { libc::timerfd_settime(fd.as_raw_fd(), libc::TFD_TIMER_ABSTIME, &spec, std::ptr::null_mut()) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error()).context("timerfd_settime");
    }
    let (mut expiries, mut overruns) = (0i64, 0u64);
    while out.len() < total {
        let mut fired = 0u64;
        // SAFETY: reads at most 8 bytes into `fired`, a live, writable u64.
        let n = unsafe { libc::read(fd.as_raw_fd(), (&mut fired as *mut u64).cast(), 8) };
        let woke = now();
        if n != 8 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e).context("read(timerfd)");
        }
        // The read returns how many periods expired since the last one; the latency is measured from
        // the latest of them.
        expiries += fired as i64;
        overruns += fired.saturating_sub(1);
        out.push(woke - (first + (expiries - 1) * interval));
    }
    Ok(overruns)
}

fn futex_timeouts(interval: i64, total: usize, out: &mut Vec<i64>) -> anyhow::Result<u64> {
    let word = AtomicU32::new(0);
    while out.len() < total {
        let start = now();
        let end = futex_wait_timeout(&word, 0, interval)?;
        let woke = now();
        match end {
            FutexWait::TimedOut => out.push(woke - (start + interval)),
            // A spurious or interrupted return is no timer event: wait again.
            FutexWait::Woken | FutexWait::Interrupted => {}
            FutexWait::ValueDiffered => bail!("futex word changed although nothing writes it"),
        }
    }
    Ok(0)
}

/// How a [`futex_wait_timeout`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FutexWait {
    /// The timeout expired (ETIMEDOUT): the case `timer.wakeup` measures.
    TimedOut,
    /// Returned 0: woken by FUTEX_WAKE, or spuriously.
    Woken,
    /// A signal interrupted the wait (EINTR).
    Interrupted,
    /// The word did not hold `expected` (EAGAIN).
    ValueDiffered,
}

/// `FUTEX_WAIT_PRIVATE` on `word` while it holds `expected`, for at most `timeout_ns` (relative, measured
/// on `CLOCK_MONOTONIC` by the kernel).
///
/// Errors: any other errno (EINVAL for a bad timeout, ENOSYS), with the call named.
pub fn futex_wait_timeout(word: &AtomicU32, expected: u32, timeout_ns: i64) -> anyhow::Result<FutexWait> {
    let ts = timespec(timeout_ns);
    // SAFETY: `word` is a live, aligned u32 for the whole call and `ts` a valid timespec.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
            expected,
            &ts as *const libc::timespec,
        )
    };
    if rc == 0 {
        return Ok(FutexWait::Woken);
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::ETIMEDOUT) => Ok(FutexWait::TimedOut),
        Some(libc::EINTR) => Ok(FutexWait::Interrupted),
        Some(libc::EAGAIN) => Ok(FutexWait::ValueDiffered),
        _ => Err(e).context("futex(FUTEX_WAIT_PRIVATE) with timeout"),
    }
}

/// The point's outcome from its wake-ups: chunk medians as samples, the distribution in the details.
fn outcome(wakeups: &Wakeups, interval_ns: i64, chunks: usize) -> Outcome {
    let latencies = &wakeups.latencies_ns;
    let mut hist = latency_histogram();
    let mut early = 0u64;
    for &latency in latencies {
        early += u64::from(latency < 0);
        hist.saturating_record(latency.max(0) as u64);
    }
    let samples = chunk_medians(latencies, chunks);
    let mut notes = Vec::new();
    if early > 0 {
        notes.push(format!("{early} wake-ups came before their intended time (recorded as 0 ns)"));
    }
    if wakeups.overruns > 0 {
        notes.push(format!("{} periods passed without a wake-up of their own", wakeups.overruns));
    }
    let extra = [
        ("wakeups".to_string(), latencies.len() as f64),
        ("interval_ns".to_string(), interval_ns as f64),
        ("overruns".to_string(), wakeups.overruns as f64),
        ("early_wakeups".to_string(), early as f64),
        ("timer_slack_ns".to_string(), timer_slack_ns()),
    ]
    .into_iter()
    .filter(|(_, v)| v.is_finite()) // JSON has no NaN: a refused prctl leaves the slack out
    .collect();
    let measurement = Measurement {
        batch_ops: (latencies.len() / samples.len().max(1)) as u64,
        control_ns: vec![0.0; samples.len()],
        samples_ns: samples,
        per_thread_ns: Vec::new(),
        // CLOCK_MONOTONIC counts whole ns.
        resolution_ns: 1.0,
    };
    Outcome {
        measurement,
        notes,
        extra,
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
            let params = crate::record::params::encode(&Params { mechanism, interval_us: 200 });
            assert_eq!(params[0], ("mechanism".to_string(), mechanism.name().to_string()));
        }
    }

    #[test]
    fn futex_wait_times_out_after_its_timeout() {
        let word = AtomicU32::new(7);
        let start = now();
        assert_eq!(futex_wait_timeout(&word, 7, 2_000_000).unwrap(), FutexWait::TimedOut);
        assert!(now() - start >= 2_000_000, "returned before the 2 ms timeout");
        // A word that differs returns at once instead of sleeping.
        assert_eq!(futex_wait_timeout(&word, 8, 1_000_000_000).unwrap(), FutexWait::ValueDiffered);
        assert!(futex_wait_timeout(&word, 7, -1).is_err(), "a negative timeout is EINVAL");
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
