//! Test support (docs/ARCHITECTURE.md "Test support"): a scripted clock, so that tests of batch sizing,
//! interleaving and team accounting know exactly what each batch took without timing real hardware, and the
//! one quick real-clock harness that the crate's tests share.

use std::cell::Cell;
use std::sync::OnceLock;
use std::time::Duration;

use super::{Harness, HarnessConfig, Mode};
use overhead_clock::{calibrate, Calibration, Ticks, TimeSourceInfo};

thread_local! {
    /// The calling thread's scripted time, in ticks. One per thread, so that each thread of a team reads
    /// only the time its own bodies and reads spent, whatever order the threads run in.
    static NOW: Cell<u64> = const { Cell::new(0) };
}

/// A tick source whose time moves only when told: by [`ScriptedClock::advance`] (a test body saying what
/// its operations cost, e.g. `n` times 3 ticks) and by a fixed cost per read. Time is per thread and starts
/// at 0 on a new thread; only differences between reads matter.
///
/// A batch of a body that advances `b` ticks, timed between a start and a stop read, takes exactly
/// `b + read_ticks` ticks: each read adds `read_ticks` and then returns the time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScriptedClock {
    /// Ticks per second (1e9: a tick is a ns).
    pub hz: f64,
    /// Ticks each read adds to the calling thread's time before returning it.
    pub read_ticks: u64,
}

impl ScriptedClock {
    /// A clock of `hz` ticks per second whose reads cost nothing.
    pub const fn new(hz: f64) -> ScriptedClock {
        ScriptedClock { hz, read_ticks: 0 }
    }

    /// The same clock with reads that cost `read_ticks` ticks each.
    pub const fn with_read_ticks(self, read_ticks: u64) -> ScriptedClock {
        ScriptedClock { read_ticks, ..self }
    }

    /// Moves the calling thread's time on by `ticks`.
    pub fn advance(&self, ticks: u64) {
        NOW.with(|now| now.set(now.get() + ticks));
    }

    /// The calling thread's time in ticks, without the cost of a read.
    pub fn now(&self) -> u64 {
        NOW.with(Cell::get)
    }

    /// A batch body whose every operation costs `ticks_per_op`: `body(n)` advances the time by `n ×
    /// ticks_per_op`.
    pub fn ops(self, ticks_per_op: u64) -> impl Fn(u64) + Copy {
        move |n| self.advance(n * ticks_per_op)
    }

    /// One read: its cost, then the time.
    fn read(&self) -> u64 {
        self.advance(self.read_ticks);
        self.now()
    }
}

impl Ticks for ScriptedClock {
    fn start(&self) -> u64 {
        self.read()
    }

    fn stop(&self) -> u64 {
        self.read()
    }

    fn hz(&self) -> f64 {
        self.hz
    }
}

/// Settings for a scripted harness: a batch grows until it lasts `target_ticks` ticks of `clock`, then
/// `warmup` pairs are dropped and `repetitions` kept; no op cap below 2³².
pub fn scripted_config(clock: &ScriptedClock, target_ticks: f64, warmup: usize, repetitions: usize) -> HarnessConfig {
    HarnessConfig {
        target_batch_ns: clock.ticks_to_ns(target_ticks),
        warmup,
        repetitions,
        // The scripted tests follow every batch the harness runs: no counted ones.
        counted_pairs: 0,
        ..HarnessConfig::for_mode(Mode::Quick)
    }
}

/// A harness timing with `clock` under `config`; its resolution is one tick and its read cost the clock's
/// `read_ticks`, both in ns.
pub fn scripted_harness(clock: ScriptedClock, config: HarnessConfig) -> Harness<ScriptedClock> {
    let (resolution_ns, read_cost_ns) = (clock.ticks_to_ns(1.0), clock.ticks_to_ns(clock.read_ticks as f64));
    Harness::with_clock(clock, config, resolution_ns, read_cost_ns)
}

/// The time source of every quick harness: calibrated once per test process, for 10 ms (a real clock: the
/// TSC when it is invariant).
fn quick_time() -> &'static TimeSourceInfo {
    static TIME: OnceLock<TimeSourceInfo> = OnceLock::new();
    TIME.get_or_init(|| calibrate(false, Calibration { span: Duration::from_millis(10), spans: 1 }))
}

/// Settings of the quick harness: `Mode::Quick`'s (1 warm-up pair, 3 kept) with 0.1 ms batches instead of
/// 0.5 ms, so that a test that sizes batches on real hardware spends little time doing it, and no counted
/// pairs (tests that count the batches they ran see only the timed ones; a counting test asks for them).
pub fn quick_config() -> HarnessConfig {
    HarnessConfig { target_batch_ns: 1e5, counted_pairs: 0, ..HarnessConfig::for_mode(Mode::Quick) }
}

/// The crate's quick real-clock harness for tests that measure real operations: [`quick_config`] on a
/// clock calibrated once per test process.
pub fn quick_harness() -> Harness {
    quick_harness_with(quick_config())
}

/// A real-clock harness like [`quick_harness`], under other settings (a test that needs more repetitions
/// or longer batches starts from [`quick_config`]).
pub fn quick_harness_with(config: HarnessConfig) -> Harness {
    Harness::new(quick_time(), config)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A batch takes what its body advanced plus one read's cost, on the thread that reads; another thread's
    /// time does not move.
    #[test]
    fn a_batch_takes_what_its_body_advanced_plus_one_read() {
        let clock = ScriptedClock::new(1e9).with_read_ticks(7);
        let t0 = clock.start();
        clock.ops(3)(10);
        let t1 = clock.stop();
        assert_eq!(t1 - t0, 30 + 7);
        let before = clock.now();
        std::thread::spawn(move || {
            clock.advance(1_000);
            assert_eq!(clock.now(), 1_000, "a new thread starts at 0");
        })
        .join()
        .unwrap();
        assert_eq!(clock.now(), before);
        assert_eq!(ScriptedClock::new(2e9).ticks_to_ns(3.0), 1.5);
    }

    /// The scripted settings reach their target in ticks, and the scripted harness's floor is one tick.
    #[test]
    fn scripted_harness_targets_ticks() {
        let clock = ScriptedClock::new(2e9).with_read_ticks(4);
        let h = scripted_harness(clock, scripted_config(&clock, 1000.0, 2, 5));
        assert_eq!(h.config.target_batch_ns, 500.0);
        assert_eq!((h.config.warmup, h.config.repetitions), (2, 5));
        assert_eq!(h.resolution_per_op_ns(1), 2.0, "the larger of a tick (0.5 ns) and a read (2 ns)");
    }

    /// Quick harnesses share one calibration and use the short batches.
    #[test]
    fn quick_harnesses_share_one_clock() {
        let (a, b) = (quick_harness(), quick_harness());
        assert_eq!(a.clock, b.clock);
        assert!(a.clock.hz > 1e6, "{:?}", a.clock);
        assert_eq!(a.config, quick_config());
        assert!(quick_config().target_batch_ns < HarnessConfig::for_mode(Mode::Quick).target_batch_ns);
    }
}
