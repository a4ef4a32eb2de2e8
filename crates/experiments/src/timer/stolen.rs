//! `timer.stolen`: what timers cost a background number-crunching task on the same CPU, per timer event.

use std::cell::{Cell, RefCell};
use std::hint::black_box;

use anyhow::{bail, Context as _};

use super::signal_timer::{self, SignalTimer};
use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point, KERNEL};
use overhead_clock::clock_gettime_ns;
use overhead_harness::{Harness, Measurement, Mode};
use overhead_record::Metric;

/// Timer rates of the points, Hz: none (the method's null result), 1 kHz and 10 kHz.
pub const RATES_HZ: [u64; 3] = [0, 1_000, 10_000];

/// Kiszka 2006 closes by asking how to evaluate the timer subsystem's overall cost, and answers: "execution
/// time of some long-running number-crunching Linux task in the background". Here that task is a fixed
/// work loop on the home CPU; a POSIX timer (`timer_create`, `SIGEV_THREAD_ID`) interrupts the same
/// thread with a signal at `rate_hz`.
///
/// Why a signal timer: each event is then exactly one timer interrupt, the kernel's expiry handling
/// and one signal delivery to the interrupted task — the periodic-timer hot path of Kiszka 2006 §1, paid
/// by the task it interrupts, with no scheduler decision or second thread whose own work would be
/// counted too (a timerfd-woken thread would add two context switches and is at the mercy of wake-up
/// preemption). The events are counted in the handler, so merged expiries are not charged.
///
/// Method: the harness alternates batches of the same work with the timer disarmed (control) and armed
/// (test), so drift cancels; each batch re-arms or disarms it (one `timer_settime` on both sides). The
/// difference per work unit, divided by the timer events per work unit counted during the test
/// batches, is the stolen time per event (ns): `(work time with timers − without) / events`. Both the
/// samples and the control ("ovr" = the undisturbed work per event period) are per event. At 0 Hz both
/// sides are undisturbed and the result is per work unit: the method's noise floor, ≈ 0.
///
/// Batches are 5× the mode's target, at least 20 ms (10 ms in `--quick`), so a 1 kHz batch holds ≥ 20 events (10).
/// `extra`: `stolen_ns_per_event` (from the medians), `work_unit_ns` (undisturbed), `stolen_ns_per_unit`,
/// `events`, `events_per_s` (arrived), `stolen_ppm` (share of the CPU taken), `throughput_per_s` and
/// `throughput_with_timers_per_s` (work units per second), and the same pairs in the thread's CPU time,
/// which other tasks on a loaded machine cannot inflate: `stolen_cpu_ns_per_event` and `cpu_share`
/// (CPU time / wall time).
pub struct Stolen;

/// What a `timer.stolen` point reports beside its median (its `extra`). A number that is undefined here (no
/// events, no time) is absent: JSON has no NaN or infinity.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StolenResult {
    /// Time the timers took from the work per event (ns, from the medians).
    pub stolen_ns_per_event: Option<f64>,
    /// A work unit undisturbed (ns).
    pub work_unit_ns: Option<f64>,
    /// What the timers added to a work unit (ns).
    pub stolen_ns_per_unit: Option<f64>,
    /// Timer events during the measurement.
    pub events: f64,
    /// Events per second of wall time.
    pub events_per_s: Option<f64>,
    /// The stolen share of the work (ppm).
    pub stolen_ppm: Option<f64>,
    /// Work units per second undisturbed.
    pub throughput_per_s: Option<f64>,
    /// Work units per second with the timers running.
    pub throughput_with_timers_per_s: Option<f64>,
    /// CPU time (not wall time) the timers took per event (ns).
    pub stolen_cpu_ns_per_event: Option<f64>,
    /// The thread's share of its CPU while it measured (1 = all of it).
    pub cpu_share: Option<f64>,
}

impl Stolen {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::timer::STOLEN;
}

impl Experiment for Stolen {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Stolen::ID,
            summary: "time a POSIX signal timer at 0/1k/10k Hz steals from a number-crunching task on its CPU, \
                      per timer event",
            source: "Kiszka 2006 (overall cost as execution time of a background number-crunching task)",
            metric: Metric::PerOp,
            requires: KERNEL,
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        RATES_HZ
            .iter()
            .map(|rate| Planned::Run(ctx.spec_of(self.id(), runtime, &Params { rate_hz: *rate }, vec![ctx.home_cpu()])))
            .collect()
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let Params { rate_hz } = point.params()?;
        if rate_hz > 100_000 {
            bail!("{}: rate_hz {rate_hz} is not in 0…100000 Hz", spec.name());
        }
        measure_stolen(&long_batches(h), rate_hz)
    }
}

/// `timer.stolen`'s parameters.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct Params {
    /// Timer signals per second; 0: no timer.
    rate_hz: u64,
}

/// The harness with batches 5× the mode's target and at least [`MIN_BATCH_NS`] (half that in `--quick`):
/// enough timer events per batch that their count, not its rounding, decides the result. One counted pair
/// instead of the mode's two, as `msg.throughput`'s long batches have (docs/METHOD.md §18): a batch forty
/// times the mode's target holds the events of many, and a second pair cost a seventh of every process.
fn long_batches(h: &Harness) -> Harness {
    let floor = if h.config.mode == Mode::Quick { MIN_BATCH_NS / 2.0 } else { MIN_BATCH_NS };
    let mut long = h.clone();
    long.config.target_batch_ns = (h.config.target_batch_ns * 5.0).max(floor);
    long.config.counted_pairs = long.config.counted_pairs.min(1);
    long
}

/// The shortest `timer.stolen` batch, ns: 20 ms, twenty events at 1 kHz (ten in `--quick`'s 10 ms).
pub const MIN_BATCH_NS: f64 = 20e6;

/// One unit of background work: a serial chain of 64 xorshift-multiply steps (~100 ns), number
/// crunching that touches no memory, so only time taken from its CPU (and what an interrupt does to
/// its pipeline) slows it.
#[inline(never)]
fn crunch(seed: u64) -> u64 {
    let mut x = seed | 1;
    for _ in 0..64 {
        x = (x ^ (x >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    }
    x
}

/// `n` work units.
#[inline(always)]
fn crunch_n(n: u64) {
    for i in 0..n {
        black_box(crunch(black_box(i)));
    }
}

/// Measures the work with a timer at `rate_hz` (none at 0) and turns it into stolen time per event.
fn measure_stolen(h: &Harness, rate_hz: u64) -> anyhow::Result<Outcome> {
    let timer = match rate_hz {
        0 => None,
        rate => Some(SignalTimer::for_current_thread(1_000_000_000 / rate).context("creating the POSIX timer")?),
    };
    if let Some(t) = &timer {
        t.set(false).context("timer_settime")?; // checked once, so the timed path may expect success
    }
    let account = (Cell::new(0u64), Cell::new(0u64));
    // Allocated before measuring: sizing takes ≤ 33 test batches, then warm-up and kept pairs.
    let capacity = 64 + h.config.warmup + h.config.repetitions;
    let clocks = (RefCell::new(Vec::with_capacity(capacity)), RefCell::new(Vec::with_capacity(capacity)));
    let m = h.measure(
        |n| {
            let start = BatchClocks::start();
            let before = signal_timer::events();
            if let Some(t) = &timer {
                t.set(true).expect("timer_settime succeeded before");
            }
            crunch_n(n);
            account.1.set(account.1.get() + signal_timer::events() - before);
            account.0.set(account.0.get() + n);
            clocks.0.borrow_mut().push(start.stop(n));
        },
        |n| {
            let start = BatchClocks::start();
            if let Some(t) = &timer {
                t.set(false).expect("timer_settime succeeded before");
            }
            crunch_n(n);
            clocks.1.borrow_mut().push(start.stop(n));
        },
    );
    drop(timer);
    let wall_ns = clocks.0.borrow().iter().map(|b| b.wall_ns).sum();
    let account = Account { units: account.0.get(), events: account.1.get(), wall_ns };
    if rate_hz > 0 && account.events == 0 {
        bail!("no timer signal arrived in {} work units at {rate_hz} Hz", account.units);
    }
    // The harness ends with its kept (control, test) pairs and then its counted ones (untimed, §18 of
    // docs/METHOD.md): the R batches of each side before the counted pairs' (as many as it counted).
    let counted = if m.counts_per_op.is_some() { h.config.counted_pairs } else { 0 };
    let kept = |log: &RefCell<Vec<BatchClocks>>| kept_batches(&log.borrow(), h.config.repetitions, counted);
    let cpu = CpuView::of(&kept(&clocks.0), &kept(&clocks.1));
    Ok(outcome(m, account, cpu))
}

/// The `repetitions` kept batches of one side's `log`: those before its last `counted` (the counted pairs'
/// batches, which follow the kept ones).
fn kept_batches(log: &[BatchClocks], repetitions: usize, counted: usize) -> Vec<BatchClocks> {
    let end = log.len().saturating_sub(counted);
    log[end.saturating_sub(repetitions)..end].to_vec()
}

/// Thread CPU time and wall time of one batch (ns) and its work units. Read inside the batch body, at
/// its start and end: one `CLOCK_THREAD_CPUTIME_ID` system call per edge (~1 µs against ≥ 10 ms
/// batches, the same on the test and the control side).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BatchClocks {
    pub units: u64,
    pub cpu_ns: f64,
    pub wall_ns: f64,
}

impl BatchClocks {
    /// The clocks now, as the start of a batch (`units` 0).
    fn start() -> BatchClocks {
        BatchClocks { units: 0, cpu_ns: thread_cpu_ns(), wall_ns: clock_gettime_ns(libc::CLOCK_MONOTONIC) as f64 }
    }

    /// The batch from `self` (its start) to now, `units` work units long.
    fn stop(self, units: u64) -> BatchClocks {
        BatchClocks {
            units,
            cpu_ns: thread_cpu_ns() - self.cpu_ns,
            wall_ns: clock_gettime_ns(libc::CLOCK_MONOTONIC) as f64 - self.wall_ns,
        }
    }
}

/// CPU time this thread has run, ns (`CLOCK_THREAD_CPUTIME_ID`).
fn thread_cpu_ns() -> f64 {
    clock_gettime_ns(libc::CLOCK_THREAD_CPUTIME_ID) as f64
}

/// The same pairs seen through the thread's CPU time: immune to other tasks taking the CPU, which the
/// wall-clock result is not (a thread with half its CPU needs twice the wall time for each stolen µs).
/// The hard-IRQ part of an event is in the thread's CPU time only without `CONFIG_IRQ_TIME_ACCOUNTING`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CpuView {
    /// Median over pairs of (test − control) CPU time per work unit, ns.
    pub stolen_ns_per_unit: f64,
    /// The thread's CPU time over wall time across the pairs (1.0: it had its CPU to itself).
    pub share: f64,
}

impl CpuView {
    /// From the kept test and control batches, paired in order; NaN fields when there are none.
    pub fn of(test: &[BatchClocks], control: &[BatchClocks]) -> CpuView {
        let per_unit = |b: &BatchClocks| b.cpu_ns / b.units.max(1) as f64;
        let diffs: Vec<f64> = test.iter().zip(control).map(|(t, c)| per_unit(t) - per_unit(c)).collect();
        let all = || test.iter().chain(control);
        CpuView {
            stolen_ns_per_unit: overhead_stats::Summary::of(&diffs).map_or(f64::NAN, |s| s.median),
            share: all().map(|b| b.cpu_ns).sum::<f64>() / all().map(|b| b.wall_ns).sum::<f64>(),
        }
    }
}

/// What the test batches of a point did: work units run, and timer events handled during them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Account {
    pub units: u64,
    pub events: u64,
    /// Wall time of those batches, ns.
    pub wall_ns: f64,
}

impl Account {
    /// Timer events per work unit (0 when no unit ran).
    pub fn events_per_unit(&self) -> f64 {
        if self.units == 0 {
            0.0
        } else {
            self.events as f64 / self.units as f64
        }
    }
}

/// Kiszka's figure of merit: `(work time with timers − work time without) / events`, ns per event, for
/// the same amount of work on both sides (times in ns). `None` without events.
pub fn stolen_per_event_ns(with_timers_ns: f64, without_ns: f64, events: u64) -> Option<f64> {
    (events > 0).then(|| (with_timers_ns - without_ns) / events as f64)
}

/// The point's outcome: per-unit samples scaled to per event when events arrived (that scaling is
/// [`stolen_per_event_ns`] applied repetition by repetition), side numbers in `extra`, and a note when
/// other tasks took a tenth or more of the CPU.
fn outcome(m: Measurement, account: Account, cpu: CpuView) -> Outcome {
    let median = |v: &[f64]| overhead_stats::Summary::of(v).map_or(f64::NAN, |s| s.median);
    let work_unit_ns = median(&m.control_ns);
    let stolen_ns_per_unit = median(&m.samples_ns);
    let with_timers_unit_ns = work_unit_ns + stolen_ns_per_unit;
    let units = account.units as f64;
    let per_event = stolen_per_event_ns(units * with_timers_unit_ns, units * work_unit_ns, account.events);
    let finite = |v: f64| v.is_finite().then_some(v);
    let result = StolenResult {
        stolen_ns_per_event: per_event.and_then(finite),
        work_unit_ns: finite(work_unit_ns),
        stolen_ns_per_unit: finite(stolen_ns_per_unit),
        events: account.events as f64,
        events_per_s: finite(account.events as f64 / account.wall_ns * 1e9),
        stolen_ppm: finite(stolen_ns_per_unit / work_unit_ns * 1e6),
        throughput_per_s: finite(1e9 / work_unit_ns),
        throughput_with_timers_per_s: finite(1e9 / with_timers_unit_ns),
        stolen_cpu_ns_per_event: finite(cpu.stolen_ns_per_unit / account.events_per_unit()),
        cpu_share: finite(cpu.share),
    };
    let mut notes = Vec::new();
    if cpu.share < 0.9 {
        notes.push(format!(
            "the thread had {:.0}% of its CPU (other tasks ran there): the wall-clock result is inflated by \
             up to {:.1}×; stolen_cpu_ns_per_event counts CPU time only",
            cpu.share * 100.0,
            1.0 / cpu.share
        ));
    }
    let measurement = if account.events > 0 { m.per(account.events_per_unit()) } else { m };
    Outcome { measurement, notes, extra: Default::default(), details: Default::default() }.with_result(&result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_harness::HarnessConfig;

    #[test]
    fn stolen_time_is_the_difference_per_event() {
        // 1000 units of 500 ns without timers; with timers they took 510 ns each over 5 events.
        assert_eq!(stolen_per_event_ns(510_000.0, 500_000.0, 5), Some(2_000.0));
        assert_eq!(stolen_per_event_ns(510_000.0, 500_000.0, 0), None);
        // The per-repetition form used for the samples agrees: 10 ns per unit, 5/1000 events per unit.
        let account = Account { units: 1_000, events: 5, wall_ns: 511_000.0 };
        let m = Measurement {
            counts_per_op: None,
            batch_ops: 1_000,
            samples_ns: vec![10.0, 12.0],
            control_ns: vec![500.0, 500.0],
            per_thread_ns: Vec::new(),
            resolution_ns: 0.01,
        };
        let cpu = CpuView { stolen_ns_per_unit: 8.0, share: 1.0 };
        let o = outcome(m, account, cpu);
        assert_eq!(o.measurement.samples_ns, vec![2_000.0, 2_400.0]);
        assert_eq!(o.extra["stolen_cpu_ns_per_event"], 1_600.0);
        assert!(o.notes.is_empty(), "{:?}", o.notes);
        assert_eq!(o.measurement.control_ns, vec![100_000.0, 100_000.0], "ovr: undisturbed work per event");
        assert_eq!(o.extra["work_unit_ns"], 500.0);
        assert_eq!(o.extra["stolen_ns_per_unit"], 11.0);
        assert!((o.extra["stolen_ns_per_event"] - 2_200.0).abs() < 1e-6, "11 ns per unit × 200 units per event");
        assert!((o.extra["stolen_ppm"] - 22_000.0).abs() < 1e-6);
        assert!((o.extra["events_per_s"] - 5.0 / 511e-6).abs() < 1e-6, "5 events in 511 µs");
    }

    #[test]
    fn without_events_the_result_stays_per_unit() {
        let m = Measurement {
            counts_per_op: None,
            batch_ops: 8,
            samples_ns: vec![0.5],
            control_ns: vec![100.0],
            per_thread_ns: Vec::new(),
            resolution_ns: 0.01,
        };
        let cpu = CpuView { stolen_ns_per_unit: 0.0, share: 0.5 };
        let o = outcome(m.clone(), Account { units: 8, events: 0, wall_ns: 800.0 }, cpu);
        assert_eq!(o.measurement, m);
        assert!(o.notes[0].contains("50% of its CPU"), "{:?}", o.notes);
        assert!(!o.extra.contains_key("stolen_ns_per_event"), "undefined without events, and JSON has no NaN");
    }

    #[test]
    fn cpu_view_pairs_batches_and_weighs_the_share() {
        let b = |units, cpu_ns, wall_ns| BatchClocks { units, cpu_ns, wall_ns };
        // Pairs: 2 and 4 ns per unit more CPU with timers (median 3); 460 of 500 ns on the CPU.
        let test = [b(10, 120.0, 150.0), b(10, 140.0, 150.0)];
        let control = [b(10, 100.0, 100.0), b(10, 100.0, 100.0)];
        let v = CpuView::of(&test, &control);
        assert_eq!(v.stolen_ns_per_unit, 3.0);
        assert_eq!(v.share, 460.0 / 500.0);
        assert!(CpuView::of(&[], &[]).stolen_ns_per_unit.is_nan());
    }

    /// The kept batches are the repetitions before the counted pairs' batches, which follow them.
    #[test]
    fn the_kept_batches_come_before_the_counted_ones() {
        let log: Vec<BatchClocks> = (1..=7).map(|units| BatchClocks { units, cpu_ns: 0.0, wall_ns: 0.0 }).collect();
        let units = |kept: Vec<BatchClocks>| kept.iter().map(|b| b.units).collect::<Vec<_>>();
        assert_eq!(units(kept_batches(&log, 3, 1)), [4, 5, 6]);
        assert_eq!(units(kept_batches(&log, 3, 0)), [5, 6, 7]);
        assert_eq!(units(kept_batches(&log[..2], 3, 1)), [1]);
    }

    /// Batches five times the mode's target and at least 20 ms (10 ms in `--quick`), with one counted pair.
    #[test]
    fn batches_are_long_and_counted_once() {
        for (mode, floor) in [(Mode::Quick, 10e6), (Mode::Default, 20e6), (Mode::Full, 20e6)] {
            let h = overhead_harness::testing::quick_harness_with(HarnessConfig::for_mode(mode));
            let long = long_batches(&h);
            assert_eq!(long.config.target_batch_ns, (h.config.target_batch_ns * 5.0).max(floor), "{mode:?}");
            assert_eq!(long.config.counted_pairs, 1, "{mode:?}");
            assert_eq!(
                HarnessConfig { target_batch_ns: h.config.target_batch_ns, counted_pairs: 2, ..long.config },
                h.config
            );
        }
    }

    #[test]
    fn timer_point_counts_events_and_reports_per_event() {
        let _serial = signal_timer::TEST_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let mut config = HarnessConfig::for_mode(Mode::Quick);
        config.repetitions = 5;
        config.warmup = 1;
        // 10 ms batches (quick): 5 + 1 pairs, a counted one and the sizing take ~0.15 s.
        let o = measure_stolen(&long_batches(&overhead_harness::testing::quick_harness_with(config)), 10_000).unwrap();
        assert_eq!(o.measurement.samples_ns.len(), 5);
        let per_s = o.extra["events_per_s"];
        // A timer cannot fire more often than its rate; a loaded VM may merge expiries, not add any.
        assert!(o.extra["events"] > 0.0 && per_s <= 11_000.0, "{:?}", o.extra);
        // ovr is the undisturbed work between two events and the sample the time each event stole: together
        // one period (100 µs at 10 kHz) if every expiry arrived, more when a busy VM merges expiries. (The
        // stolen time alone can be 20 µs per event in a VM, so ovr alone may be well under the period.)
        let share = o.extra["cpu_share"];
        assert!(share > 0.0 && share <= 1.01, "CPU time cannot outrun wall time: share {share}");
        let ovr = overhead_stats::Summary::of(&o.measurement.control_ns).unwrap().median;
        let stolen = o.measurement.summary().unwrap().median;
        assert!(ovr + stolen >= 80_000.0, "undisturbed work {ovr} ns + stolen {stolen} ns per event");
    }
}
