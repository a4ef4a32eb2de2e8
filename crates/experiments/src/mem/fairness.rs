//! `mem.fairness`: Ben-Asher & Feitelson 1991 §3.2, Table 2, "number of accesses performed by different PEs, when all
//! compete for the bus", for today's coherence protocol. Every usable CPU runs one pinned thread; all
//! start together on a spin barrier and hammer memory for a fixed window, in the study's double loop
//! (an inner chunk of accesses, then a look at the stop flag), each thread counting its own accesses in
//! a register. Where the Multibus-II arbiter favoured low serial numbers, a cache line favours whichever
//! core last had it: for `atomic_inc` we also count how many consecutive accesses a core gets before the
//! line moves.

use std::collections::BTreeMap;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crossbeam_utils::CachePadded;

use super::page::FirstTouchPage;
use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point, KERNEL};
use overhead_clock::Clock;
use overhead_harness::{Harness, HarnessConfig, Measurement, Mode, SpinBarrier};
use overhead_machine::pin_current_thread;
use overhead_record::{Details, LabelledTable, Metric};

/// Accesses per inner loop for `atomic_inc` (the study's `ITER`): a contended `fetch_add` costs tens of
/// ns, so the stop flag is read every microsecond or two.
const ATOMIC_CHUNK: u64 = 32;
/// Increments per inner loop for `neighbour_inc`, whose increments mostly hit the thread's own cache.
const NEIGHBOUR_CHUNK: u64 = 256;

/// What every thread does to the line(s) (`access` parameter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// Every thread `fetch_add(1)`s ONE shared 8-byte word (one line, first touched by thread 0's CPU).
    AtomicInc,
    /// The study's code: thread j does plain `*p = *p + 1` (volatile read, then volatile write; not an
    /// atomic read-modify-write) on the counter of thread j + 1 (the last thread on the first's), each
    /// counter alone on its line and first touched by its owner's CPU.
    NeighbourInc,
}

impl Access {
    /// Both, in plan order.
    pub const ALL: [Access; 2] = [Access::AtomicInc, Access::NeighbourInc];

    /// The parameter value (`atomic_inc`, `neighbour_inc`).
    pub fn name(self) -> &'static str {
        match self {
            Access::AtomicInc => "atomic_inc",
            Access::NeighbourInc => "neighbour_inc",
        }
    }
}

/// `mem.fairness`'s parameters.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Params {
    access: Access,
}

/// Ben-Asher & Feitelson 1991 §3.2 (Table 2): all usable CPUs (one pinned thread each, one per core first) hammer memory
/// for a fixed window — quick ~2 ms, default ~5 ms, full ~10 ms ([`window_ns`]) — several windows per
/// process ([`windows`]), started together on a spin barrier and stopped by a flag that thread 0 raises
/// once its own clock says the window is over (the others look at it after every inner chunk). One point
/// per [`Access`]; skipped on one CPU.
///
/// Results: `details.tables["counts"]` (one row per thread, "thread i (CPU c)"; columns `accesses` over
/// the kept windows, `per 1000 of thread 0` — the study's normalisation to its PE 1 — and `mean
/// consecutive accesses`, `atomic_inc` only: accesses / runs, a run ending when the `fetch_add` did not
/// return the thread's previous value + 1); `extra`: `jain_index` (Jain's fairness index, 1 = even),
/// `max_over_min`, `total_accesses`, `windows`, `window_ms`, and for `atomic_inc`
/// `mean_consecutive_accesses` (all threads). Samples: ns per access of one thread while all compete
/// (window × threads / all threads' accesses: the mean thread's time per access), one per kept window; no control (`ovr` 0); `per_thread_ns`: window / that thread's
/// accesses. The counts are checked: for `atomic_inc` they must add up to the word's final value, for
/// `neighbour_inc` each counter must hold exactly its one writer's count; a mismatch fails the point.
pub struct Fairness;

impl Fairness {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::mem::FAIRNESS;
}

impl Experiment for Fairness {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Fairness::ID,
            summary: "how the accesses to one line split among all CPUs hammering it for a fixed window (atomic add \
                      on one word; Ben-Asher & Feitelson's plain increment of the neighbour's counter): counts per thread, \
                      Jain's index, max/min, consecutive accesses before the line moves",
            source: "Ben-Asher & Feitelson 1991 §3.2, Table 2",
            metric: Metric::PerOp,
            requires: KERNEL,
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        plan(ctx, self.id(), runtime)
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let Params { access } = point.params()?;
        let (warmup, kept) = windows(&h.config);
        let run = hammer(access, &spec.cpus, h.clock, window_ns(h.config.mode), warmup + kept)?;
        run.check()?;
        Ok(outcome(access, &spec.cpus, &run, warmup, h))
    }
}

/// One point per access kind on every usable CPU (one per core first), or both skipped on one CPU.
fn plan(ctx: &PlanContext, experiment: &str, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
    let cpus = ctx.team_cpus(ctx.cpus.len());
    Access::ALL
        .iter()
        .map(|&access| {
            let mut spec = ctx.spec_of(experiment, runtime, &Params { access }, cpus.clone());
            if cpus.len() != 2 {
                spec.placement = None;
            }
            if cpus.len() < 2 {
                let only = cpus.first().map_or("none".to_string(), usize::to_string);
                Planned::Skip(
                    spec,
                    format!("needs two usable CPUs to compete for a line; this run may use only CPU {only}"),
                )
            } else {
                Planned::Run(spec)
            }
        })
        .collect()
}

/// The length of one window in this mode (ns): quick 2 ms, default 5 ms, full 10 ms.
pub fn window_ns(mode: Mode) -> f64 {
    match mode {
        Mode::Quick => 2e6,
        Mode::Default => 5e6,
        Mode::Full => 10e6,
    }
}

/// Windows per process, `(warm-up, kept)`: the harness's warm-up (at least 1) and its repetitions, at
/// least 5 in quick mode and 9 otherwise (quick 1 + 5, ~12 ms of windows; default 1 + 9, ~50 ms; full
/// 2 + 9, ~110 ms).
pub fn windows(config: &HarnessConfig) -> (usize, usize) {
    let least = if config.mode == Mode::Quick { 5 } else { 9 };
    (config.warmup.max(1), config.repetitions.max(least))
}

/// One thread's count in one window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Count {
    /// Accesses (increments) the thread made.
    pub accesses: u64,
    /// Runs of consecutive accesses (`atomic_inc` only; 0 otherwise).
    pub runs: u64,
}

/// What [`hammer`] saw.
#[derive(Debug, Clone, PartialEq)]
pub struct HammerRun {
    pub access: Access,
    /// `counts[w][i]`: thread i in window w.
    pub counts: Vec<Vec<Count>>,
    /// Each window's length on thread 0's clock (ns).
    pub window_ns: Vec<f64>,
    /// `atomic_inc`: the shared word after each window, one value. `neighbour_inc`: every counter after
    /// each window, counter i written by thread i − 1 (the last thread writes counter 0).
    pub finals: Vec<Vec<u64>>,
    /// Refused pinnings, as notes.
    pub notes: Vec<String>,
}

impl HammerRun {
    /// The check of the counts against the memory (see [`Fairness`]).
    ///
    /// Errors: a window whose counts do not add up, naming it and both numbers.
    pub fn check(&self) -> anyhow::Result<()> {
        for (w, (counts, finals)) in self.counts.iter().zip(&self.finals).enumerate() {
            match self.access {
                Access::AtomicInc => {
                    let sum: u64 = counts.iter().map(|c| c.accesses).sum();
                    anyhow::ensure!(
                        finals.first() == Some(&sum),
                        "window {w}: the threads counted {sum} fetch_adds, the shared word holds {:?}",
                        finals.first()
                    );
                }
                Access::NeighbourInc => {
                    let n = counts.len();
                    for (j, c) in counts.iter().enumerate() {
                        let counter = finals[(j + 1) % n];
                        anyhow::ensure!(
                            counter == c.accesses,
                            "window {w}: thread {j} counted {} increments, its neighbour's counter holds {counter}",
                            c.accesses
                        );
                    }
                }
            }
        }
        Ok(())
    }
}

/// A counter's address, shared with the thread that increments it.
#[derive(Debug, Clone, Copy)]
struct Word(*mut u64);
// SAFETY: a plain address into a mapping that outlives every thread it is handed to (all are scoped);
// only the one thread the experiment assigns writes through it, volatile, until the window's end barrier.
unsafe impl Send for Word {}
// SAFETY: as for Send.
unsafe impl Sync for Word {}

/// Runs `windows` windows of `window_ns` each on one pinned thread per entry of `cpus`.
///
/// Errors: the memory could not be mapped or first touched on its CPU.
pub fn hammer(
    access: Access,
    cpus: &[usize],
    clock: Clock,
    window_ns: f64,
    windows: usize,
) -> anyhow::Result<HammerRun> {
    let n = cpus.len();
    anyhow::ensure!(n >= 1, "no CPUs to run on");
    // atomic_inc: one page of thread 0's; neighbour_inc: one page per thread, first touched by its owner.
    let owners: &[usize] = if access == Access::AtomicInc { &cpus[..1] } else { cpus };
    let pages = owners
        .iter()
        .map(|&cpu| FirstTouchPage::on_cpu(cpu, 1).map_err(|e| anyhow::anyhow!("first touch on CPU {cpu}: {e}")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let words: Vec<&AtomicU64> = pages.iter().map(|p| p.line(0)).collect();
    let window_ticks = (window_ns * clock.hz / 1e9).max(1.0) as u64;
    let barrier = SpinBarrier::new(n);
    let stop = CachePadded::new(AtomicBool::new(false));
    let per_thread: Vec<ThreadLog> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|index| {
                let (barrier, stop, words) = (&barrier, &stop, &words);
                let cpu = cpus[index];
                s.spawn(move || {
                    let pin_error =
                        pin_current_thread(cpu).err().map(|e| format!("thread for CPU {cpu} not pinned: {e}"));
                    let mut log = ThreadLog {
                        counts: Vec::with_capacity(windows),
                        ticks: Vec::with_capacity(windows),
                        finals: Vec::with_capacity(windows),
                        pin_error,
                    };
                    let mut sense = false;
                    for _ in 0..windows {
                        if index == 0 {
                            words.iter().for_each(|w| w.store(0, Ordering::Relaxed));
                            stop.store(false, Ordering::Relaxed);
                        }
                        barrier.wait(&mut sense);
                        let deadline = if index == 0 { Some(clock.start().wrapping_add(window_ticks)) } else { None };
                        let t0 = clock.start();
                        let count = match access {
                            Access::AtomicInc => atomic_inc(words[0], stop, &clock, deadline),
                            Access::NeighbourInc => {
                                neighbour_inc(Word(words[(index + 1) % words.len()].as_ptr()), stop, &clock, deadline)
                            }
                        };
                        let t1 = clock.stop();
                        if index == 0 {
                            stop.store(true, Ordering::Release);
                        }
                        log.counts.push(count);
                        log.ticks.push(t1.wrapping_sub(t0));
                        barrier.wait(&mut sense);
                        if index == 0 {
                            log.finals.push(words.iter().map(|w| w.load(Ordering::Relaxed)).collect());
                        }
                    }
                    log
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("fairness thread panicked")).collect()
    });
    let counts = (0..windows).map(|w| per_thread.iter().map(|t| t.counts[w]).collect()).collect();
    let window_ns = per_thread[0].ticks.iter().map(|&t| clock.ticks_to_ns(t as f64)).collect();
    let finals = per_thread[0].finals.clone();
    let notes = per_thread.iter().filter_map(|t| t.pin_error.clone()).collect();
    Ok(HammerRun { access, counts, window_ns, finals, notes })
}

/// One thread's windows.
struct ThreadLog {
    counts: Vec<Count>,
    ticks: Vec<u64>,
    finals: Vec<Vec<u64>>,
    pin_error: Option<String>,
}

/// Whether to leave the double loop: the window is over on this (leading) thread's clock, or the leader
/// said so. Every thread reads the clock, so the leader's check costs what the others' does.
#[inline(always)]
fn done(stop: &AtomicBool, clock: &Clock, deadline: Option<u64>) -> bool {
    let now = clock.start();
    match deadline {
        Some(d) => now >= d,
        None => stop.load(Ordering::Relaxed),
    }
}

/// `fetch_add(1)` on `word` in chunks of [`ATOMIC_CHUNK`] until [`done`]; a run ends whenever the value
/// returned is not this thread's previous one + 1 (someone else got the line in between).
#[inline(never)]
fn atomic_inc(word: &AtomicU64, stop: &AtomicBool, clock: &Clock, deadline: Option<u64>) -> Count {
    let (mut accesses, mut runs, mut last) = (0u64, 0u64, u64::MAX - 1);
    loop {
        for _ in 0..ATOMIC_CHUNK {
            let previous = word.fetch_add(1, Ordering::Relaxed);
            runs += u64::from(previous != last.wrapping_add(1));
            last = previous;
        }
        accesses += ATOMIC_CHUNK;
        if done(stop, clock, deadline) {
            return Count { accesses, runs };
        }
    }
}

/// The study's `*p = *p + 1` on the neighbour's counter, in chunks of [`NEIGHBOUR_CHUNK`] until [`done`].
#[inline(never)]
fn neighbour_inc(p: Word, stop: &AtomicBool, clock: &Clock, deadline: Option<u64>) -> Count {
    let mut accesses = 0u64;
    loop {
        for _ in 0..NEIGHBOUR_CHUNK {
            // SAFETY: `p` is line 0 of a live mapping (see `hammer`), 8-byte aligned; this thread is its only
            // writer during the window, and the reset and final read happen across the window's barriers.
            unsafe { std::ptr::write_volatile(p.0, std::ptr::read_volatile(p.0).wrapping_add(1)) };
        }
        accesses += NEIGHBOUR_CHUNK;
        if done(stop, clock, deadline) {
            return Count { accesses, runs: 0 };
        }
    }
}

/// Jain's fairness index of `x`, (Σx)² / (n · Σx²): 1 when all are equal, 1/n when one gets everything.
/// `None` for no values or all zero.
pub fn jain_index(x: &[f64]) -> Option<f64> {
    let sum: f64 = x.iter().sum();
    let squares: f64 = x.iter().map(|v| v * v).sum();
    (!x.is_empty() && squares > 0.0).then(|| sum * sum / (x.len() as f64 * squares))
}

/// The largest of `x` over the smallest; `None` for no values or a smallest of 0.
pub fn max_over_min(x: &[f64]) -> Option<f64> {
    let max = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = x.iter().copied().fold(f64::INFINITY, f64::min);
    (!x.is_empty() && min > 0.0).then(|| max / min)
}

pub use overhead_schema::experiments::mem::FairnessResult;

/// The point from the kept windows (after `warmup`).
fn outcome(access: Access, cpus: &[usize], run: &HammerRun, warmup: usize, h: &Harness) -> Outcome {
    let kept_counts = &run.counts[warmup.min(run.counts.len())..];
    let kept_ns = &run.window_ns[warmup.min(run.window_ns.len())..];
    let n = cpus.len();
    let totals: Vec<u64> = kept_counts.iter().map(|w| w.iter().map(|c| c.accesses).sum()).collect();
    // Per thread, not per line: with `neighbour_inc` the threads increment different lines in parallel, and
    // the window over all their accesses would be a fraction of a cycle, a throughput rather than a cost.
    let samples_ns: Vec<f64> = kept_ns.iter().zip(&totals).map(|(ns, &t)| ns * n as f64 / t.max(1) as f64).collect();
    let per_thread_ns: Vec<Vec<f64>> =
        (0..n).map(|i| kept_ns.iter().zip(kept_counts).map(|(ns, w)| ns / w[i].accesses as f64).collect()).collect();
    let accesses: Vec<u64> = (0..n).map(|i| kept_counts.iter().map(|w| w[i].accesses).sum()).collect();
    let runs: Vec<u64> = (0..n).map(|i| kept_counts.iter().map(|w| w[i].runs).sum()).collect();
    let table = counts_table(access, cpus, &accesses, &runs);
    let as_f64: Vec<f64> = accesses.iter().map(|&a| a as f64).collect();
    let total: u64 = accesses.iter().sum();
    let mut notes = run.notes.clone();
    let max_over_min = max_over_min(&as_f64);
    if max_over_min.is_none() {
        notes.push("a thread made no access in the kept windows: max/min not defined".into());
    }
    let all_runs: u64 = runs.iter().sum();
    let result = FairnessResult {
        jain_index: jain_index(&as_f64),
        max_over_min,
        total_accesses: total as f64,
        windows: kept_ns.len() as f64,
        window_ms: kept_ns.iter().sum::<f64>() / kept_ns.len().max(1) as f64 / 1e6,
        mean_consecutive_accesses: (access == Access::AtomicInc && all_runs > 0)
            .then(|| total as f64 / all_runs as f64),
    };
    let mut sorted = totals.clone();
    sorted.sort_unstable();
    let batch_ops = sorted.get(sorted.len() / 2).copied().unwrap_or(0).max(1);
    let measurement = Measurement {
        counts_per_op: None,
        batch_ops,
        control_ns: vec![0.0; samples_ns.len()],
        samples_ns,
        per_thread_ns,
        resolution_ns: h.resolution_per_op_ns(batch_ops),
    };
    let mut details = Details::default();
    details.tables.insert("counts".into(), table);
    Outcome { measurement, notes, extra: BTreeMap::new(), details }.with_result(&result)
}

/// Table 2's rows: "thread i (CPU c)"; columns accesses, per 1000 of thread 0's, mean consecutive
/// accesses (`atomic_inc` only).
pub fn counts_table(access: Access, cpus: &[usize], accesses: &[u64], runs: &[u64]) -> LabelledTable {
    let first = accesses.first().copied().unwrap_or(0);
    let rows = cpus
        .iter()
        .zip(accesses.iter().zip(runs))
        .enumerate()
        .map(|(i, (cpu, (&a, &r)))| {
            let per_1000 = (first > 0).then(|| 1000.0 * a as f64 / first as f64);
            let consecutive = (access == Access::AtomicInc && r > 0).then(|| a as f64 / r as f64);
            (format!("thread {i} (CPU {cpu})"), vec![Some(a as f64), per_1000, consecutive])
        })
        .collect();
    LabelledTable {
        title: format!("accesses per thread over the kept windows, {}", access.name()),
        unit: "count".into(),
        columns: COLUMNS.iter().map(|c| c.to_string()).collect(),
        rows,
    }
}

/// The columns of `details.tables["counts"]`.
pub const COLUMNS: [&str; 3] = ["accesses", "per 1000 of thread 0", "mean consecutive accesses"];

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_machine::testing::simulated;
    use overhead_machine::{allowed_cpus, Topology};

    fn ctx(cpus: Vec<usize>, topology: Topology) -> PlanContext {
        PlanContext { cpus, topology, mode: Mode::Default, hosts: Vec::new() }
    }

    #[test]
    fn plan_is_one_point_per_access_on_every_cpu_or_skipped_on_one() {
        let one = plan(&ctx(vec![3], Topology::detect()), "mem.fairness", &overhead_runtime_os::Os);
        assert_eq!(one.len(), 2);
        for p in &one {
            let Planned::Skip(spec, reason) = p else { panic!("{p:?}") };
            assert_eq!(spec.cpus, [3]);
            assert!(reason.contains("two usable CPUs") && reason.contains("CPU 3"), "{reason}");
        }
        let two = plan(&crate::plan::tests::two_cpu_context(Mode::Default), "mem.fairness", &overhead_runtime_os::Os);
        let names: Vec<String> = two
            .iter()
            .map(|p| match p {
                Planned::Run(s) => s.name(),
                Planned::Skip(..) => panic!("{p:?}"),
            })
            .collect();
        assert_eq!(
            names,
            ["mem.fairness/runtime:os/access:atomic_inc", "mem.fairness/runtime:os/access:neighbour_inc"]
        );
        let many = plan(&ctx((0..16).collect(), simulated(1, 2, 2, 2, 2)), "mem.fairness", &overhead_runtime_os::Os);
        let Planned::Run(spec) = &many[0] else { panic!("{many:?}") };
        assert_eq!(spec.cpus.len(), 16);
        assert_eq!(&spec.cpus[..8], &[0, 2, 4, 6, 8, 10, 12, 14], "one thread per core first");
        assert_eq!(spec.placement, None, "no single placement for 16 threads");
    }

    #[test]
    fn windows_follow_the_mode() {
        let of = |mode| windows(&HarnessConfig::for_mode(mode));
        assert_eq!(of(Mode::Quick), (1, 5));
        assert_eq!(of(Mode::Default), (1, 9));
        assert_eq!(of(Mode::Full), (2, 9));
        assert!(window_ns(Mode::Quick) < window_ns(Mode::Default) && window_ns(Mode::Default) < window_ns(Mode::Full));
    }

    #[test]
    fn jain_and_max_over_min_on_synthetic_counts() {
        // Ben-Asher & Feitelson 1991 Table 2's ten PEs.
        let seed = [1000.0, 993.0, 893.0, 688.0, 671.0, 658.0, 501.0, 501.0, 501.0, 501.0];
        let sum: f64 = seed.iter().sum();
        let squares: f64 = seed.iter().map(|v| v * v).sum();
        assert!((jain_index(&seed).unwrap() - sum * sum / (10.0 * squares)).abs() < 1e-12);
        assert!((max_over_min(&seed).unwrap() - 1000.0 / 501.0).abs() < 1e-12);
        assert_eq!(jain_index(&[5.0, 5.0, 5.0]), Some(1.0));
        assert_eq!(jain_index(&[4.0, 0.0, 0.0, 0.0]), Some(0.25), "one gets everything: 1/n");
        assert_eq!(jain_index(&[1.0, 3.0]), Some(16.0 / 20.0));
        assert_eq!(max_over_min(&[1.0, 3.0]), Some(3.0));
        assert_eq!(max_over_min(&[2.0, 0.0]), None);
        assert_eq!(jain_index(&[]), None);
        assert_eq!(jain_index(&[0.0, 0.0]), None);
    }

    #[test]
    fn the_counts_table_normalises_to_the_first_thread() {
        let t = counts_table(Access::AtomicInc, &[4, 7], &[2000, 1000], &[500, 100]);
        assert_eq!(t.rows[0], ("thread 0 (CPU 4)".to_string(), vec![Some(2000.0), Some(1000.0), Some(4.0)]));
        assert_eq!(t.rows[1], ("thread 1 (CPU 7)".to_string(), vec![Some(1000.0), Some(500.0), Some(10.0)]));
        let t = counts_table(Access::NeighbourInc, &[0, 1], &[10, 20], &[0, 0]);
        assert_eq!(t.rows[1].1, vec![Some(20.0), Some(2000.0), None]);
    }

    /// A real run of both kinds on two threads (on whatever CPUs exist): the counts add up to the memory,
    /// window by window, and the outcome's table and extras agree with them. No timing is asserted.
    #[test]
    fn counts_add_up_to_the_memory() {
        let cpus: Vec<usize> = allowed_cpus().into_iter().cycle().take(2).collect();
        let h = overhead_harness::testing::quick_harness();
        for access in Access::ALL {
            let run = hammer(access, &cpus, h.clock, 2e5, 3).unwrap();
            run.check().unwrap();
            assert_eq!(run.counts.len(), 3);
            assert_eq!(run.window_ns.len(), 3);
            for (w, counts) in run.counts.iter().enumerate() {
                let sum: u64 = counts.iter().map(|c| c.accesses).sum();
                match access {
                    Access::AtomicInc => {
                        assert_eq!(run.finals[w], vec![sum]);
                        assert!(counts.iter().all(|c| c.runs <= c.accesses && (c.accesses == 0 || c.runs > 0)));
                    }
                    Access::NeighbourInc => {
                        assert_eq!(run.finals[w], vec![counts[1].accesses, counts[0].accesses]);
                    }
                }
            }
            let o = outcome(access, &cpus, &run, 1, &h);
            let total: u64 = run.counts[1..].iter().flatten().map(|c| c.accesses).sum();
            assert_eq!(o.extra["total_accesses"], total as f64);
            assert_eq!(o.measurement.samples_ns.len(), 2);
            assert_eq!(o.measurement.control_ns, vec![0.0; 2]);
            let table = &o.details.tables["counts"];
            assert_eq!(table.rows.len(), 2);
            let from_table: f64 = table.rows.iter().map(|r| r.1[0].unwrap()).sum();
            assert_eq!(from_table, total as f64);
            assert_eq!(table.rows[0].1[1], Some(1000.0));
            assert_eq!(access == Access::AtomicInc, o.extra.contains_key("mean_consecutive_accesses"));
        }
    }

    /// What the experiment writes is what the report reads (`overhead-report`'s `sections::mem`, whose own
    /// tests render such a point): the counts table's rows name each thread's CPU, and the extras parse as
    /// the [`FairnessResult`] the report takes them as.
    #[test]
    fn the_report_reads_what_the_experiment_writes() {
        let cpus: Vec<usize> = allowed_cpus().into_iter().cycle().take(2).collect();
        let h = overhead_harness::testing::quick_harness();
        let run = hammer(Access::AtomicInc, &cpus, h.clock, 2e5, 2).unwrap();
        let o = outcome(Access::AtomicInc, &cpus, &run, 1, &h);
        let mut p = overhead_record::fixture::point("mem.fairness", "os", &[("access", "atomic_inc")], 10.0);
        (p.extra, p.details) = (o.extra, o.details);
        assert!(p.details.tables["counts"].rows[0].0.ends_with(&format!("(CPU {})", cpus[0])));
        let r = p.result_as::<FairnessResult>().unwrap();
        assert!(r.jain_index.is_some_and(|j| j > 0.0 && j <= 1.0) && r.mean_consecutive_accesses.is_some(), "{r:?}");
        assert_eq!(r.total_accesses, p.details.tables["counts"].rows.iter().map(|row| row.1[0].unwrap()).sum::<f64>());
    }

    #[test]
    fn a_miscount_is_an_error() {
        let mut run = HammerRun {
            access: Access::AtomicInc,
            counts: vec![vec![Count { accesses: 3, runs: 1 }, Count { accesses: 4, runs: 2 }]],
            window_ns: vec![1.0],
            finals: vec![vec![7]],
            notes: Vec::new(),
        };
        run.check().unwrap();
        run.finals = vec![vec![8]];
        assert!(run.check().unwrap_err().to_string().contains("holds"));
        run.access = Access::NeighbourInc;
        run.finals = vec![vec![4, 3]];
        run.check().unwrap();
        run.finals = vec![vec![3, 4]];
        assert!(run.check().is_err());
    }
}
