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

/// One of Kiszka's five scenarios of heavy timer use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    /// §1: started once, fires continuously; hot path: the timer interrupt.
    PeriodicTimer,
    /// §2: explicit relative delays (`task_sleep`); hot path: start and interrupt.
    RelativeTimer,
    /// §3: relative timeouts of IPC and device operations, usually stopped before firing.
    RelativeTimeout,
    /// §4: absolute timers (TDMA slots); hot path: `get_time()`, start and interrupt.
    AbsoluteTimer,
    /// §5: absolute timeouts (POSIX IPC), usually stopped; hot path: `get_time()`, start and stop.
    AbsoluteTimeout,
}

/// How the timer is started: `timer_start(delay)` or 002's proposed `timer_start_abs(date)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartMode {
    /// `timer_start(delay)`, after computing the delay where the caller has a date.
    Relative,
    /// 002's "+ABS" rows.
    Absolute,
}

/// The time base as a value (parameters, reports); the queue's type parameter is [`TimeBase`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeBaseKind {
    /// Dates in counter ticks, 002's "TSC-based".
    Tsc,
    /// Dates in ns, 002's "ns-based".
    Ns,
}

impl Scenario {
    /// In 002's order.
    pub const ALL: [Scenario; 5] = [
        Scenario::PeriodicTimer,
        Scenario::RelativeTimer,
        Scenario::RelativeTimeout,
        Scenario::AbsoluteTimer,
        Scenario::AbsoluteTimeout,
    ];

    /// The parameter value, e.g. `periodic_timer`.
    pub fn name(self) -> &'static str {
        match self {
            Scenario::PeriodicTimer => "periodic_timer",
            Scenario::RelativeTimer => "relative_timer",
            Scenario::RelativeTimeout => "relative_timeout",
            Scenario::AbsoluteTimer => "absolute_timer",
            Scenario::AbsoluteTimeout => "absolute_timeout",
        }
    }

    /// The scenario named `name` (see [`Scenario::name`]).
    pub fn parse(name: &str) -> Option<Scenario> {
        Scenario::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Its section number in Kiszka 2006 (1–5).
    pub fn section(self) -> usize {
        Scenario::ALL.iter().position(|&s| s == self).unwrap_or(0) + 1
    }

    /// 002's heading.
    pub fn title(self) -> &'static str {
        match self {
            Scenario::PeriodicTimer => "Periodic timers",
            Scenario::RelativeTimer => "Relative timers",
            Scenario::RelativeTimeout => "Relative timeouts",
            Scenario::AbsoluteTimer => "Absolute timers",
            Scenario::AbsoluteTimeout => "Absolute timeouts",
        }
    }

    /// What one measured operation is, in 002's words.
    pub fn hot_path(self) -> &'static str {
        match self {
            Scenario::PeriodicTimer => "timer_irq()",
            Scenario::RelativeTimer => "timer_start() + timer_irq()",
            Scenario::RelativeTimeout => "timer_start() + timer_stop()",
            Scenario::AbsoluteTimer => "get_time() + task_sleep_until() + timer_irq()",
            Scenario::AbsoluteTimeout => "get_time() + sem_timeddown() start + timer_stop()",
        }
    }

    /// The start modes 002 analyses for it (absolute only where 002 has a "+ABS" row).
    pub fn starts(self) -> &'static [StartMode] {
        match self {
            Scenario::RelativeTimer | Scenario::RelativeTimeout => &[StartMode::Relative],
            _ => &[StartMode::Relative, StartMode::Absolute],
        }
    }

    /// True when the timer fires on the hot path (timers); false when it is stopped first (timeouts).
    pub fn fires(self) -> bool {
        !matches!(self, Scenario::RelativeTimeout | Scenario::AbsoluteTimeout)
    }

    /// 002's summary-table row for this scenario, base and start mode: conversions per hot-path
    /// operation, with `hw_programs` and `counter_reads` from its pseudo-code (the `program_timer()`
    /// calls not marked `[rarely]`, and the `get_tsc()` reads, one in each `get_time()`). `None` where
    /// 002 has no such row.
    pub fn seed_002(self, base: TimeBaseKind, start: StartMode) -> Option<Counts> {
        use StartMode::{Absolute as Abs, Relative as Rel};
        use TimeBaseKind::{Ns, Tsc};
        let c = Counts::new;
        Some(match (self, base, start) {
            (Scenario::PeriodicTimer, Tsc, _) => c(0, 0, 0, 1, 3),
            (Scenario::PeriodicTimer, Ns, _) => c(1, 1, 0, 1, 2),
            (Scenario::RelativeTimer, Tsc, Rel) => c(0, 1, 1, 1, 3),
            (Scenario::RelativeTimer, Ns, Rel) => c(2, 1, 0, 1, 3),
            (Scenario::RelativeTimeout, Tsc, Rel) => c(0, 1, 1, 0, 1),
            (Scenario::RelativeTimeout, Ns, Rel) => c(1, 0, 0, 0, 1),
            (Scenario::AbsoluteTimer, Tsc, Rel) => c(2, 1, 1, 1, 5),
            (Scenario::AbsoluteTimer, Tsc, Abs) => c(1, 1, 0, 1, 3),
            (Scenario::AbsoluteTimer, Ns, Rel) => c(4, 1, 0, 1, 5),
            (Scenario::AbsoluteTimer, Ns, Abs) => c(2, 1, 0, 1, 3),
            (Scenario::AbsoluteTimeout, Tsc, Rel) => c(2, 1, 1, 0, 3),
            (Scenario::AbsoluteTimeout, Tsc, Abs) => c(1, 1, 0, 0, 1),
            (Scenario::AbsoluteTimeout, Ns, Rel) => c(3, 0, 0, 0, 3),
            (Scenario::AbsoluteTimeout, Ns, Abs) => c(1, 0, 0, 0, 1),
            _ => return None,
        })
    }
}

impl StartMode {
    /// Both modes.
    pub const ALL: [StartMode; 2] = [StartMode::Relative, StartMode::Absolute];

    /// The parameter value: `relative` or `absolute`.
    pub fn name(self) -> &'static str {
        match self {
            StartMode::Relative => "relative",
            StartMode::Absolute => "absolute",
        }
    }

    /// The mode named `name`.
    pub fn parse(name: &str) -> Option<StartMode> {
        [StartMode::Relative, StartMode::Absolute].into_iter().find(|m| m.name() == name)
    }
}

impl TimeBaseKind {
    /// Both, in 002's row order.
    pub const ALL: [TimeBaseKind; 2] = [TimeBaseKind::Tsc, TimeBaseKind::Ns];

    /// The parameter value, [`TimeBase::NAME`] of the matching type: `tsc` or `ns`.
    pub fn name(self) -> &'static str {
        match self {
            TimeBaseKind::Tsc => super::TickBase::NAME,
            TimeBaseKind::Ns => super::NsBase::NAME,
        }
    }

    /// The base named `name`.
    pub fn parse(name: &str) -> Option<TimeBaseKind> {
        TimeBaseKind::ALL.into_iter().find(|b| b.name() == name)
    }

    /// 002's row label: `TSC-based` or `ns-based`.
    pub fn label(self) -> &'static str {
        match self {
            TimeBaseKind::Tsc => "TSC-based",
            TimeBaseKind::Ns => "ns-based",
        }
    }
}

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

// Parameter values of `timer.hotpath` points: each serialised as its `name()`.
overhead_record::param_enum!(Scenario);
overhead_record::param_enum!(TimeBaseKind);
overhead_record::param_enum!(StartMode);
