//! `mem.contention`: Ben-Asher & Feitelson 1991 §3.1, Experiment 1 (Fig. 1): k threads storing to one shared cache line,
//! time per access against k. On the Makbilan the shared variable sat in one processor's memory and the
//! others reached it over the Multibus; today every store needs the line exclusive in the storing core's
//! cache, so k writers pass the line between their caches (coherence contention) and the time per access
//! grows with k as the study's bus time did.

use super::page::FirstTouchResult;
use overhead_record::result::to_extra;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::mem::page::{FirstTouchPage, LINE_STRIDE};
use crate::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point, KERNEL};
use overhead_harness::Harness;
use overhead_record::Metric;

/// Accesses per loop iteration: the study repeats `*pg=lg` 100 times in-line "to reduce the effect of the
/// loop handling itself"; the reported time is per access, the iteration's time over this.
pub const ACCESSES_PER_ITERATION: u64 = 100;

/// `s` written out 100 times in-line (10 × 10 copies of the tokens), for bodies whose repetition must not
/// be left to the optimiser. `rep100!(a; b;)` is `{ a; b; a; b; … }`.
macro_rules! rep100 {
    ($($s:tt)*) => {{ rep10!(rep10!($($s)*);); }};
}

/// `s` written out 10 times in-line.
macro_rules! rep10 {
    ($($s:tt)*) => {{ $($s)* $($s)* $($s)* $($s)* $($s)* $($s)* $($s)* $($s)* $($s)* $($s)* }};
}

pub use overhead_schema::experiments::mem::Op;

pub use overhead_schema::experiments::mem::ContentionParams as Params;

/// Ben-Asher & Feitelson 1991 §3.1, Experiment 1 (Fig. 1): `threads` pinned threads (one per core first, [`PlanContext::team_cpus`])
/// all access ONE shared cache line, 100 accesses written out in-line per loop iteration (the study's
/// `*pg=lg` ×100), started together; `op` is a plain store or an atomic add. The line is on a fresh page
/// first touched by the first team CPU (the study's `g`, "in the local memory of the first processor"), so
/// with one thread every access hits that CPU's L1 (the study's "really a local access").
///
/// Time: ns per access of one thread while the others run theirs (the slowest thread's per-iteration time
/// over 100), against the empty loop (`empty_loop`) of the same iteration count, so only the accesses
/// remain. The study found the time linear in the processors; [`Experiment::fits`] fits `a + b·threads` per
/// op, `b` being what each added writer costs every access.
pub struct Contention;

impl Contention {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::mem::CONTENTION;
}

impl Experiment for Contention {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Contention::ID,
            summary:
                "k threads storing (plain store or atomic add) to one shared cache line, 100 accesses in-line per \
                      iteration; time per access vs. k, against the empty loop",
            source: "Ben-Asher & Feitelson 1991 §3.1, Fig. 1",
            metric: Metric::PerOp,
            requires: KERNEL,
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        let mut out = Vec::new();
        for op in Op::ALL {
            for threads in ctx.thread_ladder(1) {
                let params = Params { op, threads };
                out.push(Planned::Run(ctx.spec_of(self.id(), runtime, &params, ctx.team_cpus(threads))));
            }
        }
        out
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let Params { op, .. } = point.params()?;
        Ok(measure(op, &spec.cpus, h, |_, _| {})?.0)
    }
}

/// One team of `cpus.len()` threads doing `op` on a line first touched by `cpus[0]`; `after_batch(thread, n)`
/// is called after every test batch of `n` iterations, outside the timed loop (the tests count iterations
/// with it; the experiment passes a no-op that compiles away). Returns the outcome (per access) and the
/// line's final value (for [`Op::AtomicAdd`], 100 × every iteration any thread ran).
///
/// Errors: the page could not be mapped, or its touching thread not pinned to `cpus[0]`.
fn measure(
    op: Op,
    cpus: &[usize],
    h: &Harness,
    after_batch: impl Fn(usize, u64) + Sync,
) -> anyhow::Result<(Outcome, u64)> {
    let page = FirstTouchPage::on_cpu(cpus[0], LINE_STRIDE)
        .map_err(|e| anyhow::anyhow!("mem.contention: the shared line's page on CPU {}: {e}", cpus[0]))?;
    let line = page.line(0);
    let control = |_: usize, n: u64| empty_loop(n);
    let report = match op {
        Op::Store => h.measure_team(
            cpus,
            |thread, n| {
                stores(line, n);
                after_batch(thread, n);
            },
            control,
        ),
        Op::AtomicAdd => h.measure_team(
            cpus,
            |thread, n| {
                atomic_adds(line, n);
                after_batch(thread, n);
            },
            control,
        ),
    };
    let mut outcome = Outcome::from(report);
    outcome.measurement = outcome.measurement.per(ACCESSES_PER_ITERATION as f64);
    outcome.extra.extend(to_extra(&FirstTouchResult { first_touch_cpu: page.touched_on() as f64 }));
    Ok((outcome, line.load(Ordering::Relaxed)))
}

/// `n` iterations of 100 relaxed stores of the iteration index to `line`. LLVM does not merge or drop
/// atomic stores (even relaxed ones of one value to one address), so each is one store to memory: checked
/// in the optimised asm (`--emit=asm`), 100 `movq %rcx, (%rdi)` per iteration and nothing else but the loop.
#[inline(never)]
pub fn stores(line: &AtomicU64, n: u64) {
    for i in 0..n {
        rep100!(line.store(i, Ordering::Relaxed););
    }
}

/// `n` iterations of 100 relaxed `fetch_add(1)` on `line`: 100 locked adds per iteration (`lock incq (%rdi)`
/// in the optimised asm), never combined into one add of 100 (LLVM does not combine atomic
/// read-modify-writes). Adds exactly `100 · n` to the line.
#[inline(never)]
pub fn atomic_adds(line: &AtomicU64, n: u64) {
    for _ in 0..n {
        rep100!(line.fetch_add(1, Ordering::Relaxed););
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_harness::Mode;
    use overhead_machine::{allowed_cpus, Topology};

    fn ctx(cpus: usize, mode: Mode) -> PlanContext {
        PlanContext { cpus: (0..cpus).collect(), topology: Topology::detect(), mode, hosts: Vec::new() }
    }

    fn os() -> &'static dyn overhead_runtime_api::RuntimeUnderTest {
        overhead_runtime_registry::find("os").expect("the os runtime")
    }

    /// (op, threads, number of CPUs) of every planned point, in plan order.
    fn plan(cpus: usize, mode: Mode) -> Vec<(String, usize, usize)> {
        Contention
            .points(&ctx(cpus, mode), os())
            .into_iter()
            .map(|p| match p {
                Planned::Run(s) => {
                    let threads: usize = s.param("threads").unwrap().parse().unwrap();
                    assert_eq!(s.params[0].0, "op", "op first, then threads: {:?}", s.params);
                    assert_eq!(s.params[1].0, "threads");
                    assert_eq!(s.runtime, "os");
                    (s.param("op").unwrap().to_string(), threads, s.cpus.len())
                }
                Planned::Skip(s, why) => panic!("{} skipped: {why}", s.name()),
            })
            .collect()
    }

    #[test]
    fn the_plan_is_both_ops_over_the_thread_ladder() {
        let one = plan(1, Mode::Default);
        assert_eq!(one, vec![("store".into(), 1, 1), ("atomic_add".into(), 1, 1)]);
        let two = plan(2, Mode::Quick);
        let shape: Vec<(&str, usize)> = two.iter().map(|(op, t, _)| (op.as_str(), *t)).collect();
        assert_eq!(shape, vec![("store", 1), ("store", 2), ("atomic_add", 1), ("atomic_add", 2)]);
        // 12 CPUs of which this machine's topology knows at most a few: 1, 2 and all (no L3 or package level
        // between them; PlanContext::thread_counts).
        let many = plan(12, Mode::Default);
        let threads: Vec<usize> = many.iter().filter(|p| p.0 == "store").map(|p| p.1).collect();
        assert_eq!(threads, vec![1, 2, 12]);
        assert!(many.iter().all(|(_, t, cpus)| t == cpus), "one CPU per thread: {many:?}");
        let full = plan(5, Mode::Full);
        assert_eq!(full.len(), 2 * 5, "every thread count in --full: {full:?}");
    }

    #[test]
    fn the_spec_names_op_then_threads_and_decodes() {
        let Planned::Run(spec) = Contention.points(&ctx(2, Mode::Default), os()).pop().unwrap() else { panic!() };
        assert_eq!(spec.name(), "mem.contention/runtime:os/op:atomic_add/threads:2");
        let params: Params = spec.params_as().unwrap();
        assert_eq!(params, Params { op: Op::AtomicAdd, threads: 2 });
        assert_eq!(Contention.requires(), KERNEL);
    }

    #[test]
    fn the_loops_do_exactly_100_accesses_per_iteration() {
        let line = AtomicU64::new(0);
        atomic_adds(&line, 7);
        assert_eq!(line.load(Ordering::Relaxed), 700);
        stores(&line, 5);
        assert_eq!(line.load(Ordering::Relaxed), 4, "the last store is the last index");
    }

    /// A real team of two threads (on one CPU when the machine has one) through the experiment's own
    /// path: every iteration any thread ran, sizing and warm-up included, added exactly 100 to the shared
    /// line; the samples (per access) are finite and positive.
    #[test]
    fn a_real_point_counts_100_adds_per_iteration() {
        let h = overhead_harness::testing::quick_harness();
        let cpus: Vec<usize> = allowed_cpus().into_iter().cycle().take(2).collect();
        let counted = AtomicU64::new(0);
        let (outcome, line) = measure(Op::AtomicAdd, &cpus, &h, |_, n| {
            counted.fetch_add(n, Ordering::Relaxed);
        })
        .unwrap();
        let iterations = counted.load(Ordering::Relaxed);
        assert_eq!(line, iterations * ACCESSES_PER_ITERATION, "100 adds per iteration, none merged or lost");
        let m = &outcome.measurement;
        assert!(iterations >= 2 * (h.config.warmup + h.config.repetitions) as u64 * m.batch_ops, "both threads ran");
        assert_eq!(m.samples_ns.len(), h.config.repetitions);
        // A locked add costs cycles, the empty loop's iteration about one hundredth of 100 of them.
        assert!(m.samples_ns.iter().all(|&s| s.is_finite() && s > 0.0), "{m:?}");
        assert!(m.control_ns.iter().all(|&s| s.is_finite() && s > 0.0), "{m:?}");
        assert_eq!(m.per_thread_ns.len(), 2);
        assert_eq!(outcome.extra["first_touch_cpu"], cpus[0] as f64);
    }

    /// `run` on a planned spec (stores, one thread) gives the harness's repetitions of finite samples.
    #[test]
    fn run_measures_a_planned_store_point() {
        let h = overhead_harness::testing::quick_harness();
        let mut ctx = ctx(1, Mode::Quick);
        ctx.cpus = vec![allowed_cpus()[0]];
        let Planned::Run(spec) = Contention.points(&ctx, os()).remove(0) else { panic!() };
        assert_eq!(spec.param("op"), Some("store"));
        let outcome = Contention.run(&crate::Point::resolve(&spec).unwrap(), &h).unwrap();
        let m = &outcome.measurement;
        assert_eq!(m.samples_ns.len(), h.config.repetitions);
        assert!(m.samples_ns.iter().all(|s| s.is_finite()) && m.resolution_ns > 0.0, "{m:?}");
    }
}
