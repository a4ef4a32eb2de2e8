//! `sync.mutex`: lock, a one-line critical section, unlock, by 1…CPUs threads on one lock.

use std::hint::black_box;

use crate::experiments::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned};
use crate::harness::Harness;
use crate::record::{Metric, PointSpec};
use crate::runtimes::openmp;
use crate::runtimes::os::futex_lock::FutexLock;
use crate::runtimes::os::spin_lock::SpinLock;
use crate::runtimes::Capability;

/// `sync.mutex`'s parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Params {
    lock: Lock,
    threads: usize,
}

/// The lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
enum Lock {
    /// `std::sync::Mutex`.
    Std,
    /// A test-and-test-and-set spin lock with exponential backoff.
    Spin,
    /// A futex lock (Drepper's three-state mutex).
    Futex,
    /// `omp_lock_t` (runtime `openmp`).
    #[serde(rename = "omp_lock")]
    Omp,
}

/// The `os` locks, in plan order.
const LOCKS: [Lock; 3] = [Lock::Std, Lock::Spin, Lock::Futex];

/// Lock/unlock pairs around a shared counter's increment, by T threads (one per CPU, started
/// together) on one lock; `threads:1` is the uncontended cost, more threads the contended one (the
/// slowest thread's time per pair while the others do the same), against the empty loop.
///
/// `lock:std` is `std::sync::Mutex` (a futex lock in the standard library); `lock:spin` our
/// test-and-test-and-set spin lock with exponential backoff ([`SpinLock`]); `lock:futex` our
/// Drepper three-state futex lock ([`FutexLock`]), whose waiters sleep in the kernel. For `openmp`,
/// `lock:omp_lock` is libgomp's `omp_lock_t` (`omp_set_lock`/`omp_unset_lock`) in one region of a pinned
/// team, against the same region with an empty loop (EPCC syncbench LOCK/UNLOCK).
pub struct Mutex;

impl Experiment for Mutex {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: "sync.mutex",
            summary: "lock + increment + unlock, std Mutex vs. TTAS spin lock vs. Drepper futex lock vs. omp_lock_t, \
                      threads 1…CPUs",
            source: "seed 004 (semaphores as locks); Drepper, \"Futexes Are Tricky\" §6; Anderson 1990 (TTAS, backoff)",
            metric: Metric::PerOp,
            requires: &[Capability::Lock],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &str) -> Vec<Planned> {
        let locks: &[Lock] = if runtime == "openmp" { &[Lock::Omp] } else { &LOCKS };
        let mut out = Vec::new();
        for &lock in locks {
            for threads in ctx.thread_counts(1) {
                out.push(Planned::Run(ctx.spec_of(
                    self.id(),
                    runtime,
                    &Params { lock, threads },
                    ctx.team_cpus(threads),
                )));
            }
        }
        out
    }
    fn run(&self, spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
        let Params { lock, .. } = spec.params_as()?;
        if lock == Lock::Omp {
            let team = openmp::Team::pinned(&spec.cpus)?;
            let threads = spec.cpus.len() as u64;
            let mut counted = 0u64;
            let mut asked = 0u64;
            let mut outcome = Outcome::from(h.measure(
                |n| {
                    counted += team.mutex(n);
                    asked += n * threads;
                },
                |n| team.team_loop(n),
            ));
            // The lock's count proves mutual exclusion held in every timed batch.
            anyhow::ensure!(counted == asked, "omp_lock_t lost updates: counted {counted} of {asked}");
            outcome.notes = team.notes();
            return Ok(outcome);
        }
        let control = |_: usize, n: u64| empty_loop(n);
        let report = match lock {
            Lock::Std => {
                let lock = std::sync::Mutex::new(0u64);
                h.measure_team(
                    &spec.cpus,
                    |_, n| {
                        for _ in 0..n {
                            // A poisoned lock (a panicking holder) cannot happen here: nothing panics inside.
                            *black_box(&lock).lock().unwrap_or_else(|e| e.into_inner()) += 1;
                        }
                    },
                    control,
                )
            }
            Lock::Spin => {
                let lock = SpinLock::new(0u64);
                h.measure_team(&spec.cpus, |_, n| (0..n).for_each(|_| black_box(&lock).with(|c| *c += 1)), control)
            }
            Lock::Futex => {
                let lock = FutexLock::new(0u64);
                h.measure_team(&spec.cpus, |_, n| (0..n).for_each(|_| black_box(&lock).with(|c| *c += 1)), control)
            }
            Lock::Omp => unreachable!("omp_lock returned above"),
        };
        Ok(report.into())
    }
}
