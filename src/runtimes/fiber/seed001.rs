//! Seed 001's constructs on the project's fibers, all on one kernel thread: the yield round (§5.1),
//! wake-all (§5) and fork-join fan-out (§6). Every measurement runs as the first fiber of a fiber run
//! with the runtime's back-end.

use std::cell::Cell;
use std::hint::black_box;
use std::rc::Rc;

use super::FiberRuntime;
use crate::harness::empty_loop;
use crate::harness::{Harness, Measurement};
use crate::record::Outcome;
use crate::runtimes::fan_out::{measure_warm, FanOut, Granularity, Remarks, Sweep};
use crate::runtimes::fiber;
use crate::runtimes::primitives::Context;
use crate::runtimes::wake_all::{WaiterCpus, WakeAll};
use crate::runtimes::yield_round::YieldRound;

/// Why a construct that spreads over CPUs has no fiber cell.
const ONE_THREAD: &str = "the fibers share one kernel thread";

/// `n` spawns of `f` (queued, not yet run), then a join of each (the first join runs them all).
/// `handles` is cleared and refilled; give it the capacity for `n` beforehand so the loop does not
/// reallocate.
///
/// Panics if a fiber panicked.
pub fn spawn_all<F: Fn() + Copy + 'static>(n: u64, f: F, handles: &mut Vec<fiber::JoinHandle<()>>) {
    handles.clear();
    for _ in 0..n {
        handles.push(fiber::spawn(f));
    }
    for handle in handles.drain(..) {
        handle.join().expect("a spawned fiber panicked");
    }
}

/// An empty fiber body.
fn empty() {
    black_box(());
}

impl YieldRound for FiberRuntime {
    /// `load` yielding fibers beside the measuring one, all on this thread, through the FIFO ready queue.
    fn yield_round(&self, cpus: &[usize], load: usize, h: &Harness) -> anyhow::Result<Outcome> {
        anyhow::ensure!(cpus.len() == 1, "{}: {ONE_THREAD}; got CPUs {cpus:?}", self.name_str());
        Ok(self.in_context(h, Box::new(move |h| rounds(load, h)))?.into())
    }
}

/// The yield round among `load` loading fibers.
fn rounds(load: usize, h: &Harness) -> Measurement {
    let stop = Rc::new(Cell::new(false));
    let loaders: Vec<_> = (0..load)
        .map(|_| {
            let stop = stop.clone();
            fiber::spawn(move || {
                while !stop.get() {
                    fiber::yield_now();
                }
            })
        })
        .collect();
    let m = h.measure(
        |n| {
            for _ in 0..n {
                fiber::yield_now();
            }
        },
        empty_loop,
    );
    stop.set(true);
    for l in loaders {
        let _ = l.join();
    }
    m
}

impl WakeAll for FiberRuntime {
    fn wake_all_mechanisms(&self) -> &'static [&'static str] {
        &["semaphore"]
    }
    fn waiter_cpus(&self) -> WaiterCpus {
        WaiterCpus::WakersThread
    }
    /// `semaphore`: N V's on a semaphore N fibers are blocked in P on, then the waker blocks until the
    /// last has run; all on one CPU, so no settle time is needed.
    fn wake_all(
        &self,
        mechanism: &str,
        waiters: usize,
        _cpus: &[usize],
        _settle_ticks: u64,
        h: &Harness,
    ) -> anyhow::Result<Outcome> {
        anyhow::ensure!(
            mechanism == "semaphore",
            "sched.broadcast has no mechanism {mechanism:?} for runtime {}",
            self.name_str()
        );
        Ok(self.in_context(h, Box::new(move |h| semaphore_broadcast(waiters, h)))?.into())
    }
}

/// N fibers blocked in P on one semaphore; the waker V's N times and blocks on a second semaphore that
/// the last waiter to run V's.
pub(super) fn semaphore_broadcast(waiters: usize, h: &Harness) -> Measurement {
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

impl FanOut for FiberRuntime {
    fn fork_join_mechanisms(&self) -> &'static [&'static str] {
        &["spawn"]
    }

    /// `spawn`: spawn + join of one fiber (fibers run on one CPU, so the plan gives one).
    fn fork_join(&self, mechanism: &str, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome> {
        anyhow::ensure!(
            mechanism == "spawn",
            "spawn.forkjoin: runtime {} has no mechanism {mechanism:?}",
            self.name_str()
        );
        self.bulk_in_context(cpus.len() as u64, h, true)
    }

    /// `tasks` fiber spawns, then the joins; the control is a batch without constructs.
    fn bulk(&self, _cpus: &[usize], tasks: u64, h: &Harness) -> anyhow::Result<Outcome> {
        self.bulk_in_context(tasks, h, false)
    }

    fn remote(&self, _executor: usize, _generators: &[usize], _h: &Harness) -> anyhow::Result<Outcome> {
        anyhow::bail!(
            "{}: {ONE_THREAD}; spawn.remote needs an executor and generators on CPUs of their own",
            self.name_str()
        )
    }

    fn granularity(&self, _run: &Granularity<'_>, _h: &Harness, _sweep: &mut Sweep<'_>) -> anyhow::Result<Remarks> {
        anyhow::bail!("{}: {ONE_THREAD}; grain.sweep spreads work over CPUs", self.name_str())
    }
}

impl FiberRuntime {
    /// Constructs of `tasks` fibers (spawn all, join all) in a fiber run; against the empty loop
    /// (`spawn.forkjoin`) or an empty batch (`spawn.bulk`).
    fn bulk_in_context(&self, tasks: u64, h: &Harness, empty_loop_control: bool) -> anyhow::Result<Outcome> {
        let m = self.in_context(
            h,
            Box::new(move |h| {
                let mut handles = Vec::with_capacity(tasks as usize);
                let test = |n: u64| (0..n).for_each(|_| spawn_all(tasks, empty, &mut handles));
                if empty_loop_control {
                    measure_warm(h, test, empty_loop)
                } else {
                    measure_warm(h, test, |_| {})
                }
            }),
        )?;
        Ok(Outcome::from(m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every episode wakes all waiters: the waker would hang on `done` otherwise.
    #[test]
    fn semaphore_broadcast_wakes_all_waiters() {
        let h = crate::harness::testing::quick_harness();
        let m = fiber::run(fiber::Backend::Corosensei, move || semaphore_broadcast(3, &h));
        assert!(m.samples_ns.iter().all(|s| s.is_finite()));
    }
}
