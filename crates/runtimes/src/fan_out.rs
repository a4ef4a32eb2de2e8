//! Fork-join fan-out as a runtime implements it: Ben-Asher & Feitelson 1991 §6 (spawning), written once as `spawn.forkjoin`,
//! `spawn.bulk` and `spawn.remote` against [`FanOut`]
//! (docs/ARCHITECTURE.md "Runtimes under test"), with the measuring helpers the implementations share.

use std::sync::atomic::{AtomicUsize, Ordering};

use overhead_harness::empty_loop;
use overhead_harness::{Harness, Measurement, TeamReport};
use overhead_record::Outcome;

/// `spawn.forkjoin`'s mechanisms (its `mechanism:` parameter), across runtimes
/// ([`super::Offers::fork_join`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ForkJoinMechanism {
    /// A new activity per task, joined (a kernel thread, a fiber, a tokio task, a goroutine).
    Spawn,
    /// Threads created once and pinned, woken per episode through a spin barrier (an OpenMP hot team).
    HotTeam,
    /// `rayon::broadcast`: one job on every worker of the pool.
    Broadcast,
    /// A `rayon::scope` spawning one job per CPU.
    Scope,
    /// An empty `#pragma omp parallel` region.
    Parallel,
    /// A pool of workers the tasks are submitted to (the external probes).
    Pool,
}

/// [`super::Capability::ForkJoin`]: one construct of tasks over the CPUs, joined — the spawns of Ben-Asher & Feitelson 1991
/// §6. A runtime whose activities share one kernel thread ([`super::RuntimeUnderTest::one_thread`]) is
/// only asked for one CPU. The granularity sweep of §7 is [`super::grain_sweep::GrainSweep`].
pub trait FanOut: Sync {
    /// `spawn.forkjoin`: ns per episode of fork, one empty task per CPU of `cpus`, join.
    ///
    /// Errors: a `mechanism` the runtime does not offer; the runtime's threads could not be started.
    fn fork_join(&self, mechanism: ForkJoinMechanism, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome>;
    /// `spawn.bulk`: ns per construct of `tasks` empty tasks run by the CPUs of `cpus`.
    ///
    /// Errors: the runtime's threads could not be started.
    fn bulk(&self, cpus: &[usize], tasks: u64, h: &Harness) -> anyhow::Result<Outcome>;
    /// `spawn.remote`: ns per single-task spawn that the `executor` CPU runs for generators pinned one per
    /// CPU of `generators`, as the executor sees it.
    ///
    /// Errors: the runtime's threads could not be started; it runs on one thread.
    fn remote(&self, executor: usize, generators: &[usize], h: &Harness) -> anyhow::Result<Outcome>;
}

/// Operations run untimed before [`measure_warm`] and [`measure_team_warm`] measure.
const WARM_OPS: u64 = 1;

/// [`Harness::measure`] after running `test` untimed for one operation: the first episodes start or wake
/// a pool's threads and fault in their stacks, and a first sizing batch slowed by that would stop the
/// batch size at one operation.
pub fn measure_warm(h: &Harness, mut test: impl FnMut(u64), control: impl FnMut(u64)) -> Measurement {
    test(WARM_OPS);
    h.measure(test, control)
}

/// [`Harness::measure_team`] of `test` against the empty loop, after the calling thread has run
/// `test(0, …)` untimed for one operation, for the same reason as [`measure_warm`].
pub fn measure_team_warm<T: Fn(usize, u64) + Sync>(h: &Harness, cpus: &[usize], test: T) -> TeamReport {
    test(0, WARM_OPS);
    h.measure_team(cpus, test, |_, n| empty_loop(n))
}

/// A note when some workers of a rayon pool or tokio runtime could not be pinned.
pub fn pool_notes(refused: &AtomicUsize) -> Option<String> {
    let refused = refused.load(Ordering::Relaxed);
    (refused > 0).then(|| format!("{refused} worker thread(s) could not be pinned and ran unpinned"))
}

/// `spawn.remote`'s point from the generators' team: every generator ran a batch of n spawns at once,
/// so the executor ran g·n of them in that time; ns per spawn, with `generators` and the generator's
/// `round_trip_ns` (spawn, run, join seen by one generator) in `extra`.
pub fn per_executor_spawn(report: TeamReport, generators: usize, notes: Vec<String>) -> Outcome {
    let g = generators.max(1) as f64;
    let mut outcome = Outcome::from(report);
    outcome.notes.extend(notes);
    outcome.measurement = outcome.measurement.per(g);
    let median = outcome.measurement.summary().map_or(f64::NAN, |s| s.median);
    outcome.extra.insert("generators".into(), g);
    outcome.extra.insert("round_trip_ns".into(), median * g);
    outcome
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicU64;

    use super::*;
    use crate::task_pool::TaskPool;
    use crate::{fiber, os, rayon_rt, tokio_rt};

    fn counter() -> &'static AtomicU64 {
        Box::leak(Box::new(AtomicU64::new(0)))
    }

    fn cpus() -> Vec<usize> {
        let all = overhead_machine::allowed_cpus();
        all[..all.len().min(2)].to_vec()
    }

    /// Each runtime's construct runs its body exactly `n` times and returns only after the last one.
    #[test]
    fn every_construct_runs_exactly_n_tasks() {
        const N: u64 = 300;
        let runs = counter();
        let count = move || {
            runs.fetch_add(1, Ordering::Relaxed);
        };

        os::fan_out::threads(&cpus(), N, &AtomicUsize::new(0), &count);
        assert_eq!(runs.swap(0, Ordering::Relaxed), N, "os");

        let (pool, _) = rayon_rt::pool(&cpus()).unwrap();
        pool.install(|| rayon_rt::fan_out::scope(N, &count));
        assert_eq!(runs.swap(0, Ordering::Relaxed), N, "rayon");

        let pool = tokio_rt::TokioPool::start(&cpus()).unwrap();
        let handles = pool.on_worker(move |spawner| async move {
            let mut handles = Vec::with_capacity(N as usize);
            crate::task_pool::fan_out::spawn_all_of(&spawner, N, count, &mut handles).await;
            handles
        });
        assert!(handles.is_empty() && handles.capacity() >= N as usize);
        assert_eq!(runs.swap(0, Ordering::Relaxed), N, "tokio");

        fiber::run(fiber::Backend::Corosensei, move || fiber::fan_out::spawn_all(N, count, &mut Vec::new()));
        assert_eq!(runs.swap(0, Ordering::Relaxed), N, "fiber");
    }

    /// Threads pin themselves round-robin to the CPUs given (when the kernel lets them).
    #[test]
    fn os_threads_run_on_the_cpus_given() {
        let cpus = cpus();
        let seen: Vec<AtomicU64> = (0..=*cpus.iter().max().unwrap()).map(|_| AtomicU64::new(0)).collect();
        let refused = AtomicUsize::new(0);
        os::fan_out::threads(&cpus, 2 * cpus.len() as u64, &refused, &|| {
            // SAFETY: sched_getcpu takes no arguments and touches no memory of ours.
            let cpu = unsafe { libc::sched_getcpu() };
            if let Some(slot) = usize::try_from(cpu).ok().and_then(|c| seen.get(c)) {
                slot.fetch_add(1, Ordering::Relaxed);
            }
        });
        if refused.load(Ordering::Relaxed) == 0 {
            for &cpu in &cpus {
                assert_eq!(seen[cpu].load(Ordering::Relaxed), 2, "CPU {cpu}");
            }
        }
    }

    /// [`measure_warm`] runs one untimed operation before the harness's own batches: with a zero target
    /// the harness runs a sizing batch of 1, its confirming batch, one warm-up and the repetitions.
    #[test]
    fn measure_warm_runs_one_operation_before_measuring() {
        let mut h = overhead_harness::testing::quick_harness();
        (h.config.target_batch_ns, h.config.warmup, h.config.repetitions) = (0.0, 1, 2);
        let ops = std::cell::Cell::new(0u64);
        let m = measure_warm(&h, |n| ops.set(ops.get() + n), |_| {});
        assert_eq!(m.batch_ops, 1);
        assert_eq!(ops.get(), 1 + 5, "1 untimed, then sizing, confirming, warm-up and 2 repetitions");
    }

    /// Every runtime with fan-out runs each kind of construct on a tiny harness; a runtime on one thread is
    /// asked for one CPU and refuses the constructs that need more.
    #[test]
    fn every_runtime_runs_its_constructs() {
        let h = overhead_harness::testing::quick_harness();
        let cpus = cpus();
        // External runtimes are measured by their own probes (tests/external_probes.rs).
        for runtime in crate::registry().iter().filter(|r| r.external().is_none()) {
            let (Some(fan_out), Some(mechanisms), Ok(())) =
                (runtime.fan_out(), runtime.offers().fork_join.has(), runtime.available())
            else {
                continue;
            };
            let cpus = if runtime.one_thread().is_some() { &cpus[..1] } else { &cpus[..] };
            for &mechanism in mechanisms {
                let outcome = fan_out.fork_join(mechanism, cpus, &h).unwrap();
                assert_eq!(
                    outcome.measurement.samples_ns.len(),
                    h.config.repetitions,
                    "{} {mechanism:?}",
                    runtime.name()
                );
            }
            let offered = |m: &ForkJoinMechanism| mechanisms.contains(m);
            let not_offered = [ForkJoinMechanism::Spawn, ForkJoinMechanism::Parallel].into_iter().find(|m| !offered(m));
            assert!(fan_out.fork_join(not_offered.unwrap(), cpus, &h).is_err());
            let bulk = fan_out.bulk(cpus, 50, &h).unwrap();
            assert_eq!(bulk.measurement.samples_ns.len(), h.config.repetitions, "{}", runtime.name());
            if runtime.one_thread().is_some() {
                assert!(fan_out.remote(cpus[0], &cpus[..1], &h).is_err());
            } else if cpus.len() > 1 {
                let remote = fan_out.remote(cpus[0], &cpus[1..], &h).unwrap();
                assert_eq!(remote.extra["generators"], 1.0, "{}", runtime.name());
            }
        }
    }
}
