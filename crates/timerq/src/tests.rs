//! The queue against a model (order, stops, periodic re-arm, the hardware timer) in both time bases,
//! and the scenario workloads against Kiszka's summary tables.

use super::*;
use overhead_convert::Converter;

/// Deterministic xorshift64*, so a failure replays.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
    }
}

const HZ: u64 = 2_899_999_999;
const TIMERS: usize = 12;

/// What a tick at clock value `ticks` sees as "now" in base `B`.
fn base_now<B: TimeBase>(conv: &Converter, ticks: u64) -> u64 {
    if B::NAME == "ns" {
        conv.ticks_to_ns(ticks)
    } else {
        ticks
    }
}

/// Random relative and absolute starts (one-shot and periodic, some dates already past), restarts,
/// stops, interrupts at the hardware timer's expiry, late by some latency, and spurious early ones. After every step the
/// queue must agree with a model: which timers are pending at which dates, which fire at a tick (all
/// those due, none other, in date order), where periodic ones re-arm, and the hardware timer armed
/// exactly when a timer is pending, never expiring before the earliest date.
fn random_operations_agree_with_model<B: TimeBase>(seed: u64) {
    let conv = Converter::new(HZ);
    let mut q: TimerQueue<B, ManualClock> = TimerQueue::new(TIMERS, conv, ManualClock::new(1 << 36, 0), NoCount);
    let mut model: Vec<Option<Pending>> = vec![None; TIMERS];
    let mut rng = Rng(seed);
    let mut interrupts_that_fired = 0;
    for step in 0..3000 {
        let id = q.timer(rng.below(TIMERS as u64) as usize).unwrap();
        let clock = q.time().source().peek();
        let now = base_now::<B>(&conv, clock);
        match rng.below(8) {
            0..=2 => {
                let interval = if rng.below(4) == 0 { 1 + rng.below(20_000) } else { 0 };
                q.start(id, rng.below(50_000), interval);
                let p = q.pending(id).expect("started");
                assert!(p.date >= now && (interval == 0) == (p.interval == 0), "step {step}: {p:?}");
                model[id.index()] = Some(p);
            }
            3 => {
                let date_ns = (conv.ticks_to_ns(clock) + rng.below(50_000)).saturating_sub(1_000);
                q.start_abs(id, date_ns, 0);
                model[id.index()] = q.pending(id);
                assert!(model[id.index()].is_some());
            }
            4 => {
                assert_eq!(q.stop(id), model[id.index()].is_some(), "step {step}");
                model[id.index()] = None;
            }
            kind => {
                // 5: at the expiry; 6: some interrupt latency after it; 7: a spurious early interrupt.
                let at_expiry = kind != 7;
                let latency = if kind == 6 { rng.below(300) } else { 0 };
                let target = match q.hw_timer() {
                    Some(hw) if at_expiry => hw.expiry() + latency,
                    Some(hw) => clock + rng.below(hw.expiry().saturating_sub(clock) + 1),
                    None => clock + rng.below(10_000),
                };
                q.time().source().set(target.max(clock));
                let now = base_now::<B>(&conv, q.time().source().peek());
                let mut due: Vec<usize> = (0..TIMERS).filter(|&i| model[i].is_some_and(|p| p.date <= now)).collect();
                let mut fired = Vec::new();
                let count = q.tick(|t| fired.push(t.index()));
                assert_eq!(count as usize, fired.len());
                let dates: Vec<u64> = fired.iter().map(|&i| model[i].unwrap().date).collect();
                assert!(dates.windows(2).all(|w| w[0] <= w[1]), "step {step}: fired out of order {dates:?}");
                let mut sorted = fired.clone();
                sorted.sort_unstable();
                due.sort_unstable();
                assert_eq!(sorted, due, "step {step}: fired {fired:?}, due {due:?}");
                if at_expiry && q.hw_timer().is_some() {
                    assert!(count > 0 || now == 0, "step {step}: an interrupt at the expiry fired nothing");
                }
                interrupts_that_fired += usize::from(count > 0);
                for &i in &fired {
                    let p = model[i].unwrap();
                    model[i] = (p.interval > 0).then(|| {
                        let next = p.date + p.interval;
                        Pending { date: if next > now { next } else { now + p.interval }, interval: p.interval }
                    });
                }
            }
        }
        for (i, m) in model.iter().enumerate() {
            assert_eq!(q.pending(q.timer(i).unwrap()), *m, "step {step}: timer {i}");
        }
        let earliest = model.iter().flatten().map(|p| p.date).min();
        assert_eq!(q.len(), model.iter().flatten().count());
        match (q.hw_timer(), earliest) {
            (None, None) => {}
            (Some(hw), Some(date)) => {
                assert!(base_now::<B>(&conv, hw.expiry()) >= date.min(base_now::<B>(&conv, hw.programmed_at)));
                if B::NAME == "tsc" {
                    assert_eq!(hw.expiry(), date.max(hw.programmed_at), "step {step}: programmed for the head");
                }
            }
            other => panic!("step {step}: hardware timer {other:?} does not match the queue"),
        }
    }
    assert!(interrupts_that_fired > 100, "the test exercised firing only {interrupts_that_fired} times");
}

#[test]
fn fires_in_order_in_the_tick_base() {
    for seed in [1, 0x9e37_79b9_7f4a_7c15, 42] {
        random_operations_agree_with_model::<TickBase>(seed);
    }
}

#[test]
fn fires_in_order_in_the_ns_base() {
    for seed in [1, 0x9e37_79b9_7f4a_7c15, 42] {
        random_operations_agree_with_model::<NsBase>(seed);
    }
}

/// Starts compute the dates 002's pseudo-code does, in each base.
#[test]
fn starts_compute_002s_dates() {
    let conv = Converter::new(3_000_000_000);
    let mut t: TimerQueue<TickBase, ManualClock> = TimerQueue::new(1, conv, ManualClock::new(9_000, 0), NoCount);
    let id = t.timer(0).unwrap();
    t.start(id, 100, 10);
    assert_eq!(t.pending(id), Some(Pending { date: 9_300, interval: 30 }), "get_tsc() + delay in ticks");
    t.start_abs(id, 5_000, 0);
    assert_eq!(t.pending(id), Some(Pending { date: 15_001, interval: 0 }), "ns date rounded up to ticks");
    let mut n: TimerQueue<NsBase, ManualClock> = TimerQueue::new(1, conv, ManualClock::new(9_000, 0), NoCount);
    n.start(id, 100, 0);
    assert_eq!(n.pending(id), Some(Pending { date: 3_100, interval: 0 }), "get_time() + delay in ns");
    assert_eq!(n.hw_timer(), Some(HwTimer { programmed_at: 9_000, delay: 301 }));
    assert!(t.timer(1).is_none(), "an index past the capacity is refused");
}

/// A periodic timer re-arms at date + interval (no drift), or one interval after now when it has
/// missed periods.
#[test]
fn periodic_rearm_is_drift_free_and_skips_overruns() {
    let conv = Converter::new(1_000_000_000);
    let mut q: TimerQueue<TickBase, ManualClock> = TimerQueue::new(1, conv, ManualClock::new(0, 0), NoCount);
    let id = q.timer(0).unwrap();
    q.start(id, 100, 100);
    q.time().source().set(103);
    assert_eq!(q.tick(|_| {}), 1);
    assert_eq!(q.pending(id).unwrap().date, 200, "not 203: the period does not drift");
    q.time().source().set(450);
    assert_eq!(q.tick(|_| {}), 1, "missed periods fire once");
    assert_eq!(q.pending(id).unwrap().date, 550);
    assert_eq!(q.hw_timer(), Some(HwTimer { programmed_at: 450, delay: 100 }));
}

/// Only a change of the earliest timer programs the hardware timer.
#[test]
fn only_the_earliest_timer_programs_the_hardware() {
    let conv = Converter::new(1_000_000_000);
    let mut q: TimerQueue<NsBase, ManualClock, Counts> =
        TimerQueue::new(3, conv, ManualClock::new(0, 0), Counts::default());
    let (a, b) = (q.timer(0).unwrap(), q.timer(1).unwrap());
    q.start(a, 10, 0);
    q.start(b, 20, 0);
    assert_eq!(q.time().counter().hw_programs, 1, "b is not first");
    q.stop(b);
    assert_eq!(q.time().counter().hw_programs, 1, "stopping b changes nothing");
    q.start(b, 5, 0);
    q.stop(b);
    assert_eq!(q.time().counter().hw_programs, 3, "b first, then a again");
    q.stop(a);
    assert_eq!(q.hw_timer(), None);
    assert!(q.is_empty() && !q.stop(a));
}

fn counted(base: TimeBaseKind, s: Scenario, m: StartMode, source: impl TickSource, ops: u64) -> (Counts, u64) {
    let conv = Converter::new(2_500_000_000);
    match base {
        TimeBaseKind::Tsc => count_per_op::<TickBase, _>(s, m, conv, source, ops),
        TimeBaseKind::Ns => count_per_op::<NsBase, _>(s, m, conv, source, ops),
    }
    .unwrap()
}

/// 002's row with the one count where the queue knowingly differs: §1's TSC-based interrupt reads the
/// counter twice, not three times (it re-arms from its `now`).
fn expected(s: Scenario, base: TimeBaseKind, m: StartMode) -> Counts {
    let mut seed = s.seed_002(base, m).expect("002 has the row");
    if (s, base) == (Scenario::PeriodicTimer, TimeBaseKind::Tsc) {
        assert_eq!(seed.counter_reads, 3);
        seed.counter_reads = 2;
    }
    seed
}

/// Every row of 002's five summary tables (§1.3–§5.3), and the `program_timer()` calls and counter
/// reads of its pseudo-code, counted on the queue: equal for every operation (conversions exactly,
/// reads but for the difference `expected` names), timers firing while timeouts are stopped in time.
#[test]
fn every_scenario_counts_what_002_tables() {
    let mut rows = 0;
    for s in Scenario::ALL {
        for base in TimeBaseKind::ALL {
            for &m in s.starts() {
                let (counts, fired) = counted(base, s, m, ManualClock::new(1 << 40, 7), 5);
                let row = format!("{} {} {}", s.name(), base.name(), m.name());
                assert!(counts.same_conversions(&s.seed_002(base, m).unwrap().times(5)), "{row}: {counts:?}");
                assert_eq!(counts, expected(s, base, m).times(5), "{row}");
                assert_eq!(fired, if s.fires() { 5 } else { 0 }, "{row}");
                rows += 1;
            }
        }
    }
    assert_eq!(rows, 16, "002's tables have 4 + 2 + 2 + 4 + 4 rows");
    let spot = Scenario::AbsoluteTimer.seed_002(TimeBaseKind::Ns, StartMode::Relative).unwrap();
    assert_eq!((spot.total(), spot.ticks_to_ns, spot.ns_to_ticks), (5, 4, 1), "§4.3 ns-based row");
    assert!(Scenario::RelativeTimer.seed_002(TimeBaseKind::Tsc, StartMode::Absolute).is_none());
}

/// On the real counter too: the counts do not depend on the clock, and every interrupt finds its timer
/// due (the workloads rely on it).
#[cfg(target_arch = "x86_64")]
#[test]
fn hardware_counter_workloads_fire_every_time() {
    for s in Scenario::ALL {
        for base in TimeBaseKind::ALL {
            for &m in s.starts() {
                let (counts, fired) = counted(base, s, m, Rdtsc, 1000);
                assert_eq!(counts, expected(s, base, m).times(1000), "{} {}", s.name(), base.name());
                assert_eq!(fired, if s.fires() { 1000 } else { 0 }, "{} {}", s.name(), base.name());
            }
        }
    }
}

#[test]
fn names_round_trip_and_bad_start_is_refused() {
    for s in Scenario::ALL {
        assert_eq!(Scenario::parse(s.name()), Some(s));
    }
    assert_eq!(Scenario::AbsoluteTimeout.section(), 5);
    assert_eq!(TimeBaseKind::parse("ns"), Some(TimeBaseKind::Ns));
    assert_eq!(StartMode::parse("absolute"), Some(StartMode::Absolute));
    let err = Workload::<TickBase, ManualClock, NoCount>::new(
        Scenario::RelativeTimeout,
        StartMode::Absolute,
        Converter::new(HZ),
        ManualClock::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("relative_timeout"), "{err}");
}

/// The time base a parameter names is the queue's type of that name (the names live in the schema, the
/// types here).
#[test]
fn a_time_base_kind_names_its_queue_type() {
    use crate::{NsBase, TickBase, TimeBase, TimeBaseKind};
    assert_eq!(TimeBaseKind::Tsc.name(), <TickBase as TimeBase>::NAME);
    assert_eq!(TimeBaseKind::Ns.name(), <NsBase as TimeBase>::NAME);
}
