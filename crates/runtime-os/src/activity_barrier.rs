//! Many more kernel threads than CPUs on a barrier (Ben-Asher & Feitelson 1991 §8.2 experiment 2): threads pinned
//! round-robin over the point's CPUs, each activity's pinning part of its spawn.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crossbeam_utils::CachePadded;

use super::fan_out::threads;
use super::Os;
use overhead_harness::empty_loop;
use overhead_harness::{Harness, TeamReport};
use overhead_record::Outcome;
use overhead_runtime_api::activity_barrier::{refused_note, ActivityBarrier, BarrierKind, Oversubscribed, Variant};
use overhead_runtime_api::yield_barrier::YieldBarrier;

impl ActivityBarrier for Os {
    /// `just_spawn` and `spawn_sync`: per operation a scope of A pinned threads (passing a fresh
    /// [`YieldBarrier`] or std's `Barrier`), joined; `just_sync`: the harness's team of A threads, started
    /// once for the point, passing the barrier `n` times per batch (the slowest thread's time, as
    /// `sync.barrier`).
    fn activity_barrier(&self, point: Oversubscribed<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let Oversubscribed { variant, barrier, activities: a, cpus } = point;
        let refused = AtomicUsize::new(0);
        let spawn = |body: &(dyn Fn() + Sync)| threads(cpus, a as u64, &refused, &body);
        let measurement = match (variant, barrier) {
            (Variant::JustSpawn, _) => h.measure(|n| (0..n).for_each(|_| spawn(&|| {})), empty_loop),
            (Variant::SpawnSync, BarrierKind::Yield) => h.measure(
                |n| {
                    for _ in 0..n {
                        let b = YieldBarrier::new(a);
                        spawn(&|| {
                            b.wait(&mut false);
                        });
                    }
                },
                empty_loop,
            ),
            (Variant::SpawnSync, BarrierKind::Blocking) => h.measure(
                |n| {
                    for _ in 0..n {
                        let b = std::sync::Barrier::new(a);
                        spawn(&|| {
                            b.wait();
                        });
                    }
                },
                empty_loop,
            ),
            (Variant::JustSync, barrier) => {
                let team: Vec<usize> = (0..a).map(|i| cpus[i % cpus.len()]).collect();
                let report = just_sync(barrier, &team, h);
                refused.fetch_add(report.pin_failures.len(), Ordering::Relaxed);
                report.measurement
            }
        };
        let mut outcome = Outcome::from(measurement);
        outcome.notes.extend(refused_note(refused.load(Ordering::Relaxed)));
        Ok(outcome)
    }
}

/// `just_sync` with the harness's thread team: the A threads exist for the whole point, as
/// `sync.barrier`'s (Ben-Asher & Feitelson 1991 calls this experiment "a direct extension of the previous one").
fn just_sync(barrier: BarrierKind, team: &[usize], h: &Harness) -> TeamReport {
    let control = |_: usize, n: u64| empty_loop(n);
    match barrier {
        BarrierKind::Yield => {
            let b = YieldBarrier::new(team.len());
            // Each thread's sense, kept across batches, alone on its line.
            let senses: Vec<CachePadded<AtomicBool>> = (0..team.len()).map(|_| CachePadded::default()).collect();
            h.measure_team(
                team,
                |thread, n| {
                    let mut sense = senses[thread].load(Ordering::Relaxed);
                    for _ in 0..n {
                        b.wait(&mut sense);
                    }
                    senses[thread].store(sense, Ordering::Relaxed);
                },
                control,
            )
        }
        BarrierKind::Blocking => {
            let b = std::sync::Barrier::new(team.len());
            h.measure_team(
                team,
                |_, n| {
                    for _ in 0..n {
                        b.wait();
                    }
                },
                control,
            )
        }
    }
}
