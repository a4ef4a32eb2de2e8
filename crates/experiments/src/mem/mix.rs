//! `mem.mix`: Ben-Asher & Feitelson 1991 §3.1, Experiment 2 (Fig. 2): blocks of 100 operations, `x` of them writes to a
//! line shared by every thread and the other 100 − x increments of a thread-local variable in memory;
//! time per block against the threads, for x ∈ {1, 10, 20, 50, 100}. The more of a block is local, the
//! less the shared line's traffic shows.

use super::page::FirstTouchResult;
use overhead_record::result::to_extra;
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::mem::page::{FirstTouchPage, LINE_STRIDE};
use crate::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point, KERNEL};
use overhead_harness::{Harness, Mode};
use overhead_record::Metric;

/// Operations per block (shared writes plus local increments), as in the study's `DOx` macros.
#[cfg(test)]
const BLOCK_OPS: u32 = 100;

pub use overhead_schema::experiments::mem::X_VALUES;

/// The values of x a `--quick` run plans: all local but one, half, all shared.
pub const QUICK_X_VALUES: [u32; 3] = [1, 50, 100];

/// `s` written out `N` times in-line, `N` one of the literals below: `rep!(9; a; b;)` is
/// `{ a; b; a; b; … }` with 9 copies. The counts of every block's parts are here, so no block's unrolling is
/// left to the optimiser.
macro_rules! rep {
    (0; $($s:tt)*) => {{}};
    (1; $($s:tt)*) => {{ $($s)* }};
    (2; $($s:tt)*) => {{ $($s)* $($s)* }};
    (4; $($s:tt)*) => {{ rep!(2; rep!(2; $($s)*);); }};
    (5; $($s:tt)*) => {{ $($s)* $($s)* $($s)* $($s)* $($s)* }};
    (9; $($s:tt)*) => {{ rep!(4; $($s)*); rep!(5; $($s)*); }};
    (10; $($s:tt)*) => {{ rep!(2; rep!(5; $($s)*);); }};
    (20; $($s:tt)*) => {{ rep!(2; rep!(10; $($s)*);); }};
    (50; $($s:tt)*) => {{ rep!(5; rep!(10; $($s)*);); }};
    (99; $($s:tt)*) => {{ rep!(9; rep!(10; $($s)*);); rep!(9; $($s)*); }};
    (100; $($s:tt)*) => {{ rep!(10; rep!(10; $($s)*);); }};
}

/// Writes one loop function per x: `n` blocks, each `x` times (one shared write, then `gap` local
/// increments), `x · (1 + gap) = 100`; the x writes are spread evenly through the block as the study's
/// `DOx` interleaves `x=y` with `l++`. Returns the local variable's final value (`n · gap · x`). Checked in
/// the release binary (`objdump -d`): per iteration, x `mov %rcx,(%rdi)` to the line and 100 − x
/// increments of the local on the stack (`incq -0x8(%rsp)`, the last one as load, `inc`, store), in the
/// pattern above, and nothing else but the loop.
macro_rules! mix_loop {
    ($name:ident, $x:tt, $gap:tt) => {
        #[doc = concat!("`n` blocks of ", stringify!($x), " shared writes, each followed by ", stringify!($gap),
                        " local increments (", stringify!($x), " × (1 + ", stringify!($gap), ") = 100 operations).")]
        #[inline(never)]
        fn $name<W: SharedWrite>(shared: &AtomicU64, n: u64) -> u64 {
            #[allow(unused_mut)] // x = 100 has no local increments
            let mut local = 0u64;
            for i in 0..n {
                rep!($x; W::write(shared, i); rep!($gap; bump(&mut local);););
            }
            local
        }
    };
}

mix_loop!(mix_1, 1, 99);
mix_loop!(mix_10, 10, 9);
mix_loop!(mix_20, 20, 4);
mix_loop!(mix_50, 50, 1);
mix_loop!(mix_100, 100, 0);

/// How a block writes the shared line.
pub trait SharedWrite {
    /// One write of `v` to `line`.
    fn write(line: &AtomicU64, v: u64);
}

/// The experiment's write: a plain store of the block index (`AtomicU64::store(v, Relaxed)`, one `mov` on
/// x86-64), the study's `*p=l`. LLVM neither merges nor drops atomic stores.
pub struct Store;

impl SharedWrite for Store {
    #[inline(always)]
    fn write(line: &AtomicU64, v: u64) {
        line.store(v, Ordering::Relaxed);
    }
}

/// The study's `l++` on a local kept in memory: a volatile load, add and volatile store, so it is a real
/// memory increment (L1-resident, never kept in a register). The increments of a block form one dependency
/// chain through memory: store-to-load forwarding, a few cycles each, or about one where the core renames
/// stack memory (AMD Zen 2 and later, recent Intel cores); x = 1 measures that local work alone.
#[inline(always)]
fn bump(local: &mut u64) {
    let p: *mut u64 = local;
    // SAFETY: `p` comes from a live `&mut u64`, valid and aligned for the read and the write.
    unsafe { std::ptr::write_volatile(p, std::ptr::read_volatile(p).wrapping_add(1)) };
}

/// The loop for `x` shared writes per block, or `None` for an x the study did not use.
fn block_loop<W: SharedWrite>(x: u32) -> Option<fn(&AtomicU64, u64) -> u64> {
    Some(match x {
        1 => mix_1::<W>,
        10 => mix_10::<W>,
        20 => mix_20::<W>,
        50 => mix_50::<W>,
        100 => mix_100::<W>,
        _ => return None,
    })
}

pub use overhead_schema::experiments::mem::MixParams as Params;

/// Ben-Asher & Feitelson 1991 §3.1, Experiment 2 (Fig. 2): `threads` pinned threads (one per core first) each run blocks of
/// 100 operations generated at compile time per x (`rep!`): x plain stores to ONE line shared by all the
/// threads, spread evenly through the block, and 100 − x increments of a thread-local variable kept in
/// memory (the study's `l++`, volatile, L1-resident); x ∈ {1, 10, 20, 50, 100} ({1, 50, 100} in `--quick`),
/// threads on the thread ladder (1, 2, 4, …, CPUs). The line is on a fresh page first touched by the first
/// team CPU.
///
/// Time: ns per block of 100 operations of one thread while the others run theirs (the slowest thread's),
/// against the empty loop. [`Experiment::fits`] fits `a + b·threads` per x.
///
/// Unlike the study: there each processor wrote its own global variable, placed in ANOTHER processor's
/// memory, so the contention was for the bus alone (not for one memory module). Here all the threads
/// write one shared line, so the contention is for that line (coherence); with today's caches a line
/// written by one thread only would stay in its cache in modified state and show no contention at all.
pub struct Mix;

impl Mix {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::mem::MIX;
}

impl Experiment for Mix {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Mix::ID,
            summary: "blocks of 100 operations, x stores to one line shared by all threads and 100 − x local \
                      increments in memory; time per block vs. threads for x = 1, 10, 20, 50, 100",
            source: "Ben-Asher & Feitelson 1991 §3.1, Fig. 2",
            metric: Metric::PerOp,
            requires: KERNEL,
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        let xs: &[u32] = if ctx.mode == Mode::Quick { &QUICK_X_VALUES } else { &X_VALUES };
        let mut out = Vec::new();
        for &x in xs {
            for threads in ctx.thread_ladder(1) {
                let params = Params { x, threads };
                out.push(Planned::Run(ctx.spec_of(self.id(), runtime, &params, ctx.team_cpus(threads))));
            }
        }
        out
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let Params { x, .. } = point.params()?;
        Ok(measure::<Store>(x, &spec.cpus, h, |_, _| {}).map_err(|e| anyhow::anyhow!("{}: {e}", spec.name()))?.0)
    }
}

/// One team of `cpus.len()` threads running blocks with `x` shared writes (by `W`) on a line first touched
/// by `cpus[0]`; `after_batch(thread, n)` runs after every test batch of `n` blocks, outside the timed loop
/// (the tests count blocks with it). Returns the outcome (per block) and the line's final value.
///
/// Errors: x is not one of [`X_VALUES`]; the page could not be mapped or its touching thread not pinned.
fn measure<W: SharedWrite>(
    x: u32,
    cpus: &[usize],
    h: &Harness,
    after_batch: impl Fn(usize, u64) + Sync,
) -> anyhow::Result<(Outcome, u64)> {
    let body = block_loop::<W>(x).ok_or_else(|| anyhow::anyhow!("x {x} is not one of {X_VALUES:?}"))?;
    let page = FirstTouchPage::on_cpu(cpus[0], LINE_STRIDE)
        .map_err(|e| anyhow::anyhow!("the shared line's page on CPU {}: {e}", cpus[0]))?;
    let line = page.line(0);
    let report = h.measure_team(
        cpus,
        |thread, n| {
            black_box(body(line, n));
            after_batch(thread, n);
        },
        |_, n| empty_loop(n),
    );
    let mut outcome = Outcome::from(report);
    outcome.extra.extend(to_extra(&FirstTouchResult { first_touch_cpu: page.touched_on() as f64 }));
    Ok((outcome, line.load(Ordering::Relaxed)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_machine::{allowed_cpus, Topology};

    /// Counts the shared writes instead of storing (an atomic add of 1 each).
    struct Count;

    impl SharedWrite for Count {
        #[inline(always)]
        fn write(line: &AtomicU64, _: u64) {
            line.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn ctx(cpus: usize, mode: Mode) -> PlanContext {
        PlanContext { cpus: (0..cpus).collect(), topology: Topology::detect(), mode, hosts: Vec::new() }
    }

    /// (x, threads, number of CPUs) of every planned point, in plan order.
    fn plan(cpus: usize, mode: Mode) -> Vec<(u32, usize, usize)> {
        let os = overhead_runtime_registry::find("os").unwrap();
        Mix.points(&ctx(cpus, mode), os)
            .into_iter()
            .map(|p| match p {
                Planned::Run(s) => {
                    let keys: Vec<&str> = s.params.iter().map(|(k, _)| k.as_str()).collect();
                    assert_eq!(keys, ["x", "threads"]);
                    let Params { x, threads } = s.params_as().unwrap();
                    (x, threads, s.cpus.len())
                }
                Planned::Skip(s, why) => panic!("{} skipped: {why}", s.name()),
            })
            .collect()
    }

    fn xs(plan: &[(u32, usize, usize)]) -> Vec<u32> {
        let mut xs: Vec<u32> = plan.iter().map(|p| p.0).collect();
        xs.dedup();
        xs
    }

    #[test]
    fn the_plan_is_every_x_over_the_thread_ladder() {
        let one = plan(1, Mode::Default);
        assert_eq!(one, X_VALUES.iter().map(|&x| (x, 1, 1)).collect::<Vec<_>>());
        let two = plan(2, Mode::Default);
        assert_eq!(xs(&two), X_VALUES);
        assert_eq!(&two[..2], [(1, 1, 1), (1, 2, 2)]);
        let quick = plan(2, Mode::Quick);
        assert_eq!(xs(&quick), QUICK_X_VALUES);
        assert_eq!(quick.len(), 3 * 2);
        // 12 CPUs of which this machine's topology knows at most a few: 1, 2 and all (PlanContext::thread_counts).
        let many = plan(12, Mode::Default);
        let threads: Vec<usize> = many.iter().filter(|p| p.0 == 50).map(|p| p.1).collect();
        assert_eq!(threads, vec![1, 2, 12]);
        assert!(many.iter().all(|(_, t, cpus)| t == cpus));
        assert_eq!(plan(3, Mode::Full).len(), 5 * 3, "every x and every thread count in --full");
        let Planned::Run(spec) =
            Mix.points(&ctx(2, Mode::Default), overhead_runtime_registry::find("os").unwrap()).remove(1)
        else {
            panic!()
        };
        assert_eq!(spec.name(), "mem.mix/runtime:os/x:1/threads:2");
    }

    /// Every block has exactly x shared writes and 100 − x local increments.
    #[test]
    fn every_block_is_x_writes_and_the_rest_local() {
        for x in X_VALUES {
            let line = AtomicU64::new(0);
            let local = block_loop::<Count>(x).unwrap()(&line, 3);
            assert_eq!(line.load(Ordering::Relaxed), 3 * u64::from(x), "x = {x}");
            assert_eq!(local, 3 * u64::from(BLOCK_OPS - x), "x = {x}");
            let stored = AtomicU64::new(0);
            block_loop::<Store>(x).unwrap()(&stored, 3);
            assert_eq!(stored.load(Ordering::Relaxed), 2, "the last block's index");
        }
        assert!(block_loop::<Store>(30).is_none());
    }

    /// A real team of two threads (one CPU when the machine has one): every block any thread ran wrote the
    /// line exactly x times; the samples (per block) are finite and positive.
    #[test]
    fn a_real_point_writes_x_times_per_block() {
        let h = overhead_harness::testing::quick_harness();
        let cpus: Vec<usize> = allowed_cpus().into_iter().cycle().take(2).collect();
        let blocks = AtomicU64::new(0);
        let (outcome, line) = measure::<Count>(10, &cpus, &h, |_, n| {
            blocks.fetch_add(n, Ordering::Relaxed);
        })
        .unwrap();
        let blocks = blocks.load(Ordering::Relaxed);
        assert_eq!(line, 10 * blocks);
        let m = &outcome.measurement;
        assert!(blocks >= 2 * (h.config.warmup + h.config.repetitions) as u64 * m.batch_ops);
        assert_eq!(m.samples_ns.len(), h.config.repetitions);
        // 90 chained memory increments and 10 locked adds per block: far above the empty loop's iteration.
        assert!(m.samples_ns.iter().all(|&s| s.is_finite() && s > 0.0), "{m:?}");
        assert_eq!(m.per_thread_ns.len(), 2);
    }

    #[test]
    fn run_measures_a_planned_point_and_refuses_an_unknown_x() {
        let h = overhead_harness::testing::quick_harness();
        let os = overhead_runtime_registry::find("os").unwrap();
        let ctx = PlanContext {
            cpus: vec![allowed_cpus()[0]],
            topology: Topology::detect(),
            mode: Mode::Quick,
            hosts: Vec::new(),
        };
        let Planned::Run(mut spec) = Mix.points(&ctx, os).remove(0) else { panic!() };
        let m = Mix.run(&crate::Point::resolve(&spec).unwrap(), &h).unwrap().measurement;
        assert_eq!(m.samples_ns.len(), h.config.repetitions);
        // 99 chained increments in memory per block: well above the empty loop.
        assert!(m.samples_ns.iter().all(|&s| s.is_finite() && s > 0.0), "{m:?}");
        spec.params[0].1 = "30".into();
        let err = Mix.run(&crate::Point::resolve(&spec).unwrap(), &h).unwrap_err().to_string();
        assert!(err.contains("x 30 is not one of"), "{err}");
    }
}
