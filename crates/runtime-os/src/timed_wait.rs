//! Four ways for a kernel thread to sleep until a time (Kiszka's timer scenarios as Linux offers them),
//! each timing how late it woke: the mechanisms `timer.wakeup` measures.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::AtomicU32;

use anyhow::{bail, Context as _};

use super::futex::{self, FutexWait};
use overhead_clock::clock_gettime_ns;

/// How a thread asks to be woken. Parameter values: [`Mechanism::name`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mechanism {
    /// `clock_nanosleep(CLOCK_MONOTONIC, 0, interval)`: Kiszka 2006 scenario 2 (relative timer);
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
        let end = futex::wait_timeout(&word, 0, interval)?;
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

// The `mechanism` parameter of `timer.wakeup` points: serialised as its `name()`.
overhead_record::param_enum!(Mechanism);
