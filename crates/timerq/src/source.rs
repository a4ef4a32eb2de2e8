//! Where the queue reads the time: the free-running counter (002's `get_tsc()`), or a clock a test
//! sets by hand.

use std::cell::Cell;

/// A free-running counter in ticks, read on the hot path (002's `get_tsc()`).
pub trait TickSource {
    /// The current count, ticks.
    fn now(&self) -> u64;
}

/// The x86-64 time-stamp counter, read with a plain `rdtsc` as Xenomai's `rthal_rdtsc` does: no fence,
/// because a timer hot path wants the time, not an ordering point for a measurement.
#[cfg(target_arch = "x86_64")]
#[derive(Debug, Clone, Copy, Default)]
pub struct Rdtsc;

#[cfg(target_arch = "x86_64")]
impl TickSource for Rdtsc {
    #[inline(always)]
    fn now(&self) -> u64 {
        // SAFETY: rdtsc exists on every x86-64 CPU and touches no memory (tested below: it advances).
        unsafe { core::arch::x86_64::_rdtsc() }
    }
}

/// The aarch64 virtual counter `cntvct_el0` (what Linux's vDSO reads).
#[cfg(target_arch = "aarch64")]
#[derive(Debug, Clone, Copy, Default)]
pub struct Cntvct;

#[cfg(target_arch = "aarch64")]
impl TickSource for Cntvct {
    #[inline(always)]
    fn now(&self) -> u64 {
        overhead_clock::Counter::cntvct()
    }
}

/// `clock_gettime(CLOCK_MONOTONIC_RAW)` as a 1 GHz counter, for machines without a usable hardware
/// counter (or `--time-source clock`): its "ticks" are ns, so conversions are exact but still computed.
#[derive(Debug, Clone, Copy, Default)]
pub struct MonotonicRaw;

impl TickSource for MonotonicRaw {
    #[inline(always)]
    fn now(&self) -> u64 {
        overhead_clock::clock_gettime_ns(libc::CLOCK_MONOTONIC_RAW)
    }
}

/// A counter a test drives: it reads `now`, then moves forward by `step` ticks (0: only [`ManualClock::set`]
/// moves it), so a test can stand still at a date or let every read see a later time.
#[derive(Debug, Clone, Default)]
pub struct ManualClock {
    now: Cell<u64>,
    step: u64,
}

impl ManualClock {
    /// A clock at `start` ticks that advances `step` ticks after every read.
    pub fn new(start: u64, step: u64) -> ManualClock {
        ManualClock { now: Cell::new(start), step }
    }

    /// Moves the clock to `ticks`. Panics: `ticks` is earlier than the clock (counters do not go back).
    pub fn set(&self, ticks: u64) {
        assert!(ticks >= self.now.get(), "ManualClock::set: {ticks} is before the current {}", self.now.get());
        self.now.set(ticks);
    }

    /// The value the next read returns, without advancing.
    pub fn peek(&self) -> u64 {
        self.now.get()
    }
}

impl TickSource for ManualClock {
    fn now(&self) -> u64 {
        let t = self.now.get();
        self.now.set(t + self.step);
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Catches a wrong intrinsic or a read that returns garbage: the counter moves forward.
    #[test]
    fn hardware_sources_advance() {
        let sleep = || std::thread::sleep(std::time::Duration::from_millis(2));
        #[cfg(target_arch = "x86_64")]
        {
            let a = Rdtsc.now();
            sleep();
            assert!(Rdtsc.now() > a);
        }
        #[cfg(target_arch = "aarch64")]
        {
            let a = Cntvct.now();
            sleep();
            assert!(Cntvct.now() > a);
        }
        let a = MonotonicRaw.now();
        sleep();
        assert!(MonotonicRaw.now() >= a + 2_000_000);
    }

    #[test]
    fn manual_clock_steps_and_sets() {
        let c = ManualClock::new(10, 3);
        assert_eq!((c.now(), c.now(), c.peek()), (10, 13, 16));
        c.set(100);
        assert_eq!(c.now(), 100);
    }
}
