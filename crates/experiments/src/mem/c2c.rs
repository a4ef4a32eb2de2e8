//! `mem.c2c`: the core-to-core matrix — what one cache line costs to pass between every pair of CPUs
//! and back (Ben-Asher & Feitelson 1991 §3–4 asked what the bus costs between processors; core-to-core-latency and
//! Intel MLC's `c2c_latency` ask the same of a coherence fabric). Two ways to pass it:
//!
//! - `op:cas`: one line, both sides compare-and-swap it from the value the other wrote (2k → 2k + 1 by the
//!   initiator, 2k + 1 → 2k + 2 by the responder): every handoff is a read-for-ownership of a line the
//!   other core holds modified, the price of a contended lock or counter;
//! - `op:load_store`: two lines, one written by each side, the other only read (a flag and its
//!   acknowledgement): every handoff is a store invalidating the reader's copy, then the reader's load
//!   missing to the writer's cache, the price of a message through shared memory.
//!
//! Each pair gets a fresh page first touched by the initiator (the lower-numbered CPU of the pair), so no
//! third core's cache and no third NUMA node's memory takes part ([`super::page`]). The initiator times
//! batches of round trips with the run's clock; a cell is the median of its batches. The matrix is
//! symmetric by construction: a pair is measured once, from its lower CPU, and both cells show it.

use std::collections::BTreeMap;
use std::hint::spin_loop;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::page::{FirstTouchPage, LINE_STRIDE};
use crate::pairwise::{cpu_labels, deadline, effort_ns, index_pairs, on_pair, per_pair};
use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point, KERNEL};
use overhead_clock::Ticks;
use overhead_harness::{Harness, HarnessConfig, Measurement};
use overhead_record::{Details, Matrix, Metric};
use overhead_stats::Summary;

/// Round trips per pair never exceed this: 100 000 give seven batches of over 10 000 each.
const MAX_ROUND_TRIPS: usize = 100_000;
/// Nor fall below this, however many pairs: seven kept batches of about 150 still have a median that
/// the clock reads resolve (two reads over 150 round trips are a fraction of a ns each).
const MIN_ROUND_TRIPS: usize = 1_200;
/// The per-process budget in round trips assumes one costs about this much (ns); a slower fabric takes
/// longer, bounded by [`deadline`].
const ROUND_TRIP_COST_NS: f64 = 200.0;
/// Kept batches per pair; one more is run first and dropped (its first handoffs bring the page in).
const KEPT_BATCHES: usize = 7;
/// Spins on the partner's value before yielding: only reached when the partner is not running (a
/// preempted vCPU), where spinning would burn the partner's time slice.
const SPINS_BEFORE_YIELD: u32 = 1 << 14;

pub use overhead_schema::experiments::mem::C2cOp as Op;
pub use overhead_schema::experiments::mem::C2cParams as Params;

/// The core-to-core matrix (one point per [`Op`] for the whole machine). Results in `details`:
/// `matrices["rtt"]` (ns, round trip between the row and column CPUs, ± the half-width of the median's
/// CI: over the pair's batches in one process, over the processes once merged, see
/// `overhead_analysis::merge_details`, which adds `tables["by_class"]`: per placement class, pairs, median,
/// min and max round trip, one way = rtt / 2; ns). The point's samples are every pair's batches (ns per round
/// trip), so its median is the machine's typical pair; metric `rtt`; no control (`ovr` 0: the two clock
/// reads per batch are under 0.3 ns per round trip at the smallest batch).
///
/// Work per pair: `4 × effort / 200 ns / pairs` round trips (see [`effort_ns`]) within 1 200 … 100 000:
/// on 2 CPUs 100 000 (about 20 ms) in the default mode; on 256 CPUs (32 640 pairs) 1 200 each, about
/// 10 s a process. Pairs not started by [`deadline`] are left empty with a note.
pub struct C2c;

/// What a `mem.c2c` point reports beside its median (its `extra`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct C2cResult {
    /// Round trips timed per CPU pair.
    pub round_trips_per_pair: f64,
    /// CPU pairs measured.
    pub pairs_measured: f64,
}

impl C2c {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::mem::C2C;
}

impl Experiment for C2c {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: C2c::ID,
            summary: "cache-line round trip between pairs of CPUs (CAS on one line; load/store on two), on a fresh \
                      page first touched by the pair, with a summary per placement class: every pair in --full, one \
                      CPU of each placement class otherwise",
            source: "Ben-Asher & Feitelson 1991 §3–4 (the cost of the path between processors); core-to-core-latency, Intel MLC c2c",
            metric: Metric::Rtt,
            requires: KERNEL,
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        [Op::Cas, Op::LoadStore]
            .into_iter()
            .map(|op| {
                // Every CPU in `--full`, one per pair class otherwise (PlanContext::pairwise_cpus).
                let mut spec = ctx.spec_of(self.id(), runtime, &Params { op }, ctx.pairwise_cpus());
                // Every pair has its own placement: the matrix, not the point, carries them.
                spec.placement = None;
                match spec.cpus.clone().as_slice() {
                    [only] => {
                        Planned::Skip(spec, format!("needs two usable CPUs to pair; this run may use only CPU {only}"))
                    }
                    _ => Planned::Run(spec),
                }
            })
            .collect()
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let Params { op } = point.params()?;
        let round_trips = round_trips_per_pair(&h.config, index_pairs(spec.cpus.len()).len());
        let m = measure_matrix(h, op, &spec.cpus, round_trips, Instant::now() + deadline(&h.config));
        if m.samples_ns.is_empty() {
            anyhow::bail!("no CPU pair could be measured: {}", m.notes.join("; "));
        }
        let result = C2cResult { round_trips_per_pair: round_trips as f64, pairs_measured: m.pairs_measured as f64 };
        let batch_ops = (round_trips / (KEPT_BATCHES + 1)) as u64;
        let measurement = Measurement {
            counts_per_op: None,
            batch_ops,
            control_ns: vec![0.0; m.samples_ns.len()],
            samples_ns: m.samples_ns,
            per_thread_ns: Vec::new(),
            resolution_ns: h.resolution_per_op_ns(batch_ops),
        };
        let mut details = Details::default();
        details.matrices.insert("rtt".into(), m.rtt);
        Ok(Outcome { measurement, notes: m.notes, extra: BTreeMap::new(), details }.with_result(&result))
    }
}

/// Round trips per pair for `pairs` pairs in this mode (see [`C2c`]).
pub fn round_trips_per_pair(config: &HarnessConfig, pairs: usize) -> usize {
    let budget = 4.0 * effort_ns(config) / ROUND_TRIP_COST_NS;
    per_pair(budget, pairs, MIN_ROUND_TRIPS as f64, MAX_ROUND_TRIPS as f64) as usize
}

/// What [`measure_matrix`] found.
#[derive(Debug, Clone)]
pub struct MatrixResult {
    /// Round trip (ns) between the row and column CPUs, ± the half-width of the median's CI over the
    /// pair's batches; diagonal and unmeasured cells empty.
    pub rtt: Matrix,
    /// Every measured pair's kept batches (ns per round trip), pair by pair.
    pub samples_ns: Vec<f64>,
    pub pairs_measured: usize,
    /// Pairs not measured and why.
    pub notes: Vec<String>,
}

/// Passes the line `round_trips` times between every pair of `cpus` in turn (the others idle), starting
/// no pair after `deadline`.
pub fn measure_matrix<C: Ticks>(
    h: &Harness<C>,
    op: Op,
    cpus: &[usize],
    round_trips: usize,
    deadline: Instant,
) -> MatrixResult {
    let n = cpus.len();
    let mut rtt = Matrix::square(
        match op {
            Op::Cas => "CAS round trip of one line between the row and column CPUs, ± CI half-width",
            Op::LoadStore => "store/load round trip over two lines between the row and column CPUs, ± CI half-width",
        },
        "ns",
        cpu_labels(cpus),
    );
    let mut uncertainty = vec![vec![None; n]; n];
    let mut samples_ns = Vec::new();
    let mut notes = Vec::new();
    let pairs = index_pairs(n);
    let per_batch = (round_trips / (KEPT_BATCHES + 1)).max(1);
    let mut pairs_measured = 0;
    for &(i, j) in &pairs {
        if Instant::now() > deadline {
            notes.push(format!("time budget spent: {pairs_measured} of {} pairs measured", pairs.len()));
            break;
        }
        match measure_pair(h, op, (cpus[i], cpus[j]), per_batch) {
            Ok(batches) => {
                let Some(s) = Summary::of(&batches) else { continue };
                pairs_measured += 1;
                for (row, col) in [(i, j), (j, i)] {
                    rtt.values[row][col] = Some(s.median);
                    uncertainty[row][col] = Some(s.ci_half_width());
                }
                samples_ns.extend(batches);
            }
            Err(e) => notes.push(format!("CPUs {} and {}: {e}", cpus[i], cpus[j])),
        }
    }
    rtt.uncertainty = Some(uncertainty);
    MatrixResult { rtt, samples_ns, pairs_measured, notes }
}

/// One pair: a fresh page first touched by `cpus.0`, then `KEPT_BATCHES + 1` batches of `per_batch` round
/// trips started by `cpus.0`; the kept batches in ns per round trip.
///
/// Errors: the page could not be mapped, or a pinning was refused (then nothing ran).
fn measure_pair<C: Ticks>(h: &Harness<C>, op: Op, cpus: (usize, usize), per_batch: usize) -> Result<Vec<f64>, String> {
    let page = FirstTouchPage::on_cpu(cpus.0, 2 * LINE_STRIDE).map_err(|e| format!("fresh page: {e}"))?;
    let total = per_batch * (KEPT_BATCHES + 1);
    let (ping, pong) = (page.line(0), page.line(1));
    let (ticks, ()) = match op {
        Op::Cas => on_pair(
            cpus,
            || initiate(h, per_batch, |k| cas_initiator(ping, k)),
            || (0..total as u64).for_each(|k| cas_responder(ping, k)),
        )?,
        Op::LoadStore => on_pair(
            cpus,
            || initiate(h, per_batch, |k| store_initiator(ping, pong, k)),
            || (0..total as u64).for_each(|k| store_responder(ping, pong, k)),
        )?,
    };
    Ok(ticks[1..].iter().map(|&t| h.clock.ticks_to_ns(t as f64) / per_batch as f64).collect())
}

/// The initiator's side: `KEPT_BATCHES + 1` timed batches of `per_batch` round trips, `round_trip(k)` for
/// k = 0, 1, 2, … across them; each batch's ticks, the warm-up batch first.
fn initiate<C: Ticks>(h: &Harness<C>, per_batch: usize, round_trip: impl Fn(u64)) -> Vec<u64> {
    let mut ticks = vec![0u64; KEPT_BATCHES + 1];
    let mut k = 0u64;
    for slot in ticks.iter_mut() {
        let t0 = h.clock.start();
        for _ in 0..per_batch {
            round_trip(k);
            k += 1;
        }
        *slot = h.clock.stop().wrapping_sub(t0);
    }
    ticks
}

/// Round trip `k` from the initiator's side of `op:cas`: swap the line from 2k (the responder's last
/// value) to 2k + 1, then wait for the responder to swap it on to 2k + 2.
#[inline(always)]
fn cas_initiator(line: &AtomicU64, k: u64) {
    spin_until(|| line.compare_exchange(2 * k, 2 * k + 1, Ordering::AcqRel, Ordering::Relaxed).is_ok());
    spin_until(|| line.load(Ordering::Acquire) == 2 * k + 2);
}

/// Round trip `k` from the responder's side of `op:cas`: swap 2k + 1 to 2k + 2 as soon as it is there.
#[inline(always)]
fn cas_responder(line: &AtomicU64, k: u64) {
    spin_until(|| line.compare_exchange(2 * k + 1, 2 * k + 2, Ordering::AcqRel, Ordering::Relaxed).is_ok());
}

/// Round trip `k` from the initiator's side of `op:load_store`: publish k + 1 on `ping`, wait for it on
/// `pong`.
#[inline(always)]
fn store_initiator(ping: &AtomicU64, pong: &AtomicU64, k: u64) {
    ping.store(k + 1, Ordering::Release);
    spin_until(|| pong.load(Ordering::Acquire) == k + 1);
}

/// Round trip `k` from the responder's side of `op:load_store`: wait for k + 1 on `ping`, answer on `pong`.
#[inline(always)]
fn store_responder(ping: &AtomicU64, pong: &AtomicU64, k: u64) {
    spin_until(|| ping.load(Ordering::Acquire) == k + 1);
    pong.store(k + 1, Ordering::Release);
}

/// Spins until `done()`, yielding only after [`SPINS_BEFORE_YIELD`] failed tries.
#[inline(always)]
fn spin_until(mut done: impl FnMut() -> bool) {
    let mut spins = 0u32;
    while !done() {
        if spins < SPINS_BEFORE_YIELD {
            spins += 1;
            spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use overhead_harness::testing::quick_harness;
    use overhead_harness::Mode;
    use overhead_machine::allowed_cpus;
    use overhead_machine::testing::simulated;
    use overhead_machine::Topology;

    fn context(cpus: Vec<usize>, topology: Topology) -> PlanContext {
        PlanContext { cpus, topology, mode: Mode::Default, hosts: Vec::new() }
    }

    fn os() -> &'static dyn overhead_runtime_api::RuntimeUnderTest {
        overhead_runtime_registry::find("os").unwrap()
    }

    #[test]
    fn one_point_per_op_for_every_cpu_or_a_reason() {
        let planned = C2c.points(&context(vec![0, 1], Topology::detect()), os());
        let names: Vec<String> = planned
            .iter()
            .map(|p| match p {
                Planned::Run(s) => s.name(),
                Planned::Skip(..) => panic!("{p:?}"),
            })
            .collect();
        assert_eq!(names, ["mem.c2c/runtime:os/op:cas", "mem.c2c/runtime:os/op:load_store"]);
        let one = C2c.points(&context(vec![5], Topology::detect()), os());
        assert!(one.iter().all(|p| matches!(p, Planned::Skip(s, why) if s.cpus == [5] && why.contains("CPU 5"))));
        // 256 CPUs: the home CPU and one of each of the five pair classes by default, every CPU in --full.
        let mut ctx = context((0..256).collect(), simulated(2, 2, 4, 8, 2));
        let Planned::Run(spec) = &C2c.points(&ctx, os())[0] else { panic!() };
        assert_eq!((spec.cpus.as_slice(), spec.placement), ([0, 1, 2, 16, 64, 128].as_slice(), None));
        ctx.mode = Mode::Full;
        let Planned::Run(spec) = &C2c.points(&ctx, os())[0] else { panic!() };
        assert_eq!(spec.cpus.len(), 256);
    }

    #[test]
    fn fewer_round_trips_per_pair_as_pairs_grow() {
        let default = HarnessConfig::for_mode(Mode::Default);
        assert_eq!(round_trips_per_pair(&default, 1), MAX_ROUND_TRIPS);
        assert_eq!(round_trips_per_pair(&default, 256 * 255 / 2), MIN_ROUND_TRIPS);
        // 256 CPUs in about 10 s a process at the assumed cost: the "about a minute" for the matrix.
        let seconds = (256 * 255 / 2 * MIN_ROUND_TRIPS) as f64 * ROUND_TRIP_COST_NS / 1e9;
        assert!(seconds < 10.0, "{seconds}");
    }

    /// The matrix on up to two real CPUs (the same one twice on a one-CPU machine: the sides then take
    /// turns by yielding, slowly but correctly), both ops: labelled, symmetric, every round trip counted.
    #[test]
    fn a_real_pair_fills_a_symmetric_labelled_matrix() {
        let h = quick_harness();
        let all = allowed_cpus();
        let cpus = vec![all[0], *all.get(1).unwrap_or(&all[0])];
        for op in [Op::Cas, Op::LoadStore] {
            let m = measure_matrix(&h, op, &cpus, 800, Instant::now() + Duration::from_secs(30));
            assert!(m.rtt.is_well_formed());
            assert_eq!(m.pairs_measured, 1, "{:?}", m.notes);
            assert_eq!(m.samples_ns.len(), KEPT_BATCHES);
            assert!(m.samples_ns.iter().all(|&s| s.is_finite() && s > 0.0), "{:?}", m.samples_ns);
            let v = &m.rtt.values;
            assert!(v[0][0].is_none() && v[1][1].is_none());
            assert_eq!(v[0][1], v[1][0]);
            assert!(v[0][1].unwrap() > 0.0);
        }
    }

    #[test]
    fn the_protocols_hand_the_line_back_and_forth_exactly_total_times() {
        // Both sides on whatever CPUs exist; the final values say every round trip happened once.
        let page = FirstTouchPage::on_cpu(allowed_cpus()[0], 4096).unwrap();
        let all = allowed_cpus();
        let cpus = (all[0], *all.get(1).unwrap_or(&all[0]));
        let (ping, pong) = (page.line(0), page.line(1));
        on_pair(
            cpus,
            || (0..500).for_each(|k| cas_initiator(ping, k)),
            || (0..500).for_each(|k| cas_responder(ping, k)),
        )
        .unwrap();
        assert_eq!(ping.load(Ordering::Relaxed), 1000);
        ping.store(0, Ordering::Relaxed);
        on_pair(
            cpus,
            || (0..500).for_each(|k| store_initiator(ping, pong, k)),
            || (0..500).for_each(|k| store_responder(ping, pong, k)),
        )
        .unwrap();
        assert_eq!((ping.load(Ordering::Relaxed), pong.load(Ordering::Relaxed)), (500, 500));
    }

    #[test]
    fn a_spent_budget_leaves_cells_empty_and_says_so() {
        let h = quick_harness();
        let m = measure_matrix(&h, Op::Cas, &[0, 1, 2], 1_000, Instant::now() - Duration::from_secs(1));
        assert_eq!(m.pairs_measured, 0);
        assert!(m.rtt.values.iter().flatten().all(Option::is_none));
        assert!(m.notes[0].contains("0 of 3 pairs"), "{:?}", m.notes);
    }
}
