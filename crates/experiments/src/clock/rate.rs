//! `clock.rate`: Ben-Asher & Feitelson 1991 §2, Table 1, "relative rates of the processors, in parts per million", for
//! today's CPUs: every pair races the same local loop ([`super::race`]) five times, and each cell is how
//! much faster the column CPU counted than the row CPU. Beside it, each CPU's hardware counter rate
//! against `CLOCK_MONOTONIC_RAW` ([`super::counter_rate`]).

use std::collections::BTreeMap;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use super::counter_rate::{counter_rates, rate_matrix, reference_hz};
use super::hardware;
use super::race::{count, mean_and_standard_error, race, relative_rate_ppm, Lane, Line, Marks, Snapshot};
use crate::pairwise::{cpu_labels, deadline, effort_ns, index_pairs, on_pair, per_pair, whole_machine};
use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point, KERNEL};
use overhead_clock::TimeSourceKind;
use overhead_harness::{Harness, HarnessConfig, SpinBarrier};
use overhead_record::{Details, Matrix, Metric};

/// Races per pair; a cell is their mean, as Ben-Asher & Feitelson's "averages of five measurements for each pair".
pub const REPETITIONS: usize = 5;
/// The shortest window a race counts over, however many pairs (ns): 0.2 ms, where a disturbance of
/// 20 ns is 100 ppm.
const MIN_WINDOW_NS: f64 = 2e5;

/// Relative processing rates of every ordered pair of usable CPUs (one point for the whole machine).
/// Results in `details.matrices`: `relative_rate` (ppm, the column CPU's rate relative to the row
/// CPU's, mean of five races ± its standard error) and `counter_rate` (ppm, each CPU's hardware counter
/// against `CLOCK_MONOTONIC_RAW`, from the run's calibrated rate). The point's summary is the local
/// loop's time per iteration on the first CPU (metric `per op`, no control subtracted: the whole loop is
/// the reference activity), from which the window's iteration count is set.
///
/// Window per race: `20 × effort / 5 / pairs` (see [`effort_ns`]) within 0.2 ms … effort / 2:
/// on 2 CPUs 5.5 ms quick, 155 ms default; on 256 CPUs 0.2 ms, about 40 s in all. Pairs not started by
/// [`deadline`] are left empty with a note.
pub struct Rate;

/// What a `clock.rate` point reports beside its median (its `extra`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RateResult {
    /// Loop iterations between the early and the late mark of a window.
    pub window_iterations: f64,
    /// That window's length (ms).
    pub window_ms: f64,
    /// Windows timed per CPU pair.
    pub repetitions: f64,
    /// CPU pairs measured.
    pub pairs_measured: f64,
    /// The largest relative rate between two CPUs, in absolute value (ppm).
    pub max_abs_rate_ppm: f64,
    /// The rate the per-CPU counter rates are relative to (Hz), when the hardware counter was measured.
    pub counter_reference_hz: Option<f64>,
}

impl Rate {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::clock::RATE;
}

impl Experiment for Rate {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Rate::ID,
            summary: "relative processing rate of every CPU pair racing the same local loop (ppm), and each \
                      CPU's counter rate against CLOCK_MONOTONIC_RAW (ppm)",
            source: "Ben-Asher & Feitelson 1991 §2, Table 1; docs/METHOD.md §10 (reference activity)",
            metric: Metric::PerOp,
            requires: KERNEL,
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        whole_machine(ctx, self.id(), runtime)
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let progress = Line::new(AtomicU64::new(0));
        let measurement = h.measure(|n| count(&progress, 0, n), |_| {});
        let ns_per_iteration = measurement
            .summary()
            .map(|s| s.median)
            .filter(|&t| t > 0.0)
            .ok_or_else(|| anyhow::anyhow!("the local loop's time per iteration was not positive"))?;
        let window = window_ns(&h.config, index_pairs(spec.cpus.len()).len());
        let marks = Marks::for_window(window, ns_per_iteration);
        let rates = measure_rates(&spec.cpus, marks, REPETITIONS, Instant::now() + deadline(&h.config));
        let mut notes = rates.notes;
        let mut result = RateResult {
            window_iterations: (marks.late - marks.early) as f64,
            window_ms: (marks.late - marks.early) as f64 * ns_per_iteration / 1e6,
            repetitions: REPETITIONS as f64,
            pairs_measured: rates.pairs_measured as f64,
            max_abs_rate_ppm: rates.rate.values.iter().flatten().flatten().fold(0.0, |m, v| v.abs().max(m)),
            counter_reference_hz: None,
        };
        let mut details = Details::default();
        details.matrices.insert("relative_rate".into(), rates.rate);
        if hardware::KIND == TimeSourceKind::ClockMonotonicRaw {
            notes.push("no hardware counter on this architecture: counter_rate not measured".into());
        } else {
            let per_cpu = counter_rates(hardware::KIND, &spec.cpus, counter_span(&h.config));
            notes.extend(per_cpu.iter().filter_map(|r| r.as_ref().err().cloned()));
            if let Some(reference) = reference_hz(&h.clock, &per_cpu) {
                result.counter_reference_hz = Some(reference);
                details
                    .matrices
                    .insert("counter_rate".into(), rate_matrix(cpu_labels(&spec.cpus), &per_cpu, reference));
            }
        }
        Ok(Outcome { measurement, notes, extra: BTreeMap::new(), details }.with_result(&result))
    }
}

/// The window one race counts over for `pairs` pairs in this mode (ns; see [`Rate`]).
pub fn window_ns(config: &HarnessConfig, pairs: usize) -> f64 {
    let effort = effort_ns(config);
    per_pair(20.0 * effort / REPETITIONS as f64, pairs, MIN_WINDOW_NS, (effort / 2.0).max(MIN_WINDOW_NS))
}

/// How long each CPU's counter is compared with `CLOCK_MONOTONIC_RAW`: effort / 2 within 20 … 500 ms
/// (all CPUs at once, so the time does not grow with them).
fn counter_span(config: &HarnessConfig) -> Duration {
    Duration::from_secs_f64((effort_ns(config) / 2.0 / 1e9).clamp(0.02, 0.5))
}

/// What [`measure_rates`] found.
#[derive(Debug, Clone)]
pub struct RateMatrices {
    /// Column CPU's rate relative to the row CPU's (ppm), mean of the races ± its standard error;
    /// diagonal and unmeasured cells empty.
    pub rate: Matrix,
    pub pairs_measured: usize,
    /// Pairs not measured and why.
    pub notes: Vec<String>,
}

/// Races every pair of `cpus` `repetitions` times with `marks`, starting no pair after `deadline`.
pub fn measure_rates(cpus: &[usize], marks: Marks, repetitions: usize, deadline: Instant) -> RateMatrices {
    let n = cpus.len();
    let mut rate = Matrix::square(
        "processing rate of the column CPU relative to the row CPU (+: column faster), mean of races ± standard error",
        "ppm",
        cpu_labels(cpus),
    );
    let mut uncertainty = vec![vec![None; n]; n];
    let mut notes = Vec::new();
    let pairs = index_pairs(n);
    let mut pairs_measured = 0;
    for &(i, j) in &pairs {
        if Instant::now() > deadline {
            notes.push(format!("time budget spent: {pairs_measured} of {} pairs measured", pairs.len()));
            break;
        }
        let (seen_by_i, seen_by_j) = match race_pair((cpus[i], cpus[j]), marks, repetitions) {
            Ok(seen) => seen,
            Err(e) => {
                notes.push(format!("CPUs {} and {}: {e}", cpus[i], cpus[j]));
                continue;
            }
        };
        pairs_measured += 1;
        for (row, col, seen) in [(i, j, &seen_by_i), (j, i, &seen_by_j)] {
            let ppm: Vec<f64> = seen.iter().filter_map(|&s| relative_rate_ppm(marks, s)).collect();
            if ppm.len() < seen.len() {
                notes.push(format!(
                    "CPU {} vs {}: {} of {} races dropped (partner not counting at the early mark)",
                    cpus[row],
                    cpus[col],
                    seen.len() - ppm.len(),
                    seen.len()
                ));
            }
            if let Some((mean, se)) = mean_and_standard_error(&ppm) {
                rate.values[row][col] = Some(mean);
                uncertainty[row][col] = se;
            }
        }
    }
    rate.uncertainty = Some(uncertainty);
    RateMatrices { rate, pairs_measured, notes }
}

/// `repetitions` races of a pinned party on `cpus.0` against one on `cpus.1`: what each saw of the
/// other, race by race. The first party resets both lanes between races, while the other waits at the
/// barrier.
///
/// Errors: a refused pinning.
fn race_pair(cpus: (usize, usize), marks: Marks, repetitions: usize) -> Result<(Vec<Snapshot>, Vec<Snapshot>), String> {
    let lanes = [Lane::default(), Lane::default()];
    let barrier = SpinBarrier::new(2);
    let party = |me: usize| {
        let (lanes, barrier) = (&lanes, &barrier);
        move || {
            let mut seen = Vec::with_capacity(repetitions);
            let mut sense = false;
            for _ in 0..repetitions {
                if me == 0 {
                    lanes.iter().for_each(Lane::reset);
                }
                barrier.wait(&mut sense);
                seen.push(race(&lanes[me], &lanes[1 - me], marks));
                barrier.wait(&mut sense);
            }
            seen
        }
    };
    on_pair(cpus, party(0), party(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_harness::Mode;
    use overhead_machine::allowed_cpus;

    #[test]
    fn the_rate_matrix_is_square_labelled_and_filled_off_the_diagonal() {
        let cpus = allowed_cpus();
        let cpus = vec![cpus[0], *cpus.get(1).unwrap_or(&cpus[0])];
        let marks = Marks { early: 20_000, late: 220_000 };
        let r = measure_rates(&cpus, marks, 3, Instant::now() + Duration::from_secs(5));
        assert!(r.rate.is_well_formed());
        assert_eq!(r.rate.row_labels, cpu_labels(&cpus));
        assert_eq!(r.rate.col_labels, r.rate.row_labels);
        assert_eq!(r.pairs_measured, 1, "{:?}", r.notes);
        assert!(r.rate.values[0][0].is_none() && r.rate.values[1][1].is_none());
        if cpus[0] != cpus[1] {
            // Two CPUs racing at once: each saw the other counting. Not a rate check (a loaded VM can
            // preempt either), only that the cells hold finite numbers.
            let filled = [r.rate.values[0][1], r.rate.values[1][0]];
            assert!(filled.iter().flatten().all(|v| v.is_finite()), "{filled:?} {:?}", r.notes);
        }
    }

    #[test]
    fn windows_shrink_as_pairs_grow_and_stay_bounded() {
        let default = HarnessConfig::for_mode(Mode::Default);
        let effort = effort_ns(&default);
        assert_eq!(window_ns(&default, 1), effort / 2.0);
        assert_eq!(window_ns(&default, 256 * 255 / 2), MIN_WINDOW_NS);
        // 256 CPUs: every race at the floor fits the deadline, in every mode.
        let total_s = (256 * 255 / 2) as f64 * REPETITIONS as f64 * MIN_WINDOW_NS * 1.125 / 1e9;
        for mode in [Mode::Quick, Mode::Default, Mode::Full] {
            let config = HarnessConfig::for_mode(mode);
            assert_eq!(window_ns(&config, 256 * 255 / 2), MIN_WINDOW_NS);
            assert!(total_s < deadline(&config).as_secs_f64(), "{mode:?}: {total_s} s");
        }
    }
}
