//! The counting hook: what the hot path would convert, counted only where counting is asked for.
//!
//! Seed 002 compares time bases by the tick↔ns conversions each hot path needs. The queue reports every
//! conversion and every `program_timer` to a [`HotPathCounter`]; the timed configuration uses
//! [`NoCount`], a zero-sized type whose methods are empty and inlined, so the timed hot path carries no
//! counter field and no counting instruction.

/// One tick↔ns conversion, by the kind seed 002's summary tables count.
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

/// Receives the queue's conversions and hardware-timer programmings.
///
/// Implemented by [`NoCount`] (timed runs) and [`Counts`] (counting runs); `Default` gives a counter
/// at zero.
pub trait HotPathCounter: Default {
    /// One conversion of kind `c` was made.
    fn conversion(&mut self, c: Conversion);
    /// The one-shot hardware timer was programmed (002's `program_timer()`).
    fn programmed(&mut self);
}

/// The counter of timed runs: zero-sized, every method empty, so counting is compiled out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoCount;

impl HotPathCounter for NoCount {
    #[inline(always)]
    fn conversion(&mut self, _: Conversion) {}
    #[inline(always)]
    fn programmed(&mut self) {}
}

/// Column labels of seed 002's summary tables, plus the `program_timer()` calls: the order of
/// [`Counts::columns`].
pub const COUNT_COLUMNS: [&str; 5] = ["total", "tsc->ns", "ns->tsc", "possible 32-bit ns->tsc", "program_timer"];

/// Keys under which a `timer.hotpath` point records its counts per operation in `extra`, in the order of
/// [`COUNT_COLUMNS`].
pub const COUNT_EXTRA_KEYS: [&str; 5] = [
    "conversions_per_op",
    "ticks_to_ns_per_op",
    "ns_to_ticks_per_op",
    "ns_to_ticks_32bit_candidates_per_op",
    "hw_programs_per_op",
];

/// Conversions and programmings counted, in the columns of seed 002's summary tables (plus
/// `hw_programs`, which 002 shows in its pseudo-code but not in its tables).
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
}

impl Counts {
    /// A row of counts: tsc->ns, ns->tsc, of which 32-bit candidates, and program_timer calls.
    pub const fn new(ticks_to_ns: u64, ns_to_ticks: u64, candidates: u64, hw_programs: u64) -> Counts {
        Counts { ticks_to_ns, ns_to_ticks, ns_to_ticks_32bit_candidates: candidates, hw_programs }
    }

    /// 002's "total conversions" column: both directions.
    pub fn total(&self) -> u64 {
        self.ticks_to_ns + self.ns_to_ticks
    }

    /// The counts in the order of [`COUNT_COLUMNS`]: total, tsc->ns, ns->tsc, 32-bit candidates, programs.
    pub fn columns(&self) -> [u64; 5] {
        [self.total(), self.ticks_to_ns, self.ns_to_ticks, self.ns_to_ticks_32bit_candidates, self.hw_programs]
    }

    /// Every count multiplied by `k`: what `k` operations of a per-operation row add up to.
    pub fn times(&self, k: u64) -> Counts {
        Counts::new(
            self.ticks_to_ns * k,
            self.ns_to_ticks * k,
            self.ns_to_ticks_32bit_candidates * k,
            self.hw_programs * k,
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
        assert_eq!(c, Counts::new(1, 2, 1, 1));
        assert_eq!(c.total(), 3);
        assert_eq!(c.times(3), Counts::new(3, 6, 3, 3));
    }
}
