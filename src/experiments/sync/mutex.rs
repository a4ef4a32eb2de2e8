//! `sync.mutex`: lock, a one-line critical section, unlock, by 1…CPUs threads on one lock.

use std::hint::black_box;

use crate::experiments::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned};
use crate::harness::Harness;
use crate::record::{Metric, PointSpec};
use crate::runtimes::openmp;
use crate::runtimes::os::futex_lock::FutexLock;
use crate::runtimes::os::spin_lock::SpinLock;
use crate::runtimes::Capability;

/// The `lock` values, in plan order.
const LOCKS: [&str; 3] = ["std", "spin", "futex"];

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
        let locks: &[&str] = if runtime == "openmp" { &["omp_lock"] } else { &LOCKS };
        let mut out = Vec::new();
        for &lock in locks {
            for threads in ctx.thread_counts(1) {
                let params = [("lock", lock.to_string()), ("threads", threads.to_string())];
                out.push(Planned::Run(ctx.spec(self.id(), runtime, &params, ctx.team_cpus(threads))));
            }
        }
        out
    }
    fn run(&self, spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
        if spec.param("lock") == Some("omp_lock") {
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
        let report = match spec.param("lock") {
            Some("std") => {
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
            Some("spin") => {
                let lock = SpinLock::new(0u64);
                h.measure_team(&spec.cpus, |_, n| (0..n).for_each(|_| black_box(&lock).with(|c| *c += 1)), control)
            }
            Some("futex") => {
                let lock = FutexLock::new(0u64);
                h.measure_team(&spec.cpus, |_, n| (0..n).for_each(|_| black_box(&lock).with(|c| *c += 1)), control)
            }
            other => {
                anyhow::bail!("unknown sync.mutex lock {other:?}; expected one of {} or omp_lock", LOCKS.join(", "))
            }
        };
        Ok(report.into())
    }
}
