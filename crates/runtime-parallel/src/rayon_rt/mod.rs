//! The `rayon` runtime: rayon's work-stealing thread pool, with its workers pinned, for Ben-Asher & Feitelson's
//! spawning, granularity and synchronisation experiments.

mod activity_barrier;
pub mod fan_out;
mod yield_round;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use overhead_runtime_api::fan_out::ForkJoinMechanism;
use overhead_runtime_api::yield_round::YieldLimits;
use overhead_runtime_api::{Offer, Offers, BETWEEN_CPUS_ELSEWHERE, KERNEL_UNDER_OS};

/// A rayon pool with one worker per CPU of `cpus`; worker `i` is pinned to `cpus[i]` (rayon tells each
/// worker its index). Refused pinning leaves the worker unpinned and is counted in the returned counter.
///
/// Errors: rayon could not start its threads; `cpus` is empty.
pub fn pool(cpus: &[usize]) -> anyhow::Result<(rayon::ThreadPool, Arc<AtomicUsize>)> {
    anyhow::ensure!(!cpus.is_empty(), "a rayon pool needs at least one CPU");
    let cpus: Arc<[usize]> = cpus.into();
    let refused = Arc::new(AtomicUsize::new(0));
    let (start_cpus, start_refused) = (cpus.clone(), refused.clone());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cpus.len())
        .thread_name(|i| format!("rayon-{i}"))
        .start_handler(move |i| {
            if overhead_machine::pin_current_thread(start_cpus[i % start_cpus.len()]).is_err() {
                start_refused.fetch_add(1, Ordering::Relaxed);
            }
        })
        .build()?;
    Ok((pool, refused))
}

/// rayon's work-stealing pool as a runtime under test.
pub struct Rayon;

/// What rayon offers: its pool's yield (load 0 only), fork-join fan-out and jobs on a barrier.
const OFFERS: Offers = Offers {
    context: Offer::Lacks("rayon has no single-thread context of its own: its work runs on a pool"),
    kernel: Offer::Lacks(KERNEL_UNDER_OS),
    yield_round: Offer::Has(YieldLimits { loaded: Some(yield_round::NO_TIME_SHARING) }),
    wake_all: Offer::Lacks(
        "rayon has no wait/notify for jobs: a job can only wait by blocking its worker thread (the os mechanisms)",
    ),
    fork_join: Offer::Has(&[ForkJoinMechanism::Broadcast, ForkJoinMechanism::Scope]),
    activity_barrier: Offer::Has(activity_barrier::LIMITS),
    atomic: Offer::Lacks(BETWEEN_CPUS_ELSEWHERE),
    barrier: Offer::Lacks(BETWEEN_CPUS_ELSEWHERE),
    lock: Offer::Lacks(BETWEEN_CPUS_ELSEWHERE),
    rwlock: Offer::Lacks(BETWEEN_CPUS_ELSEWHERE),
    ipc: Offer::Lacks(overhead_runtime_api::IPC_UNDER_OS),
    ..Offers::lacking("rayon is a fork-join pool: its tasks have no blocking primitives between them")
};

impl overhead_runtime_api::RuntimeUnderTest for Rayon {
    fn name(&self) -> &'static str {
        "rayon"
    }
    fn about(&self) -> &'static str {
        "rayon's work-stealing thread pool, workers pinned"
    }
    overhead_runtime_api::capabilities!(yield_round, fan_out, grain_sweep, activity_barrier);
    fn offers(&self) -> &Offers {
        &OFFERS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_has_one_worker_per_cpu_and_runs_work() {
        let cpus = overhead_machine::allowed_cpus();
        let cpus = &cpus[..cpus.len().min(2)];
        let (pool, _refused) = pool(cpus).unwrap();
        assert_eq!(pool.current_num_threads(), cpus.len());
        let sum: u64 = pool.install(|| {
            use rayon::prelude::*;
            (0..1000u64).into_par_iter().sum()
        });
        assert_eq!(sum, 499_500);
        assert!(super::pool(&[]).is_err());
    }
}
