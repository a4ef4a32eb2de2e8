//! Our own timer queue, generic over the time base, for Kiszka's question (Xenomai-core, "ns vs. tsc as
//! internal timer base", July 2006): should a real-time timer subsystem keep its dates in counter ticks or in
//! ns? Kiszka counts the tick↔ns conversions each of five timer scenarios needs on its hot path in either
//! base; `timer.hotpath` counts them on a working queue and times the same paths.
//!
//! A crate of its own because it is a system under test, like the runtimes: it depends on the clock and the
//! record's parameter macro only, the experiment drives it, and the report reads what the experiment recorded.
//!
//! - [`TimerQueue`]: relative and absolute start, stop, and the tick handler of a one-shot hardware
//!   timer in ticks (fires due timers in date order, re-arms periodic ones, programs the next event).
//! - [`TickBase`] / [`NsBase`]: the two time bases ([`TimeBase`]).
//! - [`HotPathCounter`]: the counting hook; [`NoCount`] (zero-sized, timed runs) or [`Counts`].
//! - [`TickSource`]: the counter read on the hot path ([`MonotonicRaw`], the x86-64 TSC, the aarch64
//!   virtual counter) or a [`ManualClock`] for tests.
//! - [`Scenario`], [`Workload`], [`count_per_op`]: Kiszka's five scenarios and his summary tables.

mod base;
mod count;
mod heap;
mod queue;
mod scenario;
mod source;
#[cfg(test)]
mod tests;

pub use base::{NsBase, TickBase, TimeBase, TimeKeeper};
pub use count::{Conversion, Counts, HotPathCounter, NoCount, COUNT_COLUMNS, COUNT_EXTRA_KEYS, SEED_TABLE_COLUMNS};
pub use queue::{HwTimer, Pending, TimerId, TimerQueue};
pub use scenario::{count_per_op, Scenario, StartMode, TimeBaseKind, Workload, PERIOD_NS, SLEEP_NS, TIMEOUT_NS};
#[cfg(target_arch = "aarch64")]
pub use source::Cntvct;
#[cfg(target_arch = "x86_64")]
pub use source::Rdtsc;
pub use source::{ManualClock, MonotonicRaw, TickSource};
