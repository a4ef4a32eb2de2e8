//! Kiszka's five timer scenarios as workloads on the queue, and 002's summary tables of the
//! conversions each hot path needs.
//!
//! One [`Workload::run`] operation is the scenario's hot path as 002 lists it (the steps it marks
//! `[rarely]` are kept out by construction, not skipped):
//!
//! | scenario | one operation | kept rare |
//! | --- | --- | --- |
//! | 1 periodic timer | `timer_irq()` firing and re-arming a periodic timer | the start (done once in set-up) |
//! | 2 relative timer | `timer_start(delay)` + `timer_irq()` firing it | programming a next timer: none is pending |
//! | 3 relative timeout | `timer_start(delay)` + `timer_stop()` | `program_timer()`: an earlier timer stays first |
//! | 4 absolute timer | `get_time() + delay`, sleep until it (relative or absolute start), `timer_irq()` | as 2 |
//! | 5 absolute timeout | `get_time() + delay`, start until it (relative or absolute), `timer_stop()` | as 3 |
//!
//! Timers are started with a delay of 0 (and a period of 1 ns) so that every interrupt finds them due
//! on the real clock; timeouts use 1 s, 002's "comparably large timeout values". The blocking between
//! start and stop (`block_on_mutex()`) is not part of the timer's cost and is left out.
//!
//! With these workloads the queue reproduces all five of 002's summary tables exactly (§1.3, §2.3,
//! §3.3, §4.3, §5.3; the tests check every row), and the `program_timer()` calls of 002's pseudo-code.
//! It also counts counter reads, which decide the time on today's CPUs more than the conversions do;
//! these match 002's pseudo-code except in §1's TSC-based interrupt, which reads the counter twice
//! where 002 reads it three times (it re-arms from the handler's `now` rather than a fresh
//! `get_tsc()`). The other departures of the queue from 002's pseudo-code change no count; see
//! [`TimerQueue`].

pub use overhead_schema::variants::timer_scenario::{Scenario, StartMode, TimeBaseKind};

use super::count::{Counts, HotPathCounter};
use super::queue::{TimerId, TimerQueue};
use super::source::TickSource;
use super::TimeBase;
use overhead_convert::Converter;

/// Delay of a timer that is meant to fire (scenarios 2 and 4), ns: due at once, so the next interrupt
/// handles it.
pub const SLEEP_NS: u64 = 0;
/// Period of scenario 1's timer, ns: shorter than one interrupt, so every interrupt finds it due.
pub const PERIOD_NS: u64 = 1;
/// Delay of a timeout meant to be stopped before it fires (scenarios 3 and 5), ns.
pub const TIMEOUT_NS: u64 = 1_000_000_000;

/// A queue set up for one scenario and start mode, ready to run its hot-path operation.
#[derive(Debug, Clone)]
pub struct Workload<B: TimeBase, S: TickSource, C: HotPathCounter> {
    queue: TimerQueue<B, S, C>,
    scenario: Scenario,
    start: StartMode,
    timer: TimerId,
}

impl<B: TimeBase, S: TickSource, C: HotPathCounter> Workload<B, S, C> {
    /// The queue set up for `scenario` (the periodic timer started; for timeouts an earlier timer
    /// pending, so that the timeout never becomes the first and never programs the hardware), with the
    /// counter reset after the set-up.
    ///
    /// Errors: `start` is absolute for a scenario 002 analyses only relatively (relative timer, relative
    /// timeout).
    pub fn new(scenario: Scenario, start: StartMode, conv: Converter, source: S) -> anyhow::Result<Self> {
        if !scenario.starts().contains(&start) {
            anyhow::bail!("scenario {} has no {} start in Kiszka's tables", scenario.name(), start.name());
        }
        let mut queue = TimerQueue::new(2, conv, source, C::default());
        let timer = queue.timer(0).expect("capacity 2");
        match (scenario, start) {
            (Scenario::PeriodicTimer, StartMode::Relative) => queue.start(timer, 0, PERIOD_NS),
            (Scenario::PeriodicTimer, StartMode::Absolute) => {
                let now = queue.now_ns();
                queue.start_abs(timer, now, PERIOD_NS);
            }
            (Scenario::RelativeTimeout | Scenario::AbsoluteTimeout, _) => {
                let earlier = queue.timer(1).expect("capacity 2");
                queue.start(earlier, 0, 0);
            }
            _ => {}
        }
        *queue.time_mut().counter_mut() = C::default();
        Ok(Workload { queue, scenario, start, timer })
    }

    /// Runs the hot-path operation `n` times; returns how many timers fired (`n` for timers, 0 for
    /// timeouts stopped in time).
    #[inline]
    pub fn run(&mut self, n: u64) -> u64 {
        match (self.scenario, self.start) {
            (Scenario::PeriodicTimer, _) => self.repeat(n, |w| w.queue.tick(|_| {})),
            (Scenario::RelativeTimer, _) => self.repeat(n, Self::relative_timer),
            (Scenario::RelativeTimeout, _) => self.repeat(n, Self::relative_timeout),
            (Scenario::AbsoluteTimer, StartMode::Relative) => self.repeat(n, Self::absolute_timer_rel),
            (Scenario::AbsoluteTimer, StartMode::Absolute) => self.repeat(n, Self::absolute_timer_abs),
            (Scenario::AbsoluteTimeout, StartMode::Relative) => self.repeat(n, Self::absolute_timeout_rel),
            (Scenario::AbsoluteTimeout, StartMode::Absolute) => self.repeat(n, Self::absolute_timeout_abs),
        }
    }

    /// The queue, e.g. for its counter.
    pub fn queue(&self) -> &TimerQueue<B, S, C> {
        &self.queue
    }

    /// The dispatch happens once per batch; the loop body is one monomorphised operation.
    #[inline(always)]
    fn repeat(&mut self, n: u64, op: impl Fn(&mut Self) -> u32) -> u64 {
        let mut fired = 0u64;
        for _ in 0..n {
            fired += op(self) as u64;
        }
        fired
    }

    /// §2 `task_sleep(delay)`, then the interrupt that ends it.
    #[inline(always)]
    fn relative_timer(&mut self) -> u32 {
        self.queue.start(self.timer, SLEEP_NS, 0);
        self.queue.tick(|_| {})
    }

    /// §3 `mutex_lock(…, delay)`: start, (block), stop. Returns 1 if the timeout had fired.
    #[inline(always)]
    fn relative_timeout(&mut self) -> u32 {
        self.queue.start(self.timer, TIMEOUT_NS, 0);
        u32::from(!self.queue.stop(self.timer))
    }

    /// §4 `date = get_time() + delay; task_sleep_until(date)` with a relative start, then the interrupt.
    #[inline(always)]
    fn absolute_timer_rel(&mut self) -> u32 {
        let date = self.queue.now_ns() + SLEEP_NS;
        let delay = date.saturating_sub(self.queue.now_ns());
        self.queue.start(self.timer, delay, 0);
        self.queue.tick(|_| {})
    }

    /// §4 with `timer_start_abs(date)`.
    #[inline(always)]
    fn absolute_timer_abs(&mut self) -> u32 {
        let date = self.queue.now_ns() + SLEEP_NS;
        self.queue.start_abs(self.timer, date, 0);
        self.queue.tick(|_| {})
    }

    /// §5 `date = get_time() + delay; sem_timeddown(…, date)` with a relative start, then the stop.
    #[inline(always)]
    fn absolute_timeout_rel(&mut self) -> u32 {
        let date = self.queue.now_ns() + TIMEOUT_NS;
        let delay = date.saturating_sub(self.queue.now_ns());
        self.queue.start(self.timer, delay, 0);
        u32::from(!self.queue.stop(self.timer))
    }

    /// §5 with `timer_start_abs(date)`.
    #[inline(always)]
    fn absolute_timeout_abs(&mut self) -> u32 {
        let date = self.queue.now_ns() + TIMEOUT_NS;
        self.queue.start_abs(self.timer, date, 0);
        u32::from(!self.queue.stop(self.timer))
    }
}

/// Conversions and programmings per hot-path operation of `scenario` in base `B`, counted over `ops`
/// operations on `source`, and the timers that fired. Every operation takes the same path, so the
/// counts are whole multiples of `ops` whatever the clock; `fired` may fall short of `ops` only for a
/// periodic timer on a counter too coarse to move between two interrupts.
///
/// Errors: as [`Workload::new`].
pub fn count_per_op<B: TimeBase, S: TickSource>(
    scenario: Scenario,
    start: StartMode,
    conv: Converter,
    source: S,
    ops: u64,
) -> anyhow::Result<(Counts, u64)> {
    let mut w = Workload::<B, S, Counts>::new(scenario, start, conv, source)?;
    let fired = w.run(ops);
    Ok((*w.queue().time().counter(), fired))
}
