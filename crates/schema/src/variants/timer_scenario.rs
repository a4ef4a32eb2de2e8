//! Kiszka's five scenarios of heavy timer use, the two ways of starting a timer and the two time bases, as
//! `timer.hotpath`'s parameters name them, with 002's summary tables of the conversions each hot path needs
//! ([`Scenario::seed_002`]); the queue and its workloads are `overhead_timerq`.

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

/// The time base as a value (parameters, reports); the queue's type parameter is `overhead_timerq::TimeBase`.
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

    /// The parameter value, `overhead_timerq::TimeBase::NAME` of the matching type (a test there holds them equal): `tsc` or `ns`.
    pub fn name(self) -> &'static str {
        match self {
            TimeBaseKind::Tsc => "tsc",
            TimeBaseKind::Ns => "ns",
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

// Parameter values of `timer.hotpath` points: each serialised as its `name()`.
crate::param_enum!(Scenario);
crate::param_enum!(TimeBaseKind);
crate::param_enum!(StartMode);
