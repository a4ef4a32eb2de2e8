//! The two time bases Kiszka 2006 compares: dates kept in counter ticks ("TSC-based") or in ns
//! ("ns-based"). The user-facing API takes ns in both; the hardware timer takes ticks in both. What
//! differs is where the conversions fall, which is what 002 counts.

use super::count::{Conversion, HotPathCounter};
use super::source::TickSource;
use overhead_convert::Converter;

/// The counter, its converter and the counting hook: everything that reads or converts time.
///
/// Every conversion goes through here so that none escapes the count.
#[derive(Debug, Clone)]
pub struct TimeKeeper<S, C> {
    conv: Converter,
    source: S,
    counter: C,
}

impl<S: TickSource, C: HotPathCounter> TimeKeeper<S, C> {
    /// Time read from `source`, converted by `conv`, conversions reported to `counter`.
    pub fn new(conv: Converter, source: S, counter: C) -> TimeKeeper<S, C> {
        TimeKeeper { conv, source, counter }
    }

    /// 002's `get_tsc()`: the counter, ticks (one counter read, no conversion).
    #[inline(always)]
    pub fn ticks(&mut self) -> u64 {
        self.counter.counter_read();
        self.source.now()
    }

    /// 002's `get_time()`: the counter in ns (one counter read, one ticks→ns conversion).
    #[inline(always)]
    pub fn now_ns(&mut self) -> u64 {
        let ticks = self.ticks();
        self.counter.conversion(Conversion::TicksToNs);
        self.conv.ticks_to_ns(ticks)
    }

    /// An absolute date in ns as ticks (one 64-bit ns→ticks conversion), plus one tick so that a timer due at
    /// that tick is never due before its ns date (the converter gives the exact floor or one more), and at
    /// most two ticks after it.
    #[inline(always)]
    pub fn date_to_ticks(&mut self, date_ns: u64) -> u64 {
        self.counter.conversion(Conversion::NsToTicksDate);
        self.conv.ns_to_ticks(date_ns).saturating_add(1)
    }

    /// A relative delay in ns as ticks (one ns→ticks conversion, a 32-bit candidate), rounded down as
    /// 002's relative starts are.
    #[inline(always)]
    pub fn delay_to_ticks(&mut self, delay_ns: u64) -> u64 {
        self.counter.conversion(Conversion::NsToTicksDelay);
        self.conv.ns_to_ticks(delay_ns)
    }

    /// The counting hook.
    pub fn counter(&self) -> &C {
        &self.counter
    }

    /// The counting hook, to reset it between set-up and the operations counted.
    pub fn counter_mut(&mut self) -> &mut C {
        &mut self.counter
    }

    /// The counter the time is read from.
    pub fn source(&self) -> &S {
        &self.source
    }

    /// The converter, for callers (tests, reports) that need a date in the other unit uncounted.
    pub fn converter(&self) -> &Converter {
        &self.conv
    }
}

/// A time base: the unit the queue keeps its dates in. Sealed: [`TickBase`] and [`NsBase`] are 002's two.
///
/// Each method is one step of 002's pseudo-code, with the conversion it costs in this base.
pub trait TimeBase: sealed::Sealed {
    /// The base as a parameter value: `"tsc"` or `"ns"`.
    const NAME: &'static str;
    /// The current date in this base: `get_tsc()` (tick base) or `get_time()` (ns base).
    fn now<S: TickSource, C: HotPathCounter>(t: &mut TimeKeeper<S, C>) -> u64;
    /// A relative delay or interval given in ns, in this base.
    fn delay_from_ns<S: TickSource, C: HotPathCounter>(t: &mut TimeKeeper<S, C>, delay_ns: u64) -> u64;
    /// An absolute date given in ns (of `get_time()`), in this base.
    fn date_from_ns<S: TickSource, C: HotPathCounter>(t: &mut TimeKeeper<S, C>, date_ns: u64) -> u64;
    /// A date of this base as ticks, for the hardware timer (002's `program_timer(date)`).
    fn date_to_ticks<S: TickSource, C: HotPathCounter>(t: &mut TimeKeeper<S, C>, date: u64) -> u64;
}

/// Dates in counter ticks (002's "TSC-based"; the virtual counter on aarch64).
#[derive(Debug, Clone, Copy)]
pub enum TickBase {}

/// Dates in ns of `get_time()` (002's "ns-based").
#[derive(Debug, Clone, Copy)]
pub enum NsBase {}

impl TimeBase for TickBase {
    const NAME: &'static str = "tsc";
    #[inline(always)]
    fn now<S: TickSource, C: HotPathCounter>(t: &mut TimeKeeper<S, C>) -> u64 {
        t.ticks()
    }
    #[inline(always)]
    fn delay_from_ns<S: TickSource, C: HotPathCounter>(t: &mut TimeKeeper<S, C>, delay_ns: u64) -> u64 {
        t.delay_to_ticks(delay_ns)
    }
    #[inline(always)]
    fn date_from_ns<S: TickSource, C: HotPathCounter>(t: &mut TimeKeeper<S, C>, date_ns: u64) -> u64 {
        t.date_to_ticks(date_ns)
    }
    #[inline(always)]
    fn date_to_ticks<S: TickSource, C: HotPathCounter>(_: &mut TimeKeeper<S, C>, date: u64) -> u64 {
        date
    }
}

impl TimeBase for NsBase {
    const NAME: &'static str = "ns";
    #[inline(always)]
    fn now<S: TickSource, C: HotPathCounter>(t: &mut TimeKeeper<S, C>) -> u64 {
        t.now_ns()
    }
    #[inline(always)]
    fn delay_from_ns<S: TickSource, C: HotPathCounter>(_: &mut TimeKeeper<S, C>, delay_ns: u64) -> u64 {
        delay_ns
    }
    #[inline(always)]
    fn date_from_ns<S: TickSource, C: HotPathCounter>(_: &mut TimeKeeper<S, C>, date_ns: u64) -> u64 {
        date_ns
    }
    #[inline(always)]
    fn date_to_ticks<S: TickSource, C: HotPathCounter>(t: &mut TimeKeeper<S, C>, date: u64) -> u64 {
        t.date_to_ticks(date)
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::TickBase {}
    impl Sealed for super::NsBase {}
}

#[cfg(test)]
mod tests {
    use super::super::{Counts, ManualClock};
    use super::*;

    /// A date rounded up to ticks is never due before its ns date, for any rate and date.
    #[test]
    fn date_to_ticks_never_early() {
        for hz in [1_000_000_000u64, 2_899_999_999, 3_000_000_000, 24_000_000, 1_999_999_999_999] {
            let mut t = TimeKeeper::new(Converter::new(hz), ManualClock::new(0, 0), Counts::default());
            for date in [0u64, 1, 7, 999, 1_000_000_007, 1 << 40, (1 << 50) + 3] {
                let ticks = t.date_to_ticks(date);
                assert!(t.converter().ticks_to_ns(ticks) >= date, "hz {hz} date {date} -> {ticks}");
                // The converter may round ns→ticks up by one, and the date adds one: at most two ticks late.
                let exact_floor = (u128::from(date) * u128::from(hz) / 1_000_000_000) as u64;
                assert!(ticks <= exact_floor + 2, "hz {hz} date {date} -> {ticks}: late (floor {exact_floor})");
            }
        }
    }

    #[test]
    fn each_base_converts_where_002_says() {
        let mut t = TimeKeeper::new(Converter::new(3_000_000_000), ManualClock::new(3_000, 0), Counts::default());
        assert_eq!(TickBase::now(&mut t), 3_000);
        assert_eq!(TickBase::delay_from_ns(&mut t, 10), 30);
        assert_eq!(TickBase::date_to_ticks(&mut t, 77), 77);
        assert_eq!(*t.counter(), Counts::new(0, 1, 1, 0, 1));
        assert_eq!(NsBase::now(&mut t), 1_000);
        assert_eq!(NsBase::delay_from_ns(&mut t, 10), 10);
        assert_eq!(NsBase::date_from_ns(&mut t, 10), 10);
        assert_eq!(NsBase::date_to_ticks(&mut t, 1_000), 3_001);
        assert_eq!(*t.counter(), Counts::new(1, 2, 1, 0, 2));
    }
}
