//! The counting hook: what the hot path would convert, counted only where counting is asked for.
//!
//! Kiszka 2006 compares time bases by the tick↔ns conversions each hot path needs. The queue reports every
//! conversion, every `program_timer` and every counter read to a [`HotPathCounter`]; the timed
//! configuration uses [`NoCount`], a zero-sized type whose methods are empty and inlined, so the timed
//! hot path carries no counter field and no counting instruction.

pub use overhead_schema::variants::timer_scenario::{Counts, COUNT_COLUMNS, COUNT_EXTRA_KEYS, SEED_TABLE_COLUMNS};

/// One tick↔ns conversion, by the kind Kiszka's summary tables count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conversion {
    /// Counter ticks to ns (002's `tsc -> ns`, `get_time()` in both time bases).
    TicksToNs,
    /// An absolute date in ns to ticks (002's `date: ns -> tsc [64-bit]`).
    NsToTicksDate,
    /// A relative delay or interval in ns to ticks (002's `delay: ns -> tsc [32-bit candidate]`: short
    /// spans fit 32 bits, where a division-free routine suffices).
    NsToTicksDelay,
}

/// Receives the queue's conversions, hardware-timer programmings and counter reads.
///
/// Implemented by [`NoCount`] (timed runs) and [`Counts`] (counting runs); `Default` gives a counter
/// at zero.
pub trait HotPathCounter: Default {
    /// One conversion of kind `c` was made.
    fn conversion(&mut self, c: Conversion);
    /// The one-shot hardware timer was programmed (002's `program_timer()`).
    fn programmed(&mut self);
    /// The counter was read (002's `get_tsc()`, also inside every `get_time()`).
    fn counter_read(&mut self);
}

/// The counter of timed runs: zero-sized, every method empty, so counting is compiled out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoCount;

impl HotPathCounter for NoCount {
    #[inline(always)]
    fn conversion(&mut self, _: Conversion) {}
    #[inline(always)]
    fn programmed(&mut self) {}
    #[inline(always)]
    fn counter_read(&mut self) {}
}

impl HotPathCounter for Counts {
    fn conversion(&mut self, c: Conversion) {
        match c {
            Conversion::TicksToNs => self.ticks_to_ns += 1,
            Conversion::NsToTicksDate => self.ns_to_ticks += 1,
            Conversion::NsToTicksDelay => {
                self.ns_to_ticks += 1;
                self.ns_to_ticks_32bit_candidates += 1;
            }
        }
    }
    fn programmed(&mut self) {
        self.hw_programs += 1;
    }
    fn counter_read(&mut self) {
        self.counter_reads += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_count_is_zero_sized_and_counts_add_up() {
        assert_eq!(std::mem::size_of::<NoCount>(), 0, "the timed configuration must carry no counter");
        let mut c = Counts::default();
        for k in [Conversion::TicksToNs, Conversion::NsToTicksDate, Conversion::NsToTicksDelay] {
            c.conversion(k);
        }
        c.programmed();
        c.counter_read();
        assert_eq!(c, Counts::new(1, 2, 1, 1, 1));
        assert_eq!(c.total(), 3);
        assert_eq!(c.times(3), Counts::new(3, 6, 3, 3, 3));
        assert!(c.same_conversions(&Counts::new(1, 2, 1, 0, 9)));
        assert!(!c.same_conversions(&Counts::new(1, 1, 1, 1, 1)));
    }
}
