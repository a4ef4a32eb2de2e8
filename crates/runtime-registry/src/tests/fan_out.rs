//! Fork-join fan-out across the runtimes (`fan_out`): every construct runs its tasks exactly once, on the CPUs given.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use overhead_runtime_api::fan_out::ForkJoinMechanism;
use overhead_runtime_async::task_pool::TaskPool;
use overhead_runtime_async::tokio_rt;
use overhead_runtime_fibers as fiber;
use overhead_runtime_os as os;
use overhead_runtime_parallel::rayon_rt;

fn counter() -> &'static AtomicU64 {
    Box::leak(Box::new(AtomicU64::new(0)))
}

fn cpus() -> Vec<usize> {
    let all = overhead_machine::allowed_cpus();
    all[..all.len().min(2)].to_vec()
}

/// Each runtime's construct runs its body exactly `n` times and returns only after the last one.
#[test]
fn every_construct_runs_exactly_n_tasks() {
    const N: u64 = 300;
    let runs = counter();
    let count = move || {
        runs.fetch_add(1, Ordering::Relaxed);
    };

    os::fan_out::threads(&cpus(), N, &AtomicUsize::new(0), &count);
    assert_eq!(runs.swap(0, Ordering::Relaxed), N, "os");

    let (pool, _) = rayon_rt::pool(&cpus()).unwrap();
    pool.install(|| rayon_rt::fan_out::scope(N, &count));
    assert_eq!(runs.swap(0, Ordering::Relaxed), N, "rayon");

    let pool = <tokio_rt::TokioPool>::start(&cpus()).unwrap();
    let handles = pool.on_worker(move |spawner| async move {
        let mut handles = Vec::with_capacity(N as usize);
        overhead_runtime_async::task_pool::fan_out::spawn_all_of(&spawner, N, count, &mut handles).await;
        handles
    });
    assert!(handles.is_empty() && handles.capacity() >= N as usize);
    assert_eq!(runs.swap(0, Ordering::Relaxed), N, "tokio");

    fiber::run(fiber::Backend::Corosensei, move || fiber::fan_out::spawn_all(N, count, &mut Vec::new()));
    assert_eq!(runs.swap(0, Ordering::Relaxed), N, "fiber");
}

/// Threads pin themselves round-robin to the CPUs given (when the kernel lets them).
#[test]
fn os_threads_run_on_the_cpus_given() {
    let cpus = cpus();
    let seen: Vec<AtomicU64> = (0..=*cpus.iter().max().unwrap()).map(|_| AtomicU64::new(0)).collect();
    let refused = AtomicUsize::new(0);
    os::fan_out::threads(&cpus, 2 * cpus.len() as u64, &refused, &|| {
        // SAFETY: sched_getcpu takes no arguments and touches no memory of ours.
        let cpu = unsafe { libc::sched_getcpu() };
        if let Some(slot) = usize::try_from(cpu).ok().and_then(|c| seen.get(c)) {
            slot.fetch_add(1, Ordering::Relaxed);
        }
    });
    if refused.load(Ordering::Relaxed) == 0 {
        for &cpu in &cpus {
            assert_eq!(seen[cpu].load(Ordering::Relaxed), 2, "CPU {cpu}");
        }
    }
}

/// Every runtime with fan-out runs each kind of construct on a tiny harness; a runtime on one thread is
/// asked for one CPU and refuses the constructs that need more.
#[test]
fn every_runtime_runs_its_constructs() {
    let h = overhead_harness::testing::quick_harness();
    let cpus = cpus();
    // External runtimes are measured by their own probes (tests/external_probes.rs).
    for runtime in crate::registry().iter().filter(|r| r.external().is_none()) {
        let (Some(fan_out), Some(mechanisms), Ok(())) =
            (runtime.fan_out(), runtime.offers().fork_join.has(), runtime.available())
        else {
            continue;
        };
        let cpus = if runtime.one_thread().is_some() { &cpus[..1] } else { &cpus[..] };
        for &mechanism in mechanisms {
            let outcome = fan_out.fork_join(mechanism, cpus, &h).unwrap();
            assert_eq!(outcome.measurement.samples_ns.len(), h.config.repetitions, "{} {mechanism:?}", runtime.name());
        }
        let offered = |m: &ForkJoinMechanism| mechanisms.contains(m);
        let not_offered = [ForkJoinMechanism::Spawn, ForkJoinMechanism::Parallel].into_iter().find(|m| !offered(m));
        assert!(fan_out.fork_join(not_offered.unwrap(), cpus, &h).is_err());
        let bulk = fan_out.bulk(cpus, 50, &h).unwrap();
        assert_eq!(bulk.measurement.samples_ns.len(), h.config.repetitions, "{}", runtime.name());
        if runtime.one_thread().is_some() {
            assert!(fan_out.remote(cpus[0], &cpus[..1], &h).is_err());
        } else if cpus.len() > 1 {
            let remote = fan_out.remote(cpus[0], &cpus[1..], &h).unwrap();
            assert_eq!(remote.extra["generators"], 1.0, "{}", runtime.name());
        }
    }
}
