//! The timer queue: relative and absolute starts, stop, and the tick handler a one-shot hardware timer
//! interrupt would run (Kiszka's `timer_start`, `timer_start_abs`, `timer_stop`, `timer_irq` and
//! `program_timer`), generic over the time base its dates are kept in.

use std::hint::black_box;
use std::marker::PhantomData;

use super::base::{TimeBase, TimeKeeper};
use super::count::{HotPathCounter, NoCount};
use super::heap::TimerHeap;
use super::source::TickSource;
use overhead_convert::Converter;

/// A timer of one queue: an index below the queue's capacity, from [`TimerQueue::timer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimerId(u32);

impl TimerId {
    /// The index the timer was asked for by.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A pending timer: its date and period in the queue's time base (ticks or ns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pending {
    /// When it fires, in the base's unit (ticks or ns).
    pub date: u64,
    /// 0 for a one-shot timer.
    pub interval: u64,
}

/// The one-shot hardware timer as last programmed (002's `set_hw_timer(delay)`), in ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HwTimer {
    /// The counter when it was programmed.
    pub programmed_at: u64,
    /// The delay written to it (0 when the date had already passed).
    pub delay: u64,
}

impl HwTimer {
    /// The tick at which it raises its interrupt.
    pub fn expiry(&self) -> u64 {
        self.programmed_at.saturating_add(self.delay)
    }
}

/// A timer queue keeping dates in time base `B`, reading time from `S`, reporting conversions to `C`
/// ([`NoCount`] when timed). Holds a fixed number of timers; nothing allocates after [`TimerQueue::new`].
///
/// The hardware timer is modelled as one-shot in ticks, as a local APIC timer or TSC deadline is: the
/// queue programs it whenever its earliest date changes, and the tick handler re-programs it for the
/// next pending timer. How this differs from 002's pseudo-code (none of it changes a count):
/// - the tick handler reads the time once for all the expiries it handles (002's TSC-based handler
///   reads it again to re-arm: one counter read more, no conversion), and programs the next
///   pending timer, which 002's relative-timer case leaves out "intentionally" (in the ns base that is
///   one more ns→tsc per interrupt whenever another timer is pending);
/// - a periodic timer is re-armed drift-free at `date + interval`, skipping missed periods as
///   `now + interval`, where 002 writes `get_tsc() + interval`;
/// - a date in ns is rounded up by one tick when made ticks, so a timer never fires before its ns date;
/// - restarting a pending timer dequeues it first, as Xenomai's `xntimer_start` does.
#[derive(Debug, Clone)]
pub struct TimerQueue<B: TimeBase, S: TickSource, C: HotPathCounter = NoCount> {
    time: TimeKeeper<S, C>,
    heap: TimerHeap,
    hw: Option<HwTimer>,
    base: PhantomData<fn() -> B>,
}

impl<B: TimeBase, S: TickSource, C: HotPathCounter> TimerQueue<B, S, C> {
    /// An empty queue for `capacity` timers, converting with `conv`, reading `source`, counting into
    /// `counter`. Panics: `capacity` ≥ 2^32 − 1.
    pub fn new(capacity: usize, conv: Converter, source: S, counter: C) -> Self {
        TimerQueue {
            time: TimeKeeper::new(conv, source, counter),
            heap: TimerHeap::new(capacity),
            hw: None,
            base: PhantomData,
        }
    }

    /// Timer number `index`, or `None` when `index` is not below the capacity.
    pub fn timer(&self, index: usize) -> Option<TimerId> {
        (index < self.heap.capacity()).then_some(TimerId(index as u32))
    }

    /// 002's `get_time()`: the current time in ns, whatever the base (one ticks→ns conversion).
    #[inline]
    pub fn now_ns(&mut self) -> u64 {
        self.time.now_ns()
    }

    /// 002's `timer_start(delay, interval)`: `id` fires `delay_ns` from now, then every `interval_ns` if
    /// that is not 0 (a period shorter than one unit of the base is one unit). A pending `id` is restarted.
    /// Panics: `id` is from a larger queue.
    #[inline]
    pub fn start(&mut self, id: TimerId, delay_ns: u64, interval_ns: u64) {
        let delay = B::delay_from_ns(&mut self.time, delay_ns);
        let date = B::now(&mut self.time).saturating_add(delay);
        let interval = self.interval(interval_ns);
        self.enqueue(id, date, interval);
    }

    /// 002's `timer_start_abs(date, interval)`: `id` fires when `get_time()` reaches `date_ns`, then every
    /// `interval_ns` if not 0. A date already passed fires at the next tick. Panics: as [`Self::start`].
    #[inline]
    pub fn start_abs(&mut self, id: TimerId, date_ns: u64, interval_ns: u64) {
        let date = B::date_from_ns(&mut self.time, date_ns);
        let interval = self.interval(interval_ns);
        self.enqueue(id, date, interval);
    }

    /// 002's `timer_stop()`: `id` will not fire; false when it was not pending. Stopping the earliest
    /// timer re-programs the hardware timer for the next one. Panics: as [`Self::start`].
    #[inline]
    pub fn stop(&mut self, id: TimerId) -> bool {
        let was_head = self.heap.head() == Some(id.0);
        if !self.heap.remove(id.0) {
            return false;
        }
        if was_head {
            self.program_head();
        }
        true
    }

    /// 002's `timer_irq()`: fires, in date order, every timer due at the current time, calling
    /// `on_fire` for each; re-arms periodic ones; programs the hardware timer for the next pending
    /// timer (or leaves it idle). Returns how many fired (0 for an early or spurious interrupt).
    #[inline]
    pub fn tick(&mut self, mut on_fire: impl FnMut(TimerId)) -> u32 {
        let now = B::now(&mut self.time);
        let mut fired = 0;
        while let Some(id) = self.heap.head() {
            let slot = *self.heap.slot(id);
            if slot.date > now {
                break;
            }
            self.heap.remove(id);
            fired += 1;
            if slot.interval > 0 {
                let next = slot.date.saturating_add(slot.interval);
                let next = if next > now { next } else { now.saturating_add(slot.interval) };
                self.heap.insert(id, next, slot.interval);
            }
            on_fire(TimerId(id));
        }
        self.program_head();
        fired
    }

    /// `id`'s date and period if it is pending. Panics: as [`Self::start`].
    pub fn pending(&self, id: TimerId) -> Option<Pending> {
        self.heap.is_pending(id.0).then(|| {
            let s = self.heap.slot(id.0);
            Pending { date: s.date, interval: s.interval }
        })
    }

    /// Pending timers.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when no timer is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.len() == 0
    }

    /// The hardware timer as last programmed; `None` when no timer is pending.
    pub fn hw_timer(&self) -> Option<HwTimer> {
        self.hw
    }

    /// The clock, converter and counting hook.
    pub fn time(&self) -> &TimeKeeper<S, C> {
        &self.time
    }

    /// The clock, converter and counting hook, mutable (to reset the counter after a set-up).
    pub fn time_mut(&mut self) -> &mut TimeKeeper<S, C> {
        &mut self.time
    }

    /// A period in the base; at least one unit when asked for at all, so a periodic timer moves on.
    #[inline(always)]
    fn interval(&mut self, interval_ns: u64) -> u64 {
        if interval_ns == 0 {
            0
        } else {
            B::delay_from_ns(&mut self.time, interval_ns).max(1)
        }
    }

    /// Queues `id` at `date`, and programs the hardware timer when the earliest date changed.
    #[inline(always)]
    fn enqueue(&mut self, id: TimerId, date: u64, interval: u64) {
        let old_head = self.heap.head();
        self.heap.remove(id.0);
        self.heap.insert(id.0, date, interval);
        if old_head == Some(id.0) || self.heap.head() != old_head {
            self.program_head();
        }
    }

    /// Programs the hardware timer for the earliest pending timer, or idles it.
    #[inline(always)]
    fn program_head(&mut self) {
        match self.heap.head() {
            Some(id) => {
                let date = self.heap.slot(id).date;
                self.program(date);
            }
            None => self.hw = None,
        }
    }

    /// 002's `program_timer(date)`: date to ticks (a conversion in the ns base), `delay = date - get_tsc()`,
    /// `set_hw_timer(delay)`. `black_box` stands for the device register write.
    #[inline(always)]
    fn program(&mut self, date: u64) {
        let date_ticks = B::date_to_ticks(&mut self.time, date);
        let now = self.time.ticks();
        let delay = black_box(date_ticks.saturating_sub(now));
        self.time.counter_mut().programmed();
        self.hw = Some(HwTimer { programmed_at: now, delay });
    }
}
