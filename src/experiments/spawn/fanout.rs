//! Fan-out constructs: start `n` tasks of one body on a runtime and wait until all have run — seed 001
//! §6's `lparfor … epar` and §7's `pparfor … epar`. Shared by `spawn.forkjoin`, `spawn.bulk` and
//! `grain.sweep`, so that every experiment spawns the same way on a given runtime.

use std::future::Future;

use crate::machine::pin_current_thread;
use crate::runtimes::fiber;

/// `os`: `n` kernel threads in one `std::thread::scope`; thread `i` first pins itself to
/// `cpus[i % cpus.len()]` (a new thread inherits its creator's one-CPU mask, so without this every task
/// would run on the creator's CPU), then runs `f`. Returns when all have been joined.
///
/// Panics (inside std) if a thread cannot be created; check once with [`os_pinning_notes`] first.
pub fn os_threads<F: Fn() + Sync>(cpus: &[usize], n: u64, f: &F) {
    std::thread::scope(|s| {
        for i in 0..n {
            let cpu = cpus[(i % cpus.len() as u64) as usize];
            s.spawn(move || {
                let _ = pin_current_thread(cpu);
                f();
            });
        }
    });
}

/// One untimed round of [`os_threads`]'s pinning: a note for every CPU of `cpus` that a new thread
/// could not pin itself to.
///
/// Errors: a thread could not be created.
pub fn os_pinning_notes(cpus: &[usize]) -> anyhow::Result<Vec<String>> {
    let mut notes = Vec::new();
    for &cpu in cpus {
        let pinned = std::thread::Builder::new().spawn(move || pin_current_thread(cpu).map_err(|e| e.to_string()))?;
        if let Ok(Err(e)) = pinned.join() {
            notes.push(format!("a spawned thread could not pin itself to CPU {cpu}: {e}"));
        }
    }
    Ok(notes)
}

/// `rayon`, called on a worker of the pool (inside `install`): one `rayon::scope` that spawns `n` jobs
/// of `f` (one heap job each, pushed on the caller's deque and stolen by idle workers) and returns when
/// all have run. The caller runs jobs too while it waits, as rayon's scope does.
pub fn rayon_scope<F: Fn() + Sync>(n: u64, f: &F) {
    rayon::scope(|s| {
        for _ in 0..n {
            s.spawn(move |_| f());
        }
    });
}

/// `tokio`, inside a task: `n` × `tokio::spawn` of `f` (from a worker the first goes to its LIFO slot,
/// the rest to its run queue, where idle workers steal them), then awaits every `JoinHandle`. `handles`
/// is cleared and refilled; give it the capacity for `n` beforehand so the loop does not reallocate.
///
/// Panics if a task panicked.
pub async fn tokio_spawn_all<F>(n: u64, f: F, handles: &mut Vec<::tokio::task::JoinHandle<()>>)
where
    F: Fn() + Send + Copy + 'static,
{
    handles.clear();
    for _ in 0..n {
        handles.push(::tokio::spawn(async move { f() }));
    }
    for handle in handles.drain(..) {
        handle.await.expect("a spawned tokio task panicked");
    }
}

/// Runs `parent` as a task on one of `rt`'s workers and blocks the calling thread until it ends: the
/// parent of a tokio fan-out is itself a task, as rayon's parent is a worker (spawning from a worker
/// uses the worker's local queue; spawning from outside goes through the shared inject queue).
///
/// Panics if the parent task panicked.
pub fn on_worker<T: Send + 'static>(
    rt: &::tokio::runtime::Runtime,
    parent: impl Future<Output = T> + Send + 'static,
) -> T {
    rt.block_on(rt.spawn(parent)).expect("the parent tokio task panicked")
}

/// Fibers, inside a fiber run: `n` × `fiber::spawn` of `f` (queued, not yet run), then joins each (the
/// first join runs them all). `handles` is reused as for [`tokio_spawn_all`].
///
/// Panics if a fiber panicked.
pub fn fiber_spawn_all<F: Fn() + Copy + 'static>(n: u64, f: F, handles: &mut Vec<fiber::JoinHandle<()>>) {
    handles.clear();
    for _ in 0..n {
        handles.push(fiber::spawn(f));
    }
    for handle in handles.drain(..) {
        handle.join().expect("a spawned fiber panicked");
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::*;
    use crate::runtimes::{rayon_rt, tokio_rt};

    fn counter() -> &'static AtomicU64 {
        Box::leak(Box::new(AtomicU64::new(0)))
    }

    fn cpus() -> Vec<usize> {
        let all = crate::machine::allowed_cpus();
        all[..all.len().min(2)].to_vec()
    }

    /// Each construct runs its body exactly `n` times and returns only after the last one.
    #[test]
    fn every_construct_runs_exactly_n_tasks() {
        const N: u64 = 300;
        let runs = counter();
        let count = move || {
            runs.fetch_add(1, Ordering::Relaxed);
        };

        os_threads(&cpus(), N, &count);
        assert_eq!(runs.swap(0, Ordering::Relaxed), N, "os");

        let (pool, _) = rayon_rt::pool(&cpus()).unwrap();
        pool.install(|| rayon_scope(N, &count));
        assert_eq!(runs.swap(0, Ordering::Relaxed), N, "rayon");

        let (rt, _) = tokio_rt::multi_thread(&cpus()).unwrap();
        let handles = on_worker(&rt, async move {
            let mut handles = Vec::with_capacity(N as usize);
            tokio_spawn_all(N, count, &mut handles).await;
            handles
        });
        assert!(handles.is_empty() && handles.capacity() >= N as usize);
        assert_eq!(runs.swap(0, Ordering::Relaxed), N, "tokio");

        fiber::run(fiber::Backend::Corosensei, move || fiber_spawn_all(N, count, &mut Vec::new()));
        assert_eq!(runs.swap(0, Ordering::Relaxed), N, "fiber");
    }

    #[test]
    fn os_threads_run_on_the_cpus_given() {
        let cpus = cpus();
        let seen: Vec<AtomicU64> = (0..=*cpus.iter().max().unwrap()).map(|_| AtomicU64::new(0)).collect();
        os_threads(&cpus, 2 * cpus.len() as u64, &|| {
            // SAFETY: sched_getcpu takes no arguments and touches no memory of ours.
            let cpu = unsafe { libc::sched_getcpu() };
            if let Some(slot) = usize::try_from(cpu).ok().and_then(|c| seen.get(c)) {
                slot.fetch_add(1, Ordering::Relaxed);
            }
        });
        if os_pinning_notes(&cpus).unwrap().is_empty() {
            for &cpu in &cpus {
                assert_eq!(seen[cpu].load(Ordering::Relaxed), 2, "CPU {cpu}");
            }
        }
    }
}
