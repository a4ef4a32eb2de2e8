//! The counting hook: what the hot path would convert, counted only where counting is asked for.
//!
//! Kiszka 2006 compares time bases by the tick↔ns conversions each hot path needs. The queue reports every
//! conversion, every `program_timer` and every counter read to a [`HotPathCounter`]; the timed
//! configuration uses [`NoCount`], a zero-sized type whose methods are empty and inlined, so the timed
//! hot path carries no counter field and no counting instruction.

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

/// Column labels of Kiszka's summary tables (the first [`SEED_TABLE_COLUMNS`]), then the
/// `program_timer()` calls and counter reads of its pseudo-code: the order of [`Counts::columns`].
pub const COUNT_COLUMNS: [&str; 6] =
    ["total", "tsc->ns", "ns->tsc", "possible 32-bit ns->tsc", "program_timer", "counter reads"];

/// How many of [`COUNT_COLUMNS`] are 002's summary-table columns proper.
pub const SEED_TABLE_COLUMNS: usize = 4;

/// Keys under which a `timer.hotpath` point records its counts per operation in `extra`, in the order of
/// [`COUNT_COLUMNS`].
pub const COUNT_EXTRA_KEYS: [&str; 6] = [
    "conversions_per_op",
    "ticks_to_ns_per_op",
    "ns_to_ticks_per_op",
    "ns_to_ticks_32bit_candidates_per_op",
    "hw_programs_per_op",
    "counter_reads_per_op",
];

/// Conversions, programmings and counter reads counted, in the columns of Kiszka's summary tables
/// (plus `hw_programs` and `counter_reads`, which 002 shows in its pseudo-code but not in its tables).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// 002's "tsc->ns" column.
    pub ticks_to_ns: u64,
    /// 002's "ns->tsc" column: dates and delays.
    pub ns_to_ticks: u64,
    /// 002's "possible 32-bit ns->tsc" column: the delays among `ns_to_ticks`.
    pub ns_to_ticks_32bit_candidates: u64,
    /// Calls of `program_timer()` (one-shot hardware timer programmings).
    pub hw_programs: u64,
    /// Reads of the counter (`get_tsc()`, and the one inside each `get_time()`).
    pub counter_reads: u64,
}

impl Counts {
    /// A row: tsc->ns, ns->tsc, of which 32-bit candidates, program_timer calls, counter reads.
    pub const fn new(ticks_to_ns: u64, ns_to_ticks: u64, candidates: u64, hw_programs: u64, reads: u64) -> Counts {
        Counts { ticks_to_ns, ns_to_ticks, ns_to_ticks_32bit_candidates: candidates, hw_programs, counter_reads: reads }
    }

    /// 002's "total conversions" column: both directions.
    pub fn total(&self) -> u64 {
        self.ticks_to_ns + self.ns_to_ticks
    }

    /// The counts in the order of [`COUNT_COLUMNS`]: total, tsc->ns, ns->tsc, 32-bit candidates,
    /// programs, counter reads.
    pub fn columns(&self) -> [u64; 6] {
        [
            self.total(),
            self.ticks_to_ns,
            self.ns_to_ticks,
            self.ns_to_ticks_32bit_candidates,
            self.hw_programs,
            self.counter_reads,
        ]
    }

    /// True when the conversion counts (002's summary-table columns) agree, whatever the rest.
    pub fn same_conversions(&self, other: &Counts) -> bool {
        self.columns()[..SEED_TABLE_COLUMNS] == other.columns()[..SEED_TABLE_COLUMNS]
    }

    /// Every count multiplied by `k`: what `k` operations of a per-operation row add up to.
    pub fn times(&self, k: u64) -> Counts {
        Counts::new(
            self.ticks_to_ns * k,
            self.ns_to_ticks * k,
            self.ns_to_ticks_32bit_candidates * k,
            self.hw_programs * k,
            self.counter_reads * k,
        )
    }
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
