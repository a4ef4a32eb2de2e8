//! `sched.broadcast`: one activity wakes N sleeping waiters; the time until the last of them has run.

use crossbeam_utils::CachePadded;
use std::cell::Cell;
use std::hint::spin_loop;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use crate::clock::Clock;
use crate::experiments::context::{in_context, runtime_of};
use crate::experiments::fits::{fit_series, FitSpec, Model};
use crate::experiments::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned};
use crate::harness::{Harness, Measurement, Mode};
use crate::machine::pin_current_thread;
use crate::record::{FitRecord, Metric, PointRecord, PointSpec};
use crate::runtimes::os::wake_all::{CondvarWake, FutexWake, WakeAll};
use crate::runtimes::Capability;
use crate::runtimes::{fiber, tokio_rt, Runtime};

/// How long the waker waits, after every waiter has said it is about to block, before it broadcasts
/// (ns): time for the last one to get from its announcement into the kernel (or tokio's scheduler).
/// The control batch waits the same, so it cancels.
const SETTLE_NS: f64 = 5_000.0;

/// Spins on a condition before the waiter also yields its CPU (when it shares one with those it waits for).
const SPINS_BEFORE_YIELD: u32 = 1 << 12;

/// The linear fit against the number of waiters: `a` the broadcast with one waiter, `b` per extra one.
const FIT: FitSpec = FitSpec { x: "waiters", x_unit: "", model: Model::Linear };
/// `sched.broadcast`'s parameters: the runtime's wake-all mechanism (`futex`, `condvar`, `notify`,
/// `semaphore`) and the number of waiters.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Params {
    mechanism: String,
    waiters: usize,
}

/// One activity wakes N waiters blocked on one condition and waits until the last of them has run (it
/// has counted itself arrived); one **broadcast episode** per operation, against a control that only
/// waits the same settle time. Before each episode every waiter has announced that it is about to
/// block and the waker lets [`SETTLE_NS`] pass, so the waiters are asleep when woken, not still on
/// their way to sleep.
///
/// * `os`, `mechanism:futex`: a generation word, `FUTEX_WAKE` of all sleepers; `mechanism:condvar`:
///   std's `Condvar::notify_all` (waiters then take the mutex one after the other). The waker runs on
///   the home CPU, the waiters are pinned round-robin on the other usable CPUs (on the home CPU if
///   there is no other), so more waiters than CPUs queue on their CPU.
/// * `tokio`, `mechanism:notify`: `Notify::notify_waiters` from the harness thread to N tasks on a
///   multi-thread runtime whose workers are pinned to the other CPUs.
/// * `fiber-*`, `mechanism:semaphore`: N V's on a semaphore N fibers are blocked in P on, then the
///   waker blocks until the last has run; all on one CPU.
/// * `rayon`: skipped; a rayon job has no way to wait for a condition except blocking its worker
///   thread, which would be the `os` mechanism again.
pub struct Broadcast;

impl Experiment for Broadcast {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: "sched.broadcast",
            summary: "wake-all: one activity wakes N blocked waiters, time until the last has run (futex, condvar, \
                      tokio Notify, fiber semaphore)",
            source: "seed 001 §5 (scheduling), §8.2 (the barrier's release); perf bench futex wake",
            metric: Metric::PerOp,
            requires: &[Capability::WakeAll],
        }
    }

    fn points(&self, ctx: &PlanContext, runtime: &str) -> Vec<Planned> {
        let home = ctx.home_cpu();
        let others: Vec<usize> = ctx.cpus.iter().copied().filter(|&c| c != home).collect();
        let waiter_cpus = if others.is_empty() { vec![home] } else { others };
        let point = |mechanism: &str, waiters: usize, cpus: Vec<usize>| {
            ctx.spec_of(self.id(), runtime, &Params { mechanism: mechanism.into(), waiters }, cpus)
        };
        let round_robin = |n: usize| -> Vec<usize> {
            std::iter::once(home).chain((0..n).map(|i| waiter_cpus[i % waiter_cpus.len()])).collect()
        };
        let counts = waiter_counts(ctx.cpus.len(), ctx.mode);
        match Runtime::parse(runtime) {
            Some(Runtime::Os) => ["futex", "condvar"]
                .iter()
                .flat_map(|m| counts.iter().map(|&n| Planned::Run(point(m, n, round_robin(n)))))
                .collect(),
            Some(Runtime::Tokio) => {
                let workers: Vec<usize> = std::iter::once(home).chain(waiter_cpus.iter().copied()).collect();
                counts.iter().map(|&n| Planned::Run(point("notify", n, workers.clone()))).collect()
            }
            Some(Runtime::Fiber(_)) => {
                counts.iter().map(|&n| Planned::Run(point("semaphore", n, vec![home]))).collect()
            }
            Some(Runtime::OpenMp) => {
                let reason =
                    "OpenMP has no wait/notify between threads: a thread waits only at a barrier (sync.barrier) \
                              or a lock (sync.mutex), and both release every waiter as part of the construct";
                vec![Planned::Skip(ctx.spec(self.id(), runtime, &[], vec![home]), reason.into())]
            }
            _ => {
                let reason = "rayon has no wait/notify for jobs: a job can only wait by blocking its worker thread \
                              (the os mechanisms)";
                vec![Planned::Skip(ctx.spec(self.id(), runtime, &[], vec![home]), reason.into())]
            }
        }
    }

    fn run(&self, spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
        let Params { mechanism, waiters } = spec.params_as()?;
        anyhow::ensure!(waiters > 0, "{}: sched.broadcast needs at least one waiter", spec.name());
        let settle_ticks = (SETTLE_NS * h.clock.hz / 1e9) as u64;
        let mut outcome = match (runtime_of(&spec.runtime)?, Some(mechanism.as_str())) {
            (Runtime::Os, Some("futex")) => os_broadcast(&spec.cpus[1..], h, settle_ticks, FutexWake::default()),
            (Runtime::Os, Some("condvar")) => os_broadcast(&spec.cpus[1..], h, settle_ticks, CondvarWake::default()),
            (Runtime::Tokio, Some("notify")) => tokio_notify(&spec.cpus[1..], waiters, h, settle_ticks)?,
            (Runtime::Fiber(b), Some("semaphore")) => {
                return Ok(in_context(Runtime::Fiber(b), h, move |h| fiber_semaphore(waiters, h))?.into());
            }
            (_, other) => anyhow::bail!("sched.broadcast has no mechanism {other:?} for runtime {}", spec.runtime),
        };
        outcome.extra.insert("settle_ns".into(), SETTLE_NS);
        Ok(outcome)
    }

    fn fits(&self, points: &[&PointRecord]) -> Vec<FitRecord> {
        fit_series(points, FIT)
    }
}

/// Waiter counts: one per other CPU and fewer (1, 2, 4, … up to CPUs − 1, and CPUs − 1 itself), then
/// two and four times the CPU count (more waiters than CPUs); in `--full` every count below the CPU
/// count, the CPU count, and two, four and eight times it.
fn waiter_counts(cpus: usize, mode: Mode) -> Vec<usize> {
    let mut counts: Vec<usize> = (0..usize::BITS).map(|s| 1usize << s).take_while(|&n| n < cpus).collect();
    counts.push(cpus.saturating_sub(1).max(1));
    counts.extend([2 * cpus, 4 * cpus]);
    if mode == Mode::Full {
        counts.extend(1..=cpus);
        counts.push(8 * cpus);
    }
    counts.sort_unstable();
    counts.dedup();
    counts
}

/// Spins until `done()`, yielding the CPU now and then in case those it waits for share it.
#[inline]
fn spin_until(done: impl Fn() -> bool) {
    let mut spins = 0u32;
    while !done() {
        spin_loop();
        spins += 1;
        if spins >= SPINS_BEFORE_YIELD {
            spins = 0;
            std::thread::yield_now();
        }
    }
}

/// Busy-waits `ticks` of the harness clock (the settle time; the same in test and control batches).
#[inline]
fn settle(clock: &Clock, ticks: u64) {
    let t0 = clock.stop();
    while clock.stop().wrapping_sub(t0) < ticks {
        spin_loop();
    }
}

/// Counters shared by the waker and its waiters, each on its own line.
#[derive(Default)]
struct Progress {
    /// Times any waiter announced it is about to block (each waiter once per episode, plus once at start).
    announced: Padded<AtomicU64>,
    /// Times any waiter ran after a wake-up.
    arrived: Padded<AtomicU64>,
    stop: Padded<AtomicBool>,
}

type Padded<T> = CachePadded<T>;

/// A waiter's life: announce, sleep until the next wake-all, count the arrival; until `progress.stop`.
fn wait_until_stopped<W: WakeAll>(wake: &W, progress: &Progress) {
    let mut seen = 0;
    loop {
        seen = wake.wait(seen, || {
            progress.announced.fetch_add(1, Ordering::Release);
        });
        if progress.stop.load(Ordering::Acquire) {
            break;
        }
        progress.arrived.fetch_add(1, Ordering::Release);
    }
}

/// Kernel threads: one waiter thread per entry of `waiter_cpus`, pinned there; the calling thread wakes.
fn os_broadcast<W: WakeAll>(waiter_cpus: &[usize], h: &Harness, settle_ticks: u64, wake: W) -> Outcome {
    let n = waiter_cpus.len() as u64;
    let progress = Progress::default();
    let episodes = Cell::new(0u64);
    let (measurement, refused) = std::thread::scope(|s| {
        let waiters: Vec<_> = waiter_cpus
            .iter()
            .map(|&cpu| {
                let (wake, progress) = (&wake, &progress);
                s.spawn(move || {
                    let refused =
                        pin_current_thread(cpu).err().map(|e| format!("waiter for CPU {cpu} not pinned: {e}"));
                    wait_until_stopped(wake, progress);
                    refused
                })
            })
            .collect();
        let episode = || {
            let e = episodes.get() + 1;
            episodes.set(e);
            spin_until(|| progress.announced.load(Ordering::Acquire) >= n * e);
            settle(&h.clock, settle_ticks);
            wake.wake_all();
            spin_until(|| progress.arrived.load(Ordering::Acquire) >= n * e);
        };
        let m = h.measure(
            |ops| (0..ops).for_each(|_| episode()),
            |ops| (0..ops).for_each(|_| settle(&h.clock, settle_ticks)),
        );
        progress.stop.store(true, Ordering::Release);
        spin_until(|| progress.announced.load(Ordering::Acquire) >= n * (episodes.get() + 1));
        wake.wake_all();
        let refused: Vec<String> = waiters.into_iter().filter_map(|t| t.join().expect("waiter panicked")).collect();
        (m, refused)
    });
    let mut outcome = Outcome::from(measurement);
    outcome.notes.extend(refused);
    outcome
}

/// tokio: N tasks waiting on one `Notify` on a multi-thread runtime pinned to `worker_cpus`; the
/// calling thread (outside the runtime) calls `notify_waiters`.
fn tokio_notify(worker_cpus: &[usize], waiters: usize, h: &Harness, settle_ticks: u64) -> anyhow::Result<Outcome> {
    let n = waiters as u64;
    let (rt, refused) = tokio_rt::multi_thread(worker_cpus)?;
    let notify = Arc::new(::tokio::sync::Notify::new());
    let progress = Arc::new(Progress::default());
    let tasks: Vec<_> = (0..waiters)
        .map(|_| {
            let (notify, progress) = (notify.clone(), progress.clone());
            rt.spawn(async move {
                loop {
                    let mut notified = std::pin::pin!(notify.notified());
                    // Registered from here on: a notify_waiters after the announcement reaches us.
                    notified.as_mut().enable();
                    progress.announced.fetch_add(1, Ordering::Release);
                    notified.await;
                    if progress.stop.load(Ordering::Acquire) {
                        break;
                    }
                    progress.arrived.fetch_add(1, Ordering::Release);
                }
            })
        })
        .collect();
    let episodes = Cell::new(0u64);
    let episode = || {
        let e = episodes.get() + 1;
        episodes.set(e);
        spin_until(|| progress.announced.load(Ordering::Acquire) >= n * e);
        settle(&h.clock, settle_ticks);
        notify.notify_waiters();
        spin_until(|| progress.arrived.load(Ordering::Acquire) >= n * e);
    };
    let m =
        h.measure(|ops| (0..ops).for_each(|_| episode()), |ops| (0..ops).for_each(|_| settle(&h.clock, settle_ticks)));
    progress.stop.store(true, Ordering::Release);
    spin_until(|| progress.announced.load(Ordering::Acquire) >= n * (episodes.get() + 1));
    notify.notify_waiters();
    rt.block_on(async {
        for t in tasks {
            t.await.expect("waiter task panicked");
        }
    });
    let mut outcome = Outcome::from(m);
    let refused = refused.load(Ordering::Relaxed);
    if refused > 0 {
        outcome.notes.push(format!("{refused} tokio worker thread(s) not pinned"));
    }
    Ok(outcome)
}

/// Fibers: N fibers blocked in P on one semaphore; the waker V's N times and blocks on a second
/// semaphore that the last waiter to run V's.
fn fiber_semaphore(waiters: usize, h: &Harness) -> Measurement {
    let wake = fiber::Semaphore::new(0);
    let done = fiber::Semaphore::new(0);
    let arrived = Rc::new(Cell::new(0usize));
    let stop = Rc::new(Cell::new(false));
    let handles: Vec<_> = (0..waiters)
        .map(|_| {
            let (wake, done, arrived, stop) = (wake.clone(), done.clone(), arrived.clone(), stop.clone());
            fiber::spawn(move || loop {
                wake.p();
                if stop.get() {
                    break;
                }
                arrived.set(arrived.get() + 1);
                if arrived.get() == waiters {
                    arrived.set(0);
                    done.v();
                }
            })
        })
        .collect();
    let m = h.measure(
        |ops| {
            for _ in 0..ops {
                for _ in 0..waiters {
                    wake.v();
                }
                done.p();
            }
        },
        empty_loop,
    );
    stop.set(true);
    for _ in 0..waiters {
        wake.v();
    }
    for handle in handles {
        let _ = handle.join();
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{calibrate, Calibration};
    use crate::harness::HarnessConfig;

    fn quick_harness() -> Harness {
        let time = calibrate(false, Calibration { span: std::time::Duration::from_millis(10), spans: 1 });
        Harness::new(&time, HarnessConfig::for_mode(Mode::Quick))
    }

    /// Every episode wakes all N waiters: the waker would hang on `arrived` otherwise, and a waiter that
    /// ran twice per episode would push `arrived` past N per episode.
    #[test]
    fn every_mechanism_wakes_all_waiters() {
        let h = quick_harness();
        let cpus = crate::machine::allowed_cpus();
        let waiter_cpus: Vec<usize> = (0..3).map(|i| cpus[i % cpus.len()]).collect();
        for outcome in [
            os_broadcast(&waiter_cpus, &h, 100, FutexWake::default()),
            os_broadcast(&waiter_cpus, &h, 100, CondvarWake::default()),
            tokio_notify(&cpus[..1], 3, &h, 100).unwrap(),
        ] {
            assert_eq!(outcome.measurement.samples_ns.len(), h.config.repetitions);
        }
        let m = fiber::run(fiber::Backend::Corosensei, move || fiber_semaphore(3, &h));
        assert!(m.samples_ns.iter().all(|s| s.is_finite()));
    }

    /// Direct count: after k episodes with the futex mechanism, exactly k·N arrivals.
    #[test]
    fn futex_wake_all_counts_each_waiter_once_per_episode() {
        const N: u64 = 3;
        const EPISODES: u64 = 200;
        let wake = FutexWake::default();
        let progress = Progress::default();
        std::thread::scope(|s| {
            for _ in 0..N {
                s.spawn(|| wait_until_stopped(&wake, &progress));
            }
            for e in 1..=EPISODES {
                spin_until(|| progress.announced.load(Ordering::Acquire) >= N * e);
                wake.wake_all();
                spin_until(|| progress.arrived.load(Ordering::Acquire) >= N * e);
                assert_eq!(progress.arrived.load(Ordering::Acquire), N * e);
            }
            progress.stop.store(true, Ordering::Release);
            spin_until(|| progress.announced.load(Ordering::Acquire) >= N * (EPISODES + 1));
            wake.wake_all();
        });
    }

    #[test]
    fn waiter_counts_include_more_waiters_than_cpus() {
        assert_eq!(waiter_counts(2, Mode::Default), vec![1, 4, 8]);
        assert_eq!(waiter_counts(1, Mode::Quick), vec![1, 2, 4]);
        assert_eq!(waiter_counts(8, Mode::Default), vec![1, 2, 4, 7, 16, 32]);
        assert_eq!(waiter_counts(2, Mode::Full), vec![1, 2, 4, 8, 16]);
    }
}
