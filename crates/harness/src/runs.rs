//! Measuring whole runs: for work that lasts milliseconds or more per run (Ben-Asher & Feitelson 1991 §7's granularity
//! sweep), where a batch is one run and the number of runs is chosen by the experiment.

use super::{CountsPerOp, Harness, Measurement};
use overhead_clock::Ticks;

impl<C: Ticks> Harness<C> {
    /// Times `reps` runs of `test(1)`, each after its own run of `control(1)` (ABAB, as in
    /// [`Harness::measure`]), after `warmup` untimed-for-the-result pairs; no batch sizing, so every batch
    /// is exactly one run. Samples are ns per run, control subtracted.
    ///
    /// For operations too long to repeat `repetitions` times within a point's budget (a whole
    /// computation split into tasks); short operations use [`Harness::measure`], whose batches
    /// reach the target duration. `reps` of 0 is taken as 1.
    pub fn measure_runs<T: FnMut(u64), K: FnMut(u64)>(
        &self,
        test: T,
        control: K,
        warmup: usize,
        reps: usize,
    ) -> Measurement {
        self.measure_runs_with_reset(test, control, |_| {}, warmup, reps)
    }

    /// [`Harness::measure_runs`] with `reset(1)` run untimed after every test run, warm-up runs included: for
    /// runs that must each start from a state the previous one used up. The next timed batch is the control
    /// run just before the next test run. rpc.floor's cold calls (Walfield 2008) evict the caches of both processes
    /// there, so that every timed call finds them cold.
    pub fn measure_runs_with_reset<T, K, R>(
        &self,
        mut test: T,
        mut control: K,
        mut reset: R,
        warmup: usize,
        reps: usize,
    ) -> Measurement
    where
        T: FnMut(u64),
        K: FnMut(u64),
        R: FnMut(u64),
    {
        let (control_ticks, test_ticks) =
            self.paired_ticks((&mut control, 1), (&mut test, 1), warmup, reps.max(1), &mut reset);
        let mut m = self.per_op(1, &test_ticks, &control_ticks, Vec::new());
        // The kernel's events, in runs of their own after the timed ones (docs/METHOD.md §18).
        let counts = self.counted_pairs((&mut control, 1), (&mut test, 1), &mut reset, &test_ticks);
        m.counts_per_op = CountsPerOp::from_pairs(1, &counts);
        m
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use crate::testing::{quick_harness, scripted_config, scripted_harness, ScriptedClock};

    /// Exactly warm-up + reps runs of each body, one operation each, and one sample per kept run.
    #[test]
    fn runs_exactly_the_runs_asked_for() {
        let h = quick_harness();
        let (mut tests, mut controls) = (Vec::new(), Vec::new());
        let m = h.measure_runs(
            |n| {
                tests.push(n);
                std::thread::sleep(std::time::Duration::from_micros(200));
            },
            |n| controls.push(n),
            2,
            5,
        );
        assert_eq!(tests, vec![1; 7]);
        assert_eq!(controls, vec![1; 7]);
        assert_eq!(m.batch_ops, 1);
        assert_eq!(m.samples_ns.len(), 5);
        assert!(m.samples_ns.iter().all(|&s| s >= 150_000.0), "a 200 µs sleep measured as {:?}", m.samples_ns);
    }

    /// Each run has the run of the control just before it subtracted, however long the runs: runs that grow
    /// by 1000 ticks a pair differ from their controls by exactly 4000 ticks, 2000 ns at 2 GHz. No sizing:
    /// the first timed batch is the first warm-up control, and 0 runs are taken as 1.
    #[test]
    fn each_run_has_its_own_control_subtracted() {
        let clock = ScriptedClock::new(2e9).with_read_ticks(3);
        let h = scripted_harness(clock, scripted_config(&clock, 1e9, 0, 0));
        let controls = Cell::new(0u64);
        let test = |n: u64| clock.advance(n * (5000 + 1000 * controls.get()));
        let control = |n: u64| {
            controls.set(controls.get() + 1);
            clock.advance(n * (1000 + 1000 * controls.get()))
        };
        let m = h.measure_runs(test, control, 2, 3);
        assert_eq!(m.batch_ops, 1);
        assert_eq!(m.samples_ns, vec![2000.0; 3]);
        assert_eq!(m.control_ns, vec![(4000 + 3) as f64 / 2.0, (5000 + 3) as f64 / 2.0, (6000 + 3) as f64 / 2.0]);
        assert_eq!(controls.get(), 5);
        assert_eq!(h.measure_runs(test, control, 0, 0).samples_ns, vec![2000.0]);
    }

    /// A reset follows every test run, warm-up runs included, and costs no sample anything: resets that take a
    /// million ticks leave every run at exactly its own 3000 ticks, 1500 ns at 2 GHz.
    #[test]
    fn resets_follow_every_run_untimed() {
        let clock = ScriptedClock::new(2e9);
        let h = scripted_harness(clock, scripted_config(&clock, 1e9, 0, 0));
        let order = std::cell::RefCell::new(String::new());
        let m = h.measure_runs_with_reset(
            |n| {
                order.borrow_mut().push('T');
                clock.advance(3000 * n)
            },
            |_| order.borrow_mut().push('C'),
            |n| {
                assert_eq!(n, 1);
                order.borrow_mut().push('R');
                clock.advance(1_000_000)
            },
            1,
            3,
        );
        assert_eq!(*order.borrow(), "CTR".repeat(4));
        assert_eq!(m.samples_ns, vec![1500.0; 3]);
        assert_eq!(m.control_ns, vec![0.0; 3]);
    }
}
