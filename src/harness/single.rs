//! Measuring an operation on the calling thread.

use super::{Harness, Measurement};
use crate::clock::Ticks;

impl<C: Ticks> Harness<C> {
    /// Measures `test` against `control` on the calling thread (pin it first).
    ///
    /// Both bodies run their operation `n` times per call. N is found by doubling the test batch until
    /// it lasts `target_batch_ns` (seed 001 §1: long enough that start-up transients vanish); then
    /// `warmup` pairs are run and dropped, and `repetitions` pairs are kept. Control and test batches
    /// alternate (ABAB) so slow drift affects both alike, and each test batch has its own neighbouring
    /// control subtracted, as seed 001 §5.1 and 002's "loop overhead compensated" do.
    pub fn measure<T: FnMut(u64), K: FnMut(u64)>(&self, test: T, control: K) -> Measurement {
        self.measure_with_reset(test, control, |_| {})
    }

    /// [`Harness::measure`] with `reset(n)` run untimed after every test batch of `n` operations, for
    /// operations that use up state a batch must get back (a P-only batch takes `n` permits; the reset
    /// returns them, so the count never drains however long the run).
    pub fn measure_with_reset<T, K, R>(&self, mut test: T, mut control: K, mut reset: R) -> Measurement
    where
        T: FnMut(u64),
        K: FnMut(u64),
        R: FnMut(u64),
    {
        let n = self.size_batch(&mut test, &mut reset);
        let (warmup, reps) = (self.config.warmup, self.config.repetitions);
        let (control_ticks, test_ticks) =
            self.paired_ticks((&mut control, n), (&mut test, n), warmup, reps, &mut reset);
        self.per_op(n, &test_ticks, &control_ticks, Vec::new())
    }

    /// Doubles N from 1 until a test batch reaches the target duration, confirmed by a second batch of the
    /// same N (the faster of the two counts), or the op cap. Without the confirmation one preempted or cold
    /// batch early on (a page fault, a descheduled vCPU) stops the doubling at a tiny N, and every kept batch
    /// is then too short to time well. A batch-size hint (the point's first process's N,
    /// [`Harness::with_batch_hint`]) is tried first and kept when one batch of it is near the target.
    fn size_batch<T: FnMut(u64), R: FnMut(u64)>(&self, test: &mut T, reset: &mut R) -> u64 {
        let target_ticks = self.target_ticks();
        let mut timed = |n: u64| {
            let ticks = self.time_batch(test, n);
            reset(n);
            ticks as f64
        };
        if let Some(hint) = self.take_batch_hint() {
            if self.hint_fits(timed(hint)) {
                self.note_sized(hint);
                return hint;
            }
        }
        let mut n = 1u64;
        loop {
            if n >= self.config.max_batch_ops || (timed(n) >= target_ticks && timed(n) >= target_ticks) {
                self.note_sized(n);
                return n;
            }
            n *= 2;
        }
    }

    /// Converts paired batch tick counts to ns per operation.
    pub(super) fn per_op(&self, n: u64, test: &[u64], control: &[u64], per_thread_ns: Vec<Vec<f64>>) -> Measurement {
        let to_ns = |ticks: u64| self.clock.ticks_to_ns(ticks as f64) / n as f64;
        Measurement {
            batch_ops: n,
            samples_ns: test.iter().zip(control).map(|(&t, &c)| to_ns(t) - to_ns(c)).collect(),
            control_ns: control.iter().map(|&c| to_ns(c)).collect(),
            per_thread_ns,
            resolution_ns: self.resolution_per_op_ns(n),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::hint::black_box;

    use crate::clock::{calibrate, Calibration};
    use crate::harness::{Harness, HarnessConfig, Mode};

    fn quick_harness() -> Harness {
        let time = calibrate(false, Calibration { span: std::time::Duration::from_millis(10), spans: 1 });
        Harness::new(&time, HarnessConfig::for_mode(Mode::Quick))
    }

    /// A serial dependency chain of `k` xorshift-multiply steps: its cost per call is proportional to `k`.
    #[inline(never)]
    fn chain(k: u64, seed: u64) -> u64 {
        let mut x = seed;
        for _ in 0..k {
            // xorshift-multiply: non-linear, so the compiler cannot fold several links into one.
            x = (x ^ (x >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        }
        x
    }

    /// The method on a known-cost operation: doubling the work doubles the measured time, and the
    /// control (same loop, no work) is subtracted, so the ratio is 2 rather than (2w + c) / (w + c).
    #[test]
    fn known_cost_operation_measures_linearly() {
        let h = quick_harness();
        let median = |k: u64| {
            let m = h.measure(
                |n| {
                    for i in 0..n {
                        black_box(chain(black_box(k), i));
                    }
                },
                |n| {
                    for i in 0..n {
                        black_box(chain(black_box(0), i));
                    }
                },
            );
            assert_eq!(m.samples_ns.len(), h.config.repetitions);
            m.summary().unwrap().median
        };
        // Retry: a loaded 2-CPU VM can preempt one of the measurements; the method must hold at least
        // once in three tries, and a broken subtraction (ratio ≈ 1.5 or worse) never would.
        let ratios: Vec<f64> = (0..3).map(|_| median(2000) / median(1000)).collect();
        assert!(ratios.iter().any(|r| (r - 2.0).abs() < 0.15), "ratios {ratios:?}");
    }

    /// Every test batch is followed by its reset with the same N, and no control batch is.
    #[test]
    fn reset_follows_every_test_batch() {
        let h = quick_harness();
        let taken = std::cell::Cell::new(0u64);
        let m = h.measure_with_reset(
            |n| taken.set(taken.get() + n),
            |_| {},
            |n| {
                assert!(taken.get() >= n, "reset ran without a test batch before it");
                taken.set(taken.get() - n)
            },
        );
        assert_eq!(taken.get(), 0);
        assert_eq!(m.samples_ns.len(), h.config.repetitions);
    }

    /// A hint near the target is kept without doubling; a hint far from it is dropped and sizing doubles from
    /// 1; only the first sizing of a probe takes the hint, and the first N is reported.
    #[test]
    fn batch_hint_is_kept_only_when_it_fits() {
        let body = |n: u64| {
            for i in 0..n {
                black_box(i);
            }
        };
        let sized = quick_harness().measure(body, |_| {}).batch_ops;
        let h = quick_harness().with_batch_hint(Some(sized));
        let calls = std::cell::Cell::new(0);
        let m = h.measure(
            |n| {
                calls.set(calls.get() + 1);
                body(n)
            },
            |_| {},
        );
        assert!(m.batch_ops >= sized / 4 && m.batch_ops <= sized * 4, "{sized} → {}", m.batch_ops);
        assert_eq!(h.first_sized_batch_ops(), Some(m.batch_ops));
        if m.batch_ops == sized {
            assert_eq!(calls.get(), 1 + h.config.warmup + h.config.repetitions, "one hinted batch, no doubling");
        }
        // A hint of one operation is far below the target: dropped, and sizing doubles as usual.
        let h = quick_harness().with_batch_hint(Some(1));
        assert!(h.measure(body, |_| {}).batch_ops > 1000);
        // The hint was taken by the first sizing; a second measurement sizes afresh and the first N stays.
        let first = h.first_sized_batch_ops();
        let _ = h.measure(|n| body(n / 2), |_| {});
        assert_eq!(h.first_sized_batch_ops(), first);
    }

    #[test]
    fn batch_grows_to_target() {
        let h = quick_harness();
        let m = h.measure(
            |n| {
                for i in 0..n {
                    black_box(i);
                }
            },
            |_| {},
        );
        assert!(m.batch_ops > 1000, "an empty loop needs many iterations per ms: {}", m.batch_ops);
        assert!(m.batch_ops.is_power_of_two());
        assert_eq!(m.control_ns.len(), m.samples_ns.len());
    }
}
