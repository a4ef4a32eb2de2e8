//! The measuring method (docs/METHOD.md §1–5): batches sized to a target duration, interleaved control
//! batches subtracted, warm-up, repetitions, and thread teams started together on a spin barrier.
//!
//! Experiments never time themselves: they hand the harness a *test* body and a *control* body, each
//! `FnMut(n)` running its operation `n` times, and get back per-operation samples in ns.

pub mod host_pair;
mod known_cost;
mod runs;
mod single;
pub mod sizing;
pub mod speed;
mod spin_barrier;
mod team;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

pub use known_cost::{chain, chain_batch};
pub use overhead_schema::{CountsPerOp, HarnessConfig, Measurement, Mode, TeamReport, COUNTED_PAIRS};
pub use spin_barrier::SpinBarrier;
pub use team::{Seat, TeamTiming};

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use overhead_clock::{Clock, Ticks, TimeSourceInfo};
use overhead_machine::{Counts, ThreadCounters};

/// A harness bound to one calibrated clock and one set of batch/repetition settings.
///
/// `C` is the tick source read at batch edges: the calibrated [`Clock`] everywhere but in tests, which time
/// batches with a scripted clock (`testing::ScriptedClock`, docs/ARCHITECTURE.md "Test support") to know
/// exactly what each batch took. Every measuring method is compiled for its `C`: no dynamic dispatch and no
/// extra branch on the timed path.
#[derive(Debug, Clone)]
pub struct Harness<C = Clock> {
    /// The tick source read at batch edges.
    pub clock: C,
    /// Batch and repetition settings (docs/METHOD.md §1).
    pub config: HarnessConfig,
    /// Smallest observable step of the clock, ns; used to decide "below resolution".
    pub resolution_ns: f64,
    /// Cost of one clock read, ns; part of the resolution floor of a batch.
    pub read_cost_ns: f64,
    /// The batch size this probe was asked to reuse, and the one its first sizing settled on; shared by
    /// clones, so a harness handed into a runtime's context reports back to the probe.
    sizing: Arc<BatchSizing>,
}

/// The batch size a probe reuses from the point's first process (docs/METHOD.md "Rounds"): every process of
/// a point then times the same loop of N operations, so N is not one more thing that differs between them.
/// 0 in either field means "none".
#[derive(Debug, Default)]
struct BatchSizing {
    /// N to try first at the next sizing (taken once).
    hint: AtomicU64,
    /// N the probe's first sizing settled on.
    first: AtomicU64,
}

impl Harness {
    /// A harness timing with the source described by `time` and the settings of `config`.
    pub fn new(time: &TimeSourceInfo, config: HarnessConfig) -> Harness {
        Harness::with_clock(time.clock, config, time.resolution_ns, time.read_cost_ns)
    }
}

impl<C: Ticks> Harness<C> {
    /// A harness timing with `clock` and the settings of `config`; `resolution_ns` is the smallest step the
    /// clock shows and `read_cost_ns` the cost of one read (both ns, both part of the resolution floor,
    /// [`Harness::resolution_per_op_ns`]). [`Harness::new`] fills them from a calibration.
    pub fn with_clock(clock: C, config: HarnessConfig, resolution_ns: f64, read_cost_ns: f64) -> Harness<C> {
        Harness { clock, config, resolution_ns, read_cost_ns, sizing: Arc::default() }
    }

    /// The same harness with `batch_ops` as the batch size its first sizing tries: it is kept when one
    /// batch of it lasts between a quarter of and four times the target (the point's first process found
    /// it; the machine may run faster or slower now), or when it is one operation at least as long as the
    /// target ([`hint_kept`]), else sizing doubles from 1 as usual. Only the first
    /// sizing of the probe takes the hint: an experiment that measures several operations sizes the others
    /// afresh.
    pub fn with_batch_hint(self, batch_ops: Option<u64>) -> Self {
        self.sizing.hint.store(batch_ops.unwrap_or(0), Ordering::Relaxed);
        self
    }

    /// The N the probe's first sizing settled on (from the hint or by doubling); `None` when nothing was
    /// sized (an experiment of whole runs, or one that times itself).
    pub fn first_sized_batch_ops(&self) -> Option<u64> {
        Some(self.sizing.first.load(Ordering::Relaxed)).filter(|&n| n > 0)
    }

    /// The batch-size hint its first sizing will try ([`Harness::with_batch_hint`]), without taking it;
    /// `None` when there is none or a sizing has taken it.
    pub fn batch_hint(&self) -> Option<u64> {
        Some(self.sizing.hint.load(Ordering::Relaxed)).filter(|&n| n > 0)
    }

    /// The hint, once: later sizings in the same probe get `None`.
    fn take_batch_hint(&self) -> Option<u64> {
        Some(self.sizing.hint.swap(0, Ordering::Relaxed)).filter(|&n| n > 0)
    }

    /// Records the N of the probe's first sizing; later sizings leave it.
    fn note_sized(&self, n: u64) {
        let _ = self.sizing.first.compare_exchange(0, n, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// The target batch duration in ticks of this harness's clock.
    fn target_ticks(&self) -> f64 {
        self.config.target_batch_ns * self.clock.hz() / 1e9
    }

    /// Whether a hinted batch of `hint` operations that took `ticks` is kept ([`hint_kept`]).
    fn hint_fits(&self, hint: u64, ticks: f64) -> bool {
        hint_kept(hint, ticks, self.target_ticks())
    }

    /// Runs `body(n)` between the two batch-edge reads and returns the elapsed ticks (no control
    /// subtracted). For checks of the harness itself; experiments use [`Harness::measure`].
    pub fn batch_ticks<F: FnMut(u64)>(&self, body: &mut F, n: u64) -> u64 {
        self.time_batch(body, n)
    }

    /// The harness's interleaving (docs/METHOD.md §1): `warmup` pairs, then `pairs` kept pairs, of a batch
    /// of `first = (body, n)` immediately followed by a batch of `second`, each pair ending with
    /// `after_second(n)` run untimed with the second batch's `n`. Returns the kept pairs' ticks, `(first's,
    /// second's)`, in the order they ran; warm-up pairs are timed like the others and dropped.
    ///
    /// [`Harness::measure`] runs it with the control first and the test second; `overhead check` with N and
    /// 2N operations of one body. No control is subtracted here.
    #[inline]
    pub fn paired_ticks<A, B, R>(
        &self,
        first: (&mut A, u64),
        second: (&mut B, u64),
        warmup: usize,
        pairs: usize,
        after_second: &mut R,
    ) -> (Vec<u64>, Vec<u64>)
    where
        A: FnMut(u64),
        B: FnMut(u64),
        R: FnMut(u64),
    {
        let ((a, na), (b, nb)) = (first, second);
        for _ in 0..warmup {
            self.time_batch(a, na);
            self.time_batch(b, nb);
            after_second(nb);
        }
        let mut first_ticks = Vec::with_capacity(pairs);
        let mut second_ticks = Vec::with_capacity(pairs);
        for _ in 0..pairs {
            first_ticks.push(self.time_batch(a, na));
            second_ticks.push(self.time_batch(b, nb));
            after_second(nb);
        }
        (first_ticks, second_ticks)
    }

    /// The kernel's events of more pairs of `first` and `second` batches, after the timed ones and untimed
    /// ([`Harness::pairs_to_count`] of them, given the kept `test_ticks` of `nb` operations): `(first's,
    /// second's)` per pair, from the calling thread's counters opened for them alone and closed after. A thread with counters open pays for them at every context switch (the kernel
    /// switches its perf context: an A/A pair of counting against not counting read `sched.switch` futex 30%
    /// slower), so no timed batch runs with them. Empty where the kernel refuses the counters
    /// (docs/METHOD.md §18).
    pub fn counted_pairs<A, B, R>(
        &self,
        (a, na): (&mut A, u64),
        (b, nb): (&mut B, u64),
        after_second: &mut R,
        test_ticks: &[u64],
    ) -> Vec<(Counts, Counts)>
    where
        A: FnMut(u64),
        B: FnMut(u64),
        R: FnMut(u64),
    {
        let pairs_to_count = self.pairs_to_count(test_ticks, nb);
        if pairs_to_count == 0 {
            return Vec::new();
        }
        let Ok(mut counters) = ThreadCounters::open() else { return Vec::new() };
        let mut counted = |body: &mut dyn FnMut(u64), n: u64| -> Option<Counts> {
            let before = counters.read().ok()?;
            body(n);
            Some(counters.read().ok()?.since(before))
        };
        let mut pairs = Vec::with_capacity(pairs_to_count);
        for _ in 0..pairs_to_count {
            let first = counted(a, na);
            let second = counted(b, nb);
            after_second(nb);
            pairs.extend(first.zip(second));
        }
        pairs
    }

    /// How many counted pairs follow kept test batches of `test_ticks`, each of `ops` operations:
    /// [`HarnessConfig::counted_pairs`], but one when a batch is a single operation whose median batch lasts
    /// more than four times the target (`near_target`'s factor). Such an operation (a thousand thread spawns, a
    /// whole computation) holds its many events in one pair as well as in two, and each pair costs it as much
    /// as a kept one: on `spawn.bulk` with kernel threads a second pair was a sixth of the process. A batch of
    /// several operations keeps every pair, whatever it lasted: its few events per operation (a sleep's one
    /// switch) would move by a stray switch over the operations of one pair (docs/METHOD.md §18).
    pub fn pairs_to_count(&self, test_ticks: &[u64], ops: u64) -> usize {
        let configured = self.config.counted_pairs;
        let mut sorted = test_ticks.to_vec();
        sorted.sort_unstable();
        match sorted.get(sorted.len() / 2) {
            Some(&median) if configured > 1 && ops == 1 && median as f64 > 4.0 * self.target_ticks() => 1,
            _ => configured,
        }
    }

    /// Runs `body(n)` between the two batch-edge reads and returns the elapsed ticks.
    #[inline(always)]
    fn time_batch<F: FnMut(u64)>(&self, body: &mut F, n: u64) -> u64 {
        let t0 = self.clock.start();
        body(n);
        let t1 = self.clock.stop();
        t1.wrapping_sub(t0)
    }

    /// The per-operation floor below which a batch of `n` operations cannot resolve a difference: one
    /// clock step or one read, whichever is larger, spread over the batch (ns).
    pub fn resolution_per_op_ns(&self, n: u64) -> f64 {
        self.resolution_ns.max(self.read_cost_ns) / n.max(1) as f64
    }
}

/// Whether a hinted batch of `hint` operations that took `ticks` is kept: within a factor of 4 of
/// `target_ticks` ([`near_target`]), or a single operation at least as long as the target. The first process
/// sized that one operation and confirmed it outlasts the target; no smaller batch exists, and sizing again
/// would run it twice more (a batch and its confirmation), a third of a `spawn.bulk` process with kernel
/// threads.
fn hint_kept(hint: u64, ticks: f64, target_ticks: f64) -> bool {
    near_target(ticks, target_ticks) || (hint == 1 && ticks >= target_ticks)
}

/// Whether a batch of `ticks` is within a factor of 4 of `target_ticks`: close enough to keep a hinted N.
fn near_target(ticks: f64, target_ticks: f64) -> bool {
    ticks >= target_ticks / 4.0 && ticks <= target_ticks * 4.0
}

/// A loop of `n` iterations whose only work is keeping the index alive: the control for operations
/// timed inside the same kind of loop.
#[inline(always)]
pub fn empty_loop(n: u64) {
    for i in 0..n {
        std::hint::black_box(i);
    }
}

#[cfg(test)]
mod counted_pairs_tests {
    use crate::testing::{scripted_config, scripted_harness, ScriptedClock};
    use crate::HarnessConfig;

    /// Every configured pair while a batch lasts about the target (up to four times it) or holds several
    /// operations, one when a single operation lasts far longer, and never more than configured nor any when
    /// none are.
    #[test]
    fn one_operation_far_longer_than_the_target_counts_one_pair() {
        let clock = ScriptedClock::new(1e9);
        let config = HarnessConfig { counted_pairs: 2, ..scripted_config(&clock, 1000.0, 1, 3) };
        let h = scripted_harness(clock, config);
        assert_eq!(h.pairs_to_count(&[1000, 1200, 1900], 1), 2);
        assert_eq!(h.pairs_to_count(&[3900, 4000, 4000], 1), 2, "four times the target is still near it");
        assert_eq!(h.pairs_to_count(&[4001, 90_000, 100_000], 1), 1);
        assert_eq!(
            h.pairs_to_count(&[4001, 90_000, 100_000], 4),
            2,
            "several operations: a slow batch, not a long operation"
        );
        assert_eq!(h.pairs_to_count(&[], 1), 2);
        let none = scripted_harness(clock, HarnessConfig { counted_pairs: 0, ..config });
        assert_eq!(none.pairs_to_count(&[100_000], 1), 0);
        let one = scripted_harness(clock, HarnessConfig { counted_pairs: 1, ..config });
        assert_eq!(one.pairs_to_count(&[100_000], 1), 1);
    }
}
