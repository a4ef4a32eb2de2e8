//! Wake-all on smol (seed 001 §5; issue 25 item 3): event-listener's `Event::notify(usize::MAX)` — the
//! notification smol's async-lock and async-channel are built on — to tasks of a pinned `Executor` pool.
//! It is `sched.broadcast`'s `notify` mechanism, as tokio's `Notify::notify_waiters` is.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::Smol;
use crate::offer::not_offered;
use crate::wake_all::{measure_episodes, Progress, WakeAll, WakeMechanism};
use overhead_harness::Harness;
use overhead_record::Outcome;

impl WakeAll for Smol {
    /// `notify`: N tasks listening to one `event_listener::Event` on an executor whose threads are pinned
    /// to `cpus[1..]`; the calling thread (outside the executor) calls `notify(usize::MAX)`.
    fn wake_all(
        &self,
        mechanism: WakeMechanism,
        waiters: usize,
        cpus: &[usize],
        settle_ticks: u64,
        h: &Harness,
    ) -> anyhow::Result<Outcome> {
        use WakeMechanism as M;
        match mechanism {
            M::Notify => {}
            other @ (M::Futex | M::Condvar | M::Semaphore) => return Err(not_offered("smol", "mechanism", other)),
        }
        notify(&cpus[1..], waiters, h, settle_ticks)
    }
}

/// N tasks listening to one `Event` on an executor pinned to `worker_cpus`.
///
/// Errors: the executor's threads could not start (or `worker_cpus` is empty).
fn notify(worker_cpus: &[usize], waiters: usize, h: &Harness, settle_ticks: u64) -> anyhow::Result<Outcome> {
    let pool = super::pool(worker_cpus)?;
    let event = Arc::new(event_listener::Event::new());
    let progress = Arc::new(Progress::default());
    let tasks: Vec<_> = (0..waiters)
        .map(|_| {
            let (event, progress) = (event.clone(), progress.clone());
            pool.executor().spawn(async move {
                loop {
                    // On the task's stack, no allocation; registered from here on: a notify after the
                    // announcement reaches it.
                    event_listener::listener!(event => listener);
                    progress.announced.fetch_add(1, Ordering::Release);
                    listener.await;
                    if progress.stop.load(Ordering::Acquire) {
                        break;
                    }
                    progress.arrived.fetch_add(1, Ordering::Release);
                }
            })
        })
        .collect();
    let m = measure_episodes(h, &progress, waiters as u64, settle_ticks, || {
        event.notify(usize::MAX);
    });
    ::smol::block_on(async {
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
    /// Every episode wakes all waiters: the waker would hang on `arrived` otherwise.
    #[test]
    fn notify_wakes_all_waiters() {
        let h = overhead_harness::testing::quick_harness();
        let cpus = overhead_machine::allowed_cpus();
        let outcome = super::notify(&cpus[..1], 3, &h, 100).unwrap();
        assert_eq!(outcome.measurement.samples_ns.len(), h.config.repetitions);
    }
}
