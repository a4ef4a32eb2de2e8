//! Wake-all on tokio (seed 001 §5): `Notify::notify_waiters` to tasks of a multi-thread runtime.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::Tokio;
use crate::fan_out::pool_notes;
use crate::offer::not_offered;
use crate::wake_all::{measure_episodes, Progress, WakeAll, WakeMechanism};
use overhead_harness::Harness;
use overhead_record::Outcome;

impl WakeAll for Tokio {
    /// `notify`: N tasks waiting on one `Notify` on a multi-thread runtime whose workers are pinned to
    /// `cpus[1..]`; the calling thread (outside the runtime) calls `notify_waiters`.
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
            other @ (M::Futex | M::Condvar | M::Semaphore) => return Err(not_offered("tokio", "mechanism", other)),
        }
        notify(&cpus[1..], waiters, h, settle_ticks)
    }
}

/// N tasks waiting on one `Notify` on a multi-thread runtime pinned to `worker_cpus`.
///
/// Errors: tokio could not start (or `worker_cpus` is empty).
pub(super) fn notify(worker_cpus: &[usize], waiters: usize, h: &Harness, settle_ticks: u64) -> anyhow::Result<Outcome> {
    let (rt, refused) = super::multi_thread(worker_cpus)?;
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
    let m = measure_episodes(h, &progress, waiters as u64, settle_ticks, || notify.notify_waiters());
    rt.block_on(async {
        for t in tasks {
            t.await.expect("waiter task panicked");
        }
    });
    let mut outcome = Outcome::from(m);
    outcome.notes.extend(pool_notes(&refused));
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
