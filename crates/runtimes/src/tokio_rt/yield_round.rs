//! The yield round on tokio's multi-thread scheduler (seed 001 §5.1): `tokio::task::yield_now` among
//! yielding load tasks.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use super::Tokio;
use crate::fan_out::pool_notes;
use crate::yield_round::YieldRound;
use overhead_harness::empty_loop;
use overhead_harness::Harness;
use overhead_record::Outcome;

impl YieldRound for Tokio {
    /// One pinned worker per CPU; `cpus × load` yielding tasks (tokio places tasks itself, so the load is
    /// spread over the workers rather than pinned per CPU), then per batch one measuring task per CPU
    /// yielding `n` times; the control batch spawns and joins the same tasks running the empty loop, so
    /// the spawn and join cancel.
    fn yield_round(&self, cpus: &[usize], load: usize, h: &Harness) -> anyhow::Result<Outcome> {
        let (rt, refused) = super::multi_thread(cpus)?;
        let stop = Arc::new(AtomicBool::new(false));
        let started = Arc::new(AtomicUsize::new(0));
        let loaders: Vec<_> = (0..cpus.len() * load)
            .map(|_| {
                let (stop, started) = (stop.clone(), started.clone());
                rt.spawn(async move {
                    started.fetch_add(1, Ordering::Release);
                    while !stop.load(Ordering::Relaxed) {
                        ::tokio::task::yield_now().await;
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
                rt.block_on(async {
                    let tasks: Vec<_> = (0..team)
                        .map(|_| {
                            ::tokio::spawn(async move {
                                for _ in 0..n {
                                    ::tokio::task::yield_now().await;
                                }
                            })
                        })
                        .collect();
                    for t in tasks {
                        t.await.expect("measuring task panicked");
                    }
                })
            },
            |n| {
                rt.block_on(async {
                    let tasks: Vec<_> = (0..team).map(|_| ::tokio::spawn(async move { empty_loop(n) })).collect();
                    for t in tasks {
                        t.await.expect("control task panicked");
                    }
                })
            },
        );
        stop.store(true, Ordering::Relaxed);
        rt.block_on(async {
            for t in loaders {
                t.await.expect("load task panicked");
            }
        });
        let mut outcome = Outcome::from(measurement);
        outcome.notes.extend(pool_notes(&refused));
        Ok(outcome)
    }
}
