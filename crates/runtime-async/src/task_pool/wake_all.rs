//! Wake-all on a task pool (Ben-Asher & Feitelson 1991 §5): the runtime's notify-all (tokio's `Notify::notify_waiters`,
//! event-listener's `Event::notify(usize::MAX)` under smol) to tasks of a pool.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::TaskPool;
use overhead_harness::Harness;
use overhead_record::Outcome;
use overhead_runtime_api::offer::not_offered;
use overhead_runtime_api::wake_all::{measure_episodes, Progress, WakeMechanism};

/// `notify`: `waiters` tasks waiting on one broadcast of a pool whose threads are pinned to `cpus[1..]`; the
/// calling thread (outside the pool) notifies all of them per episode.
///
/// Errors: another mechanism than `notify`; the pool could not start (or `cpus` has one CPU only).
pub fn wake_all<P: TaskPool>(
    mechanism: WakeMechanism,
    waiters: usize,
    cpus: &[usize],
    settle_ticks: u64,
    h: &Harness,
) -> anyhow::Result<Outcome> {
    use WakeMechanism as M;
    match mechanism {
        M::Notify => {}
        other @ (M::Futex | M::Condvar | M::Semaphore) => return Err(not_offered(P::RUNTIME, "mechanism", other)),
    }
    notify::<P>(&cpus[1..], waiters, h, settle_ticks)
}

/// `waiters` tasks waiting on one broadcast of a pool pinned to `worker_cpus`.
///
/// Errors: the pool could not start (or `worker_cpus` is empty).
fn notify<P: TaskPool>(
    worker_cpus: &[usize],
    waiters: usize,
    h: &Harness,
    settle_ticks: u64,
) -> anyhow::Result<Outcome> {
    let pool = P::start(worker_cpus)?;
    let broadcast = Arc::new(P::broadcast());
    let progress = Arc::new(Progress::default());
    let tasks: Vec<_> = (0..waiters)
        .map(|_| {
            let (broadcast, progress) = (broadcast.clone(), progress.clone());
            pool.spawn(async move {
                loop {
                    // Registered before the announcement: a notification after it reaches this task.
                    P::wait_for(&broadcast, || {
                        progress.announced.fetch_add(1, Ordering::Release);
                    })
                    .await;
                    if progress.stop.load(Ordering::Acquire) {
                        break;
                    }
                    progress.arrived.fetch_add(1, Ordering::Release);
                }
            })
        })
        .collect();
    let m = measure_episodes(h, &progress, waiters as u64, settle_ticks, || P::notify_all(&broadcast));
    pool.block_on(async {
        for t in tasks {
            t.await;
        }
    });
    let mut outcome = Outcome::from(m);
    outcome.notes.extend(pool.notes());
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use crate::smol_rt::SmolPool;
    use crate::tokio_rt::TokioPool;

    /// Every episode wakes all waiters on both runtimes: the waker would hang on `arrived` otherwise.
    #[test]
    fn notify_wakes_all_waiters() {
        let h = overhead_harness::testing::quick_harness();
        let cpus = overhead_machine::allowed_cpus();
        for outcome in [
            super::notify::<TokioPool>(&cpus[..1], 3, &h, 100).unwrap(),
            super::notify::<SmolPool>(&cpus[..1], 3, &h, 100).unwrap(),
        ] {
            assert_eq!(outcome.measurement.samples_ns.len(), h.config.repetitions);
        }
    }
}
