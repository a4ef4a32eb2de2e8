//! `sched.broadcast`: one activity wakes N sleeping waiters; the time until the last of them has run.

use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use overhead_harness::{Harness, Mode};
use overhead_record::Metric;
use overhead_runtime_api::wake_all::{WaiterCpus, WakeMechanism};
use overhead_runtime_api::{Capability, RuntimeUnderTest};

/// How long the waker waits, after every waiter has said it is about to block, before it broadcasts
/// (ns): time for the last one to get from its announcement into the kernel (or tokio's scheduler).
/// The control batch waits the same, so it cancels.
const SETTLE_NS: f64 = 5_000.0;

/// `sched.broadcast`'s parameters: the runtime's wake-all mechanism (`futex`, `condvar`, `notify`,
/// `semaphore`) and the number of waiters.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct Params {
    mechanism: WakeMechanism,
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
/// * `tokio`, `smol`, `mechanism:notify`: `Notify::notify_waiters` (tokio), event-listener's
///   `Event::notify(usize::MAX)` (smol) from the harness thread to N tasks on a multi-thread runtime
///   whose workers are pinned to the other CPUs.
/// * `fiber-*`, `mechanism:semaphore`: N V's on a semaphore N fibers are blocked in P on, then the
///   waker blocks until the last has run; all on one CPU.
/// * `rayon`: skipped; a rayon job has no way to wait for a condition except blocking its worker
///   thread, which would be the `os` mechanism again.
pub struct Broadcast;

/// What a `sched.broadcast` point reports beside its median (its `extra`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BroadcastResult {
    /// The pause after each episode that lets the woken waiters settle (ns); absent where the waiters run on
    /// the waker's own thread.
    pub settle_ns: Option<f64>,
}

impl Broadcast {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::sched::BROADCAST;
}

impl Experiment for Broadcast {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Broadcast::ID,
            summary: "wake-all: one activity wakes N blocked waiters, time until the last has run (futex, condvar, \
                      async notify, fiber semaphore)",
            source: "Ben-Asher & Feitelson 1991 §5 (scheduling), §8.2 (the barrier's release); perf bench futex wake",
            metric: Metric::PerOp,
            requires: &[Capability::WakeAll],
        }
    }

    fn points(&self, ctx: &PlanContext, runtime: &dyn RuntimeUnderTest) -> Vec<Planned> {
        let Some(wake_all) = runtime.offers().wake_all.has() else { return Vec::new() };
        let home = ctx.home_cpu();
        let others: Vec<usize> = ctx.cpus.iter().copied().filter(|&c| c != home).collect();
        let waiter_cpus = if others.is_empty() { vec![home] } else { others };
        let cpus_for = |waiters: usize| -> Vec<usize> {
            let on_others = |n: usize| (0..n).map(|i| waiter_cpus[i % waiter_cpus.len()]);
            match wake_all.waiter_cpus {
                WaiterCpus::OnePerWaiter => std::iter::once(home).chain(on_others(waiters)).collect(),
                WaiterCpus::Pool => std::iter::once(home).chain(waiter_cpus.iter().copied()).collect(),
                WaiterCpus::WakersThread => vec![home],
            }
        };
        let counts = waiter_counts(ctx);
        wake_all
            .mechanisms
            .iter()
            .flat_map(|&m| counts.iter().map(move |&n| (m, n)))
            .map(|(mechanism, waiters)| {
                let params = Params { mechanism, waiters };
                Planned::Run(ctx.spec_of(self.id(), runtime, &params, cpus_for(waiters)))
            })
            .collect()
    }

    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let Params { mechanism, waiters } = point.params()?;
        anyhow::ensure!(waiters > 0, "{}: sched.broadcast needs at least one waiter", spec.name());
        let wake_all = point.in_process(|r| r.wake_all())?;
        let settle_ticks = (SETTLE_NS * h.clock.hz / 1e9) as u64;
        let outcome = wake_all.wake_all(mechanism, waiters, &spec.cpus, settle_ticks, h)?;
        let offer = point.runtime.offers().wake_all.has();
        let settle_ns = offer.is_some_and(|o| o.waiter_cpus != WaiterCpus::WakersThread).then_some(SETTLE_NS);
        Ok(outcome.with_result(&BroadcastResult { settle_ns }))
    }
}

/// Waiter counts: one fewer than each team of [`PlanContext::thread_counts`] from 2 (the waker and one
/// waiter; one L3 domain, one package and every CPU less the waker's: 1, 15 on 16 CPUs of one L3; `--quick`
/// the first and the last), then two
/// and four times the CPU count (more waiters than CPUs); in `--full` every count below the CPU count, the
/// CPU count, and two, four and eight times it.
fn waiter_counts(ctx: &PlanContext) -> Vec<usize> {
    let cpus = ctx.cpus.len();
    let mut counts: Vec<usize> = if ctx.mode == Mode::Full {
        (1..=cpus).chain([8 * cpus]).collect()
    } else {
        ctx.thread_counts(2).into_iter().map(|team| team - 1).collect()
    };
    counts.push(cpus.saturating_sub(1).max(1));
    counts.extend([2 * cpus, 4 * cpus]);
    counts.sort_unstable();
    counts.dedup();
    counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_machine::testing::simulated;
    use overhead_machine::Topology;

    #[test]
    fn waiter_counts_include_more_waiters_than_cpus() {
        let on = |machine: Topology, mode: Mode| {
            let cpus = machine.cpus.iter().map(|c| c.cpu).collect();
            waiter_counts(&PlanContext { cpus, topology: machine, mode, hosts: Vec::new() })
        };
        assert_eq!(on(simulated(1, 1, 1, 2, 1), Mode::Default), vec![1, 4, 8]);
        assert_eq!(on(simulated(1, 1, 1, 1, 1), Mode::Quick), vec![1, 2, 4]);
        assert_eq!(on(simulated(1, 1, 1, 8, 1), Mode::Default), vec![1, 7, 16, 32]);
        assert_eq!(on(simulated(1, 1, 1, 16, 1), Mode::Default), vec![1, 15, 32, 64], "16 CPUs of one L3");
        // 256 CPUs: 2 packages of 8 L3s of 8 cores of 2 threads: the L3's and the package's teams less the waker;
        // `--quick` keeps the ends.
        assert_eq!(on(simulated(2, 1, 8, 8, 2), Mode::Default), vec![1, 7, 63, 255, 512, 1024]);
        assert_eq!(on(simulated(2, 1, 8, 8, 2), Mode::Quick), vec![1, 255, 512, 1024]);
        assert_eq!(on(simulated(1, 1, 1, 2, 1), Mode::Full), vec![1, 2, 4, 8, 16]);
    }

    /// Each kind of waiter placement gets its CPUs: the waker's first, then one per waiter round-robin
    /// on the other CPUs (os), the pool's workers on the other CPUs (tokio), or the waker's alone (fibers).
    #[test]
    fn waiters_are_placed_as_the_runtime_says() {
        let ctx = crate::plan::tests::two_cpu_context(Mode::Default);
        let cpus_of = |runtime: &dyn RuntimeUnderTest| -> Vec<(String, Vec<usize>)> {
            Broadcast
                .points(&ctx, runtime)
                .into_iter()
                .map(|p| match p {
                    Planned::Run(s) => (s.param("waiters").unwrap().to_string(), s.cpus),
                    Planned::Skip(s, why) => panic!("{}: {why}", s.name()),
                })
                .collect()
        };
        let os = cpus_of(&overhead_runtime_os::Os);
        assert_eq!(os.len(), 6, "two mechanisms × three counts: {os:?}");
        assert!(os
            .iter()
            .all(|(w, cpus)| cpus.len() == 1 + w.parse::<usize>().unwrap() && cpus[1..].iter().all(|&c| c == 1)));
        let tokio = cpus_of(&overhead_runtime_async::tokio_rt::TokioMultiThread);
        assert!(tokio.iter().all(|(_, cpus)| cpus == &vec![0, 1]), "{tokio:?}");
        let fiber = cpus_of(&overhead_runtime_fibers::FIBER_ASM);
        assert!(fiber.iter().all(|(_, cpus)| cpus == &vec![0]), "{fiber:?}");
    }
}
