//! Measuring whole runs: for work that lasts milliseconds or more per run (seed 001 §7's granularity
//! sweep), where a batch is one run and the number of runs is chosen by the experiment.

use super::{Harness, Measurement};
use crate::clock::Ticks;

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
        mut test: T,
        mut control: K,
        warmup: usize,
        reps: usize,
    ) -> Measurement {
        let (control_ticks, test_ticks) =
            self.paired_ticks((&mut control, 1), (&mut test, 1), warmup, reps.max(1), &mut |_| {});
        self.per_op(1, &test_ticks, &control_ticks, Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use crate::clock::{calibrate, Calibration};
    use crate::harness::{Harness, HarnessConfig, Mode};

    /// Exactly warm-up + reps runs of each body, one operation each, and one sample per kept run.
    #[test]
    fn runs_exactly_the_runs_asked_for() {
        let time = calibrate(false, Calibration { span: std::time::Duration::from_millis(10), spans: 1 });
        let h = Harness::new(&time, HarnessConfig::for_mode(Mode::Quick));
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
}
