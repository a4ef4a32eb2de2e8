//! `clock.offset`: how far apart the CPUs' counters are at one instant, their offset (how fast that offset
//! drifts, the relative rate that NTP and PTP call skew, is `clock.rate`). Records from before the rename call it
//! `clock.skew` and read as this (`overhead_record::legacy`). For every pair of usable CPUs, two threads
//! pinned to them take turns reading the counter, passing the turn through one cache line (the
//! ping-pong of the kernel's `check_tsc_warp` and of core-to-core latency tools). Each three
//! consecutive readings are an exchange ([`super::offset_estimate`]); the fastest exchange bounds the offset of
//! one counter against the other to ± half its round trip, the fastest exchange started from the other
//! side bounds it again, and the offset reported is the centre of the two bounds' intersection. Any
//! reading below the one seen just before it is a warp.

use crossbeam_utils::CachePadded;
use std::collections::BTreeMap;
use std::hint::spin_loop;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use super::hardware;
use super::offset_estimate::{combine_directions, count_warps, estimate_offset, exchanges};
use crate::pairwise::{cpu_labels, deadline, effort_ns, index_pairs, on_pair, per_pair, whole_machine};
use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point, KERNEL};
use overhead_clock::Clock;
use overhead_harness::{Harness, HarnessConfig, Measurement};
use overhead_record::{Details, Matrix, Metric};

/// Readings per pair never exceed this: 50 000 exchanges each way are plenty for the minimum.
const MAX_READINGS: usize = 100_000;
/// Nor fall below this, however many pairs: 500 exchanges each way still find a fast one.
const MIN_READINGS: usize = 1_000;
/// The budget, in readings, assumes one reading (one cache-line handoff plus a counter read) costs
/// about this much (ns); a slower machine takes longer, bounded by [`deadline`].
const READING_COST_NS: f64 = 200.0;
/// Spins on the turn before yielding: only reached when the partner is not running (a refused or
/// shared CPU, a preempted vCPU), where spinning would burn the partner's time slice.
const SPINS_BEFORE_YIELD: u32 = 1 << 12;

/// Cross-CPU counter offsets with their uncertainty, and warps, for every ordered pair of usable CPUs
/// (one point for the whole machine). Results are in `details.matrices`: `offset` (ns, column CPU's
/// counter minus row CPU's at the same instant, with `uncertainty`; from both directions' bounds
/// together, so the matrix is antisymmetric, see [`combine_directions`]) and `warps` (count). The point's
/// summary is the fastest exchange round trip of each ordered pair (metric `rtt`, ns): the time the
/// uncertainty is half of, and what a cache-line round trip costs between those CPUs. Exchanges are
/// timed one by one, not in harness batches: the method keeps the fastest single exchange, which a
/// batch would average away; there is no control to subtract (`ovr` is 0).
///
/// Work per pair: `10 × effort / 200 ns / pairs` readings (see [`effort_ns`]), within 1 000 …
/// 100 000, so on 2 CPUs quick takes ~20 ms and a 256-CPU machine in default mode about 1 000 readings
/// per pair (~10 s in all); pairs not started by [`deadline`] are left empty with a note.
pub struct Offset;

/// What a `clock.offset` point reports beside its median (its `extra`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct OffsetResult {
    /// Counter readings exchanged per CPU pair.
    pub readings_per_pair: f64,
    /// CPU pairs measured.
    pub pairs_measured: f64,
    /// The counter's rate (Hz).
    pub counter_hz: f64,
    /// The largest offset between two CPUs' counters, in absolute value (ns).
    pub max_abs_offset_ns: f64,
    /// The largest uncertainty of an offset (ns).
    pub max_uncertainty_ns: f64,
    /// Readings that went backwards across CPUs, over every pair.
    pub warps: f64,
}

impl Offset {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::clock::OFFSET;
}

impl Experiment for Offset {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Offset::ID,
            summary: "counter offset of every CPU against every other (± what the fastest exchanges started from \
                      either side both allow) and backward steps, from a cache-line ping-pong of counter readings",
            source: "Linux arch/x86/kernel/tsc_sync.c (check_tsc_warp); Cristian's exchange; docs/METHOD.md §8",
            metric: Metric::Rtt,
            requires: KERNEL,
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        whole_machine(ctx, self.id(), runtime)
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let clock = hardware::counter_clock(h);
        let readings = readings_per_pair(&h.config, index_pairs(spec.cpus.len()).len());
        let found = measure_offsets(clock, &spec.cpus, readings, Instant::now() + deadline(&h.config));
        let rtts = found.min_rtts_ns();
        if rtts.is_empty() {
            anyhow::bail!("no CPU pair could be measured: {}", found.notes.join("; "));
        }
        let result = OffsetResult {
            readings_per_pair: readings as f64,
            pairs_measured: found.pairs_measured as f64,
            counter_hz: clock.hz,
            max_abs_offset_ns: max_cell(&found.offset.values, f64::abs),
            max_uncertainty_ns: found.offset.uncertainty.as_ref().map_or(0.0, |u| max_cell(u, f64::abs)),
            warps: found.warps.values.iter().flatten().flatten().sum(),
        };
        let measurement = Measurement {
            counts_per_op: None,
            batch_ops: readings as u64,
            control_ns: vec![0.0; rtts.len()],
            samples_ns: rtts,
            per_thread_ns: Vec::new(),
            resolution_ns: clock.ticks_to_ns(1.0),
        };
        let mut details = Details::default();
        details.matrices.insert("offset".into(), found.offset);
        details.matrices.insert("warps".into(), found.warps);
        Ok(Outcome { measurement, notes: found.notes, extra: BTreeMap::new(), details }.with_result(&result))
    }
}

/// Readings per pair for `pairs` pairs in this mode (see [`Offset`]).
pub fn readings_per_pair(config: &HarnessConfig, pairs: usize) -> usize {
    let budget = 10.0 * effort_ns(config) / READING_COST_NS;
    per_pair(budget, pairs, MIN_READINGS as f64, MAX_READINGS as f64) as usize
}

/// What [`measure_offsets`] found.
#[derive(Debug, Clone)]
pub struct OffsetMatrices {
    /// Column CPU's counter minus row CPU's (ns), with ± uncertainty; diagonal and unmeasured cells empty.
    pub offset: Matrix,
    /// Backward steps from a reading on the row CPU to the next reading on the column CPU (count).
    pub warps: Matrix,
    /// The fastest exchange's round trip for each measured ordered pair, row-major (ns).
    pub min_rtt_ns: Matrix,
    pub pairs_measured: usize,
    /// Pairs not measured and why.
    pub notes: Vec<String>,
}

impl OffsetMatrices {
    /// The measured round trips, row by row.
    pub fn min_rtts_ns(&self) -> Vec<f64> {
        self.min_rtt_ns.values.iter().flatten().flatten().copied().collect()
    }
}

/// Ping-pongs `readings` counter readings between every pair of `cpus` in turn, starting no pair after
/// `deadline`.
pub fn measure_offsets(clock: Clock, cpus: &[usize], readings: usize, deadline: Instant) -> OffsetMatrices {
    let labels = cpu_labels(cpus);
    let n = cpus.len();
    let mut offset = Matrix::square(
        "counter offset of the column CPU relative to the row CPU (column − row at the same instant), \
         ± half the width of what the fastest exchanges started from either side both allow",
        "ns",
        labels.clone(),
    );
    let mut uncertainty = vec![vec![None; n]; n];
    let mut warps = Matrix::square(
        "warps: readings on the column CPU below the row CPU's reading just before",
        "count",
        labels.clone(),
    );
    let mut min_rtt_ns = Matrix::square("fastest exchange round trip, started by the row CPU", "ns", labels);
    let mut notes = Vec::new();
    let pairs = index_pairs(n);
    let mut pairs_measured = 0;
    for &(i, j) in &pairs {
        if Instant::now() > deadline {
            notes.push(format!("time budget spent: {pairs_measured} of {} pairs measured", pairs.len()));
            break;
        }
        let r = match ping_pong(clock, (cpus[i], cpus[j]), readings) {
            Ok(r) => r,
            Err(e) => {
                notes.push(format!("CPUs {} and {}: {e}", cpus[i], cpus[j]));
                continue;
            }
        };
        pairs_measured += 1;
        let from_i = estimate_offset(exchanges(&r, 0));
        let from_j = estimate_offset(exchanges(&r, 1));
        for (row, col, e) in [(i, j, &from_i), (j, i, &from_j)] {
            if let Some(e) = e {
                offset.values[row][col] = Some(clock.ticks_to_ns(e.offset_ticks));
                uncertainty[row][col] = Some(clock.ticks_to_ns(e.uncertainty_ticks));
                min_rtt_ns.values[row][col] = Some(clock.ticks_to_ns(e.min_rtt_ticks as f64));
            }
        }
        if let (Some(ij), Some(ji)) = (&from_i, &from_j) {
            match combine_directions(ij, ji) {
                Some((both, half_width)) => {
                    offset.values[i][j] = Some(clock.ticks_to_ns(both));
                    offset.values[j][i] = Some(-clock.ticks_to_ns(both));
                    uncertainty[i][j] = Some(clock.ticks_to_ns(half_width));
                    uncertainty[j][i] = Some(clock.ticks_to_ns(half_width));
                }
                None => notes.push(format!(
                    "CPUs {} and {}: the bounds from the two directions do not overlap (the counters moved \
                     against each other during the exchange); each cell shows its own direction",
                    cpus[i], cpus[j]
                )),
            }
        }
        let (i_to_j, j_to_i) = count_warps(&r);
        warps.values[i][j] = Some(i_to_j as f64);
        warps.values[j][i] = Some(j_to_i as f64);
    }
    offset.uncertainty = Some(uncertainty);
    OffsetMatrices { offset, warps, min_rtt_ns, pairs_measured, notes }
}

/// One cache line holding whose turn it is: reading `k` is taken by side `k % 2` once the turn is `k`.
type Turn = CachePadded<AtomicU64>;

/// `readings` counter readings taken alternately on `cpus.0` (even indices) and `cpus.1` (odd), each
/// after seeing the turn the other passed on, in the order taken.
///
/// Errors: a refused pinning.
fn ping_pong(clock: Clock, cpus: (usize, usize), readings: usize) -> Result<Vec<u64>, String> {
    let turn = Turn::new(AtomicU64::new(0));
    let (even, odd) =
        on_pair(cpus, || take_turns(clock, &turn, 0, readings), || take_turns(clock, &turn, 1, readings))?;
    Ok((0..readings).map(|k| if k % 2 == 0 { even[k / 2] } else { odd[k / 2] }).collect())
}

/// This side's readings: for every `k ≡ side (mod 2)` below `readings`, wait for turn `k`, read the
/// counter, pass turn `k + 1`. The log is written in full before the exchange starts, so no page is
/// first touched (a page fault) and nothing is allocated between readings.
fn take_turns(clock: Clock, turn: &AtomicU64, side: usize, readings: usize) -> Vec<u64> {
    let mut log = vec![u64::MAX; (readings + 1 - side) / 2];
    for (slot, k) in log.iter_mut().zip((side..readings).step_by(2)) {
        wait_for(turn, k as u64);
        // `Clock::start` fences before reading (`lfence; rdtsc` on x86-64), so the counter is read after
        // the turn was seen; the store below cannot become visible before the read has executed.
        *slot = clock.start();
        turn.store(k as u64 + 1, Ordering::Release);
    }
    log
}

/// Spins until the turn is `k`, yielding only after [`SPINS_BEFORE_YIELD`] spins.
#[inline(always)]
fn wait_for(turn: &AtomicU64, k: u64) {
    let mut spins = 0u32;
    while turn.load(Ordering::Acquire) != k {
        if spins < SPINS_BEFORE_YIELD {
            spins += 1;
            spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

/// The largest `f(cell)` over the filled cells (0 when none).
fn max_cell(cells: &[Vec<Option<f64>>], f: impl Fn(f64) -> f64) -> f64 {
    cells.iter().flatten().flatten().map(|&v| f(v)).fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use overhead_clock::{calibrate, Calibration};
    use overhead_harness::Mode;
    use overhead_machine::allowed_cpus;

    /// Up to two usable CPUs; on a one-CPU machine the same CPU twice (the exchange then runs by
    /// yielding, slowly but correctly).
    fn two_cpus() -> Vec<usize> {
        let cpus = allowed_cpus();
        vec![cpus[0], *cpus.get(1).unwrap_or(&cpus[0])]
    }

    #[test]
    fn readings_alternate_sides_and_move_forward_on_one_side() {
        let clock = calibrate(false, Calibration { span: Duration::from_millis(10), spans: 1 }).clock;
        let clock = if clock.kind == hardware::KIND { clock } else { Clock::MONOTONIC_RAW };
        let cpus = two_cpus();
        let r = ping_pong(clock, (cpus[0], cpus[1]), 501).unwrap();
        assert_eq!(r.len(), 501);
        assert!(r.iter().all(|&t| t != u64::MAX), "every slot was written");
        // Readings two apart are on the same CPU, one after the other.
        assert!(r.windows(3).all(|w| w[2] > w[0]));
    }

    #[test]
    fn matrices_are_square_labelled_and_bound_each_other() {
        let h = overhead_harness::testing::quick_harness_with(HarnessConfig::for_mode(Mode::Quick));
        let cpus = two_cpus();
        let found = measure_offsets(hardware::counter_clock(&h), &cpus, 2_000, Instant::now() + Duration::from_secs(5));
        let labels = cpu_labels(&cpus);
        for m in [&found.offset, &found.warps, &found.min_rtt_ns] {
            assert!(m.is_well_formed(), "{m:?}");
            assert_eq!((&m.row_labels, &m.col_labels), (&labels, &labels));
            assert!(m.values[0][0].is_none() && m.values[1][1].is_none(), "no CPU against itself");
        }
        assert_eq!(found.pairs_measured, 1, "{:?}", found.notes);
        let o = &found.offset.values;
        let u = found.offset.uncertainty.as_ref().unwrap();
        let (o01, o10, u01, u10) = (o[0][1].unwrap(), o[1][0].unwrap(), u[0][1].unwrap(), u[1][0].unwrap());
        assert!(u01 >= 0.0 && u10 >= 0.0);
        // The same true offset lies within both bounds, seen from either side: o01 ≈ −o10.
        assert!((o01 + o10).abs() <= u01 + u10 + 1e-9, "{o01} ± {u01} vs {o10} ± {u10}");
        if found.notes.is_empty() {
            // Both directions were combined: one offset, seen with opposite signs from the two sides.
            assert_eq!((o01, u01), (-o10, u10));
        }
        assert_eq!(found.min_rtts_ns().len(), 2);
    }

    #[test]
    fn a_spent_budget_leaves_cells_empty_and_says_so() {
        let clock = Clock::MONOTONIC_RAW;
        let found = measure_offsets(clock, &two_cpus(), 1_000, Instant::now() - Duration::from_secs(1));
        assert_eq!(found.pairs_measured, 0);
        assert!(found.offset.values.iter().flatten().all(Option::is_none));
        assert!(found.notes[0].contains("0 of 1 pairs"), "{:?}", found.notes);
    }

    #[test]
    fn fewer_readings_per_pair_as_pairs_grow() {
        assert_eq!(readings_per_pair(&HarnessConfig::for_mode(Mode::Full), 1), MAX_READINGS);
        let default = HarnessConfig::for_mode(Mode::Default);
        assert_eq!(readings_per_pair(&default, 256 * 255 / 2), MIN_READINGS);
        let mid = readings_per_pair(&default, 100);
        assert!(MIN_READINGS < mid && mid < MAX_READINGS, "{mid}");
    }
}
