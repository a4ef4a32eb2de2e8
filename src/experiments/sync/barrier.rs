//! `sync.barrier`: one barrier episode across a team of threads.

use crossbeam_utils::CachePadded;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::experiments::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned};
use crate::harness::{Harness, SpinBarrier};
use crate::record::{Metric, PointSpec};
use crate::runtimes::openmp;
use crate::runtimes::os::pthread_barrier::PthreadBarrier;
use crate::runtimes::Capability;

/// Each thread's barrier sense, alone on its line so the threads do not share it.
type PaddedSense = CachePadded<AtomicBool>;
/// `sync.barrier`'s parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Params {
    #[serde(rename = "impl")]
    implementation: Impl,
    threads: usize,
}

/// The barrier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
enum Impl {
    /// `std::sync::Barrier` (mutex and condition variable).
    Std,
    /// A sense-reversing spin barrier.
    Spin,
    /// `pthread_barrier_t`.
    Pthread,
    /// `#pragma omp barrier` (runtime `openmp`).
    OmpBarrier,
}

/// Seed 001 §8.2 experiment 1 (Fig. 9): T threads, one per CPU, pass a barrier over and over; the time
/// per episode (slowest thread), against the empty loop. Implementations: std's `Barrier` (mutex and
/// condition variable), a sense-reversing spin barrier (the seed's counter-and-flag `sync`) and POSIX
/// `pthread_barrier_wait` (glibc's futex barrier; `impl:pthread`) for `os`; `#pragma omp barrier` in one
/// region of a pinned libgomp team for `openmp` (EPCC's BARRIER), against the same region with an empty loop.
pub struct Barrier;

impl Experiment for Barrier {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: "sync.barrier",
            summary: "barrier episode, std Barrier vs. spin barrier vs. pthread_barrier_wait vs. omp barrier, \
                      threads 2…CPUs",
            source: "seed 001 §8.2 experiment 1, Fig. 9; EPCC syncbench BARRIER",
            metric: Metric::PerOp,
            requires: &[Capability::Barrier],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &str) -> Vec<Planned> {
        let counts = ctx.thread_counts(2);
        let implementations: &[Impl] =
            if runtime == "openmp" { &[Impl::OmpBarrier] } else { &[Impl::Std, Impl::Spin, Impl::Pthread] };
        let mut out = Vec::new();
        for &implementation in implementations {
            if counts.is_empty() {
                let spec = ctx.spec_of(self.id(), runtime, &Params { implementation, threads: 2 }, ctx.team_cpus(1));
                out.push(Planned::Skip(spec, format!("needs 2 usable CPUs; this run may use {}", ctx.cpus.len())));
            }
            for &threads in &counts {
                let params = Params { implementation, threads };
                out.push(Planned::Run(ctx.spec_of(self.id(), runtime, &params, ctx.team_cpus(threads))));
            }
        }
        out
    }
    fn run(&self, spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
        let threads = spec.cpus.len();
        let params: Params = spec.params_as()?;
        let report = match params.implementation {
            Impl::Std => {
                let barrier = std::sync::Barrier::new(threads);
                episodes(h, &spec.cpus, || {
                    barrier.wait();
                })
            }
            Impl::Spin => {
                let barrier = SpinBarrier::new(threads);
                let senses: Vec<PaddedSense> = (0..threads).map(|_| PaddedSense::default()).collect();
                h.measure_team(
                    &spec.cpus,
                    |thread, n| {
                        let mut sense = senses[thread].load(Ordering::Relaxed);
                        for _ in 0..n {
                            barrier.wait(&mut sense);
                        }
                        senses[thread].store(sense, Ordering::Relaxed);
                    },
                    |_, n| empty_loop(n),
                )
            }
            Impl::Pthread => {
                let barrier = PthreadBarrier::new(threads)?;
                episodes(h, &spec.cpus, || {
                    barrier.wait();
                })
            }
            Impl::OmpBarrier => {
                let team = openmp::Team::pinned(&spec.cpus)?;
                let mut outcome = Outcome::from(h.measure(|n| team.barrier(n), |n| team.team_loop(n)));
                outcome.notes = team.notes();
                return Ok(outcome);
            }
        };
        let notes =
            report.pin_failures.iter().map(|(cpu, e)| format!("thread for CPU {cpu} not pinned: {e}")).collect();
        Ok(Outcome { measurement: report.measurement, notes, extra: Default::default(), details: Default::default() })
    }
}

/// `n` barrier episodes per thread of a team on `cpus`, each one call of a barrier that needs no per-thread
/// state (`wait`), against the empty loop.
fn episodes(h: &Harness, cpus: &[usize], wait: impl Fn() + Sync) -> crate::harness::TeamReport {
    h.measure_team(
        cpus,
        |_, n| {
            for _ in 0..n {
                wait();
            }
        },
        |_, n| empty_loop(n),
    )
}
