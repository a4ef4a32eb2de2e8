//! `sync.faa`: fetch-and-add on one shared variable vs. one variable per thread, with the hardware's
//! atomic add and with seed 001's own lock-based `faa`.

use crossbeam_utils::CachePadded;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::experiments::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned};
use crate::harness::Harness;
use crate::record::{Metric, PointSpec};
use crate::runtimes::openmp;
use crate::runtimes::os::hashed_faa::HashedFaa;
use crate::runtimes::Capability;

/// One counter alone on a 128-byte block (crossbeam's `CachePadded` on x86-64): two 64-byte lines, so the adjacent-line prefetcher cannot
/// make neighbours share.
type PaddedCounter = CachePadded<AtomicU64>;

/// Seed 001 §8.1 (Fig. 8): every thread adds 1 to a counter in a loop, all on the same variable
/// (`variable:shared`, the line bounces between CPUs) or each on its own line (`variable:distinct`);
/// threads 1…CPUs, started together. The time is per operation of one thread while the others run
/// theirs (the slowest thread's time), against the empty loop.
///
/// `impl:hw` is the CPU's atomic add (`lock xadd` on x86-64); `impl:hashed_lock` is the seed's own
/// implementation ([`HashedFaa`]): the address hashed to one of 256 test-and-set spin locks, the add
/// done under the lock, so adds to one variable serialise on its lock and adds to distinct variables
/// take distinct locks (each thread's padded counter has its own). Both run on a harness thread team (`os`).
/// `openmp` (`impl:omp_atomic`): `#pragma omp atomic` in one parallel region of a pinned libgomp team,
/// against the same region with an empty loop; the region ends when its slowest thread does, so the time
/// is again the slowest thread's.
pub struct Faa;

/// `sync.faa`'s parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Params {
    #[serde(rename = "impl")]
    implementation: Impl,
    variable: Variable,
    threads: usize,
}

/// How the fetch-and-add is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
enum Impl {
    /// The hardware's atomic add.
    Hw,
    /// A lock from a table hashed by address (seed 001 §8.1's software fetch-and-add).
    HashedLock,
    /// `#pragma omp atomic` (runtime `openmp`).
    OmpAtomic,
}

/// One variable for all threads, or one each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
enum Variable {
    Shared,
    Distinct,
}

/// The `os` implementations, in plan order.
const IMPLS: [Impl; 2] = [Impl::Hw, Impl::HashedLock];

impl Experiment for Faa {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: "sync.faa",
            summary: "fetch-and-add, hardware atomic vs. seed 001's hashed spin locks vs. omp atomic, one shared \
                      line vs. one line per thread, threads 1…CPUs",
            source: "seed 001 §8.1, Fig. 8",
            metric: Metric::PerOp,
            requires: &[Capability::Atomic],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &str) -> Vec<Planned> {
        let implementations: &[Impl] = if runtime == "openmp" { &[Impl::OmpAtomic] } else { &IMPLS };
        let mut out = Vec::new();
        for &implementation in implementations {
            for variable in [Variable::Shared, Variable::Distinct] {
                for threads in ctx.thread_counts(1) {
                    let params = Params { implementation, variable, threads };
                    out.push(Planned::Run(ctx.spec_of(self.id(), runtime, &params, ctx.team_cpus(threads))));
                }
            }
        }
        out
    }
    fn run(&self, spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
        let params: Params = spec.params_as()?;
        let shared = params.variable == Variable::Shared;
        if params.implementation == Impl::OmpAtomic {
            return omp_atomic(spec, h, if shared { openmp::Variable::Shared } else { openmp::Variable::Distinct });
        }
        let counters: Vec<PaddedCounter> = (0..spec.cpus.len()).map(|_| PaddedCounter::default()).collect();
        let counter = |thread: usize| &counters[if shared { 0 } else { thread }];
        let report = match params.implementation {
            Impl::Hw => h.measure_team(
                &spec.cpus,
                |thread, n| {
                    let counter = counter(thread);
                    for _ in 0..n {
                        counter.fetch_add(1, Ordering::Relaxed);
                    }
                },
                |_, n| empty_loop(n),
            ),
            Impl::HashedLock => {
                let faa = HashedFaa::new();
                h.measure_team(
                    &spec.cpus,
                    |thread, n| {
                        let counter = counter(thread);
                        for _ in 0..n {
                            std::hint::black_box(faa.fetch_add(counter, 1));
                        }
                    },
                    |_, n| empty_loop(n),
                )
            }
            Impl::OmpAtomic => unreachable!("omp_atomic returned above"),
        };
        Ok(report.into())
    }
}

/// The `openmp` point: `reps` `omp atomic` increments per thread in one region, against the region with an
/// empty loop (the region's fork-join cancels).
fn omp_atomic(spec: &PointSpec, h: &Harness, variable: openmp::Variable) -> anyhow::Result<Outcome> {
    let team = openmp::Team::pinned(&spec.cpus)?;
    let measurement = h.measure(
        |n| {
            std::hint::black_box(team.faa(n, variable));
        },
        |n| team.team_loop(n),
    );
    let mut outcome = Outcome::from(measurement);
    outcome.notes = team.notes();
    Ok(outcome)
}
