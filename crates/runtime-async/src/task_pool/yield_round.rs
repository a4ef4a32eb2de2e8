//! The yield round on a task pool (Ben-Asher & Feitelson 1991 §5.1): the runtime's `yield_now` among yielding load tasks.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use super::TaskPool;
use overhead_harness::{empty_loop, Harness};
use overhead_record::Outcome;

/// One pinned pool thread per CPU; `cpus × load` yielding tasks (the runtime places tasks itself, so the load
/// is spread over the threads rather than pinned per CPU), then per batch one measuring task per CPU yielding
/// `n` times, spawned and awaited from the calling thread inside the runtime's context; the control batch
/// spawns and awaits the same tasks running the empty loop, so the spawn and join cancel.
///
/// Errors: the pool could not start.
pub fn yield_round<P: TaskPool>(cpus: &[usize], load: usize, h: &Harness) -> anyhow::Result<Outcome> {
    let pool = P::start(cpus)?;
    let stop = Arc::new(AtomicBool::new(false));
    let started = Arc::new(AtomicUsize::new(0));
    let loaders: Vec<_> = (0..cpus.len() * load)
        .map(|_| {
            let (stop, started) = (stop.clone(), started.clone());
            pool.spawn(async move {
                started.fetch_add(1, Ordering::Release);
                while !stop.load(Ordering::Relaxed) {
                    P::yield_now().await;
                }
            })
        })
        .collect();
    // Waited for inside the runtime, yielding: a pool whose one thread is the caller's (tokio's current-thread
    // flavor) runs its tasks only while something is blocked on it, and would never start them otherwise.
    pool.block_on(async {
        while started.load(Ordering::Acquire) < loaders.len() {
            P::yield_now().await;
        }
    });
    let team = cpus.len();
    let measurement = h.measure(
        |n| {
            pool.block_on(async {
                let tasks: Vec<_> = (0..team)
                    .map(|_| {
                        pool.spawn(async move {
                            for _ in 0..n {
                                P::yield_now().await;
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
            pool.block_on(async {
                let tasks: Vec<_> = (0..team).map(|_| pool.spawn(async move { empty_loop(n) })).collect();
                for t in tasks {
                    t.await;
                }
            })
        },
    );
    stop.store(true, Ordering::Relaxed);
    pool.block_on(async {
        for t in loaders {
            t.await;
        }
    });
    let mut outcome = Outcome::from(measurement);
    outcome.notes.extend(pool.notes());
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use crate::smol_rt::SmolPool;
    use crate::tokio_rt::TokioPool;

    /// The round ends with and without load on both runtimes (the load tasks stop, or this would hang).
    #[test]
    fn yield_round_measures_with_and_without_load() {
        let h = overhead_harness::testing::quick_harness();
        let cpus = overhead_machine::allowed_cpus();
        let cpus = &cpus[..cpus.len().min(2)];
        for load in [0, 2] {
            let tokio = super::yield_round::<TokioPool>(cpus, load, &h).unwrap();
            let smol = super::yield_round::<SmolPool>(cpus, load, &h).unwrap();
            for outcome in [tokio, smol] {
                assert_eq!(outcome.measurement.samples_ns.len(), h.config.repetitions, "load {load}");
            }
        }
    }

    /// On a pool whose one thread is the caller's (tokio's current-thread flavor) the load tasks start and stop
    /// too: they run only while the caller is blocked on the runtime, so a wait outside it would never end.
    #[test]
    fn a_loaded_round_ends_on_a_current_thread_pool() {
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let h = overhead_harness::testing::quick_harness();
            let cpu = overhead_machine::allowed_cpus()[0];
            let outcome = super::yield_round::<crate::tokio_rt::TokioCurrentPool>(&[cpu], 2, &h).unwrap();
            done.send(outcome.measurement.samples_ns.len() == h.config.repetitions).unwrap();
        });
        let measured = finished.recv_timeout(std::time::Duration::from_secs(60));
        assert_eq!(measured, Ok(true), "the loaded round on one thread never ended, or measured too few batches");
    }
}
