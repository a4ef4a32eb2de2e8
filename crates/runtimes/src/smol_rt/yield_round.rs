//! The yield round on a smol `Executor` pool (seed 001 §5.1; issue 25 item 3): `smol::future::yield_now`
//! among yielding load tasks.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use super::Smol;
use crate::yield_round::YieldRound;
use overhead_harness::empty_loop;
use overhead_harness::Harness;
use overhead_record::Outcome;

impl YieldRound for Smol {
    /// One pinned executor thread per CPU; `cpus × load` yielding tasks (the executor places tasks
    /// itself, so the load is spread over the threads rather than pinned per CPU), then per batch one
    /// measuring task per CPU yielding `n` times, spawned and awaited from the calling thread; the control
    /// batch spawns and awaits the same tasks running the empty loop, so the spawn and join cancel.
    fn yield_round(&self, cpus: &[usize], load: usize, h: &Harness) -> anyhow::Result<Outcome> {
        let pool = super::pool(cpus)?;
        let ex = pool.executor();
        let stop = Arc::new(AtomicBool::new(false));
        let started = Arc::new(AtomicUsize::new(0));
        let loaders: Vec<_> = (0..cpus.len() * load)
            .map(|_| {
                let (stop, started) = (stop.clone(), started.clone());
                ex.spawn(async move {
                    started.fetch_add(1, Ordering::Release);
                    while !stop.load(Ordering::Relaxed) {
                        ::smol::future::yield_now().await;
                    }
                })
            })
            .collect();
        while started.load(Ordering::Acquire) < loaders.len() {
            std::thread::yield_now();
        }
        let team = cpus.len();
        let measurement = h.measure(
            |n| {
                ::smol::block_on(async {
                    let tasks: Vec<_> = (0..team)
                        .map(|_| {
                            ex.spawn(async move {
                                for _ in 0..n {
                                    ::smol::future::yield_now().await;
                                }
                            })
                        })
                        .collect();
                    for t in tasks {
                        t.await;
                    }
                })
            },
            |n| {
                ::smol::block_on(async {
                    let tasks: Vec<_> = (0..team).map(|_| ex.spawn(async move { empty_loop(n) })).collect();
                    for t in tasks {
                        t.await;
                    }
                })
            },
        );
        stop.store(true, Ordering::Relaxed);
        ::smol::block_on(async {
            for t in loaders {
                t.await;
            }
        });
        let mut outcome = Outcome::from(measurement);
        outcome.notes.extend(pool.notes());
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use crate::yield_round::YieldRound as _;

    /// The round ends with and without load (the load tasks stop, or this would hang).
    #[test]
    fn yield_round_measures_with_and_without_load() {
        let h = overhead_harness::testing::quick_harness();
        let cpus = overhead_machine::allowed_cpus();
        let cpus = &cpus[..cpus.len().min(2)];
        for load in [0, 2] {
            let outcome = super::Smol.yield_round(cpus, load, &h).unwrap();
            assert_eq!(outcome.measurement.samples_ns.len(), h.config.repetitions, "load {load}");
        }
    }
}
