//! tokio's multi-thread work-stealing runtime as a [`TaskPool`]: Ben-Asher & Feitelson's constructs on tokio
//! (`crate::task_pool`), with tokio's own spawn, yield, semaphore, barrier and `Notify`.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use crate::task_pool::{Spawn, Task, TaskPool};
use overhead_runtime_api::fan_out::pool_notes;

/// A tokio runtime as the pool of Ben-Asher & Feitelson's constructs, in either flavor
/// (`overhead_schema::runtimes::TokioFlavor`):
///
/// - `MULTI_THREAD` (`TokioPool`): one worker per CPU of the point, each pinned to a CPU in the order the
///   workers start (tokio does not say which worker is which, so the mapping is a bijection but not a fixed
///   one). Blocking-pool threads, if any start, are pinned round-robin to the same CPUs.
/// - current-thread (`TokioCurrentPool`): the one thread that calls `block_on` runs every task; the point
///   has one CPU, and the calling thread is pinned to it.
pub struct TokioPool<const MULTI_THREAD: bool = true> {
    /// The runtime.
    rt: ::tokio::runtime::Runtime,
    /// Threads whose pinning the kernel refused (they ran unpinned).
    refused: Arc<AtomicUsize>,
}

/// tokio's current-thread flavor as a pool of one thread ([`TokioPool`]).
pub type TokioCurrentPool = TokioPool<false>;

/// Spawns from inside a task with `tokio::spawn`, which finds the runtime in the worker's context (from a
/// worker: its LIFO slot, then its run queue).
#[derive(Debug, Clone, Copy)]
pub struct InRuntime;

/// A tokio task's `JoinHandle` whose output is the task's (awaiting it panics if the task panicked).
pub struct Joined<T>(::tokio::task::JoinHandle<T>);

impl<T> Joined<T> {
    /// The task of `handle`.
    pub fn new(handle: ::tokio::task::JoinHandle<T>) -> Joined<T> {
        Joined(handle)
    }
}

impl<T> Future for Joined<T> {
    type Output = T;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        Pin::new(&mut self.0).poll(cx).map(|result| result.expect("a spawned tokio task panicked"))
    }
}

impl Spawn for InRuntime {
    type Task<T: Send + 'static> = Joined<T>;
    fn spawn<T: Send + 'static>(&self, future: impl Future<Output = T> + Send + 'static) -> Joined<T> {
        Joined(::tokio::spawn(future))
    }
}

impl<const MULTI_THREAD: bool> TaskPool for TokioPool<MULTI_THREAD> {
    const RUNTIME: &'static str = overhead_schema::runtimes::TOKIO;
    const CALLERS_THREAD: Option<&'static str> = if MULTI_THREAD {
        None
    } else {
        Some("its current-thread flavor runs tasks only on the thread that blocks on it, so no executor runs apart from the spawners")
    };
    type Spawner = InRuntime;
    type Barrier = ::tokio::sync::Barrier;
    type Gate = ::tokio::sync::Semaphore;
    type Broadcast = ::tokio::sync::Notify;

    fn start(cpus: &[usize]) -> std::io::Result<TokioPool<MULTI_THREAD>> {
        if cpus.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "a tokio runtime needs at least one CPU",
            ));
        }
        if !MULTI_THREAD {
            return start_current_thread(cpus);
        }
        let cpus: Arc<[usize]> = cpus.into();
        let next = Arc::new(AtomicUsize::new(0));
        let refused = Arc::new(AtomicUsize::new(0));
        let (on_start_cpus, on_start_refused) = (cpus.clone(), refused.clone());
        let rt = ::tokio::runtime::Builder::new_multi_thread()
            .worker_threads(cpus.len())
            .on_thread_start(move || {
                let cpu = on_start_cpus[next.fetch_add(1, Ordering::Relaxed) % on_start_cpus.len()];
                if overhead_machine::pin_current_thread(cpu).is_err() {
                    on_start_refused.fetch_add(1, Ordering::Relaxed);
                }
            })
            .build()?;
        Ok(TokioPool { rt, refused })
    }

    fn spawn<T: Send + 'static>(&self, future: impl Future<Output = T> + Send + 'static) -> Task<Self, T> {
        Joined(self.rt.spawn(future))
    }

    fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.rt.block_on(future)
    }

    fn on_worker<T, Fut>(&self, parent: impl FnOnce(InRuntime) -> Fut) -> T
    where
        T: Send + 'static,
        Fut: Future<Output = T> + Send + 'static,
    {
        self.rt.block_on(self.rt.spawn(parent(InRuntime))).expect("the parent tokio task panicked")
    }

    fn notes(&self) -> Option<String> {
        pool_notes(&self.refused)
    }

    fn yield_now() -> impl Future<Output = ()> + Send {
        ::tokio::task::yield_now()
    }

    fn barrier(parties: usize) -> ::tokio::sync::Barrier {
        ::tokio::sync::Barrier::new(parties)
    }

    async fn barrier_wait(barrier: &::tokio::sync::Barrier) {
        barrier.wait().await;
    }

    fn gate() -> ::tokio::sync::Semaphore {
        ::tokio::sync::Semaphore::new(0)
    }

    async fn pass(gate: &::tokio::sync::Semaphore) {
        gate.acquire().await.expect("the gate is never closed").forget();
    }

    fn open(gate: &::tokio::sync::Semaphore, tasks: usize) {
        gate.add_permits(tasks);
    }

    fn broadcast() -> ::tokio::sync::Notify {
        ::tokio::sync::Notify::new()
    }

    async fn wait_for(broadcast: &::tokio::sync::Notify, registered: impl FnOnce() + Send) {
        let mut notified = std::pin::pin!(broadcast.notified());
        // Registered from here on: a notify_waiters after `registered` reaches this task.
        notified.as_mut().enable();
        registered();
        notified.await;
    }

    fn notify_all(broadcast: &::tokio::sync::Notify) {
        broadcast.notify_waiters();
    }
}

/// A current-thread runtime on the calling thread, pinned to the point's one CPU.
///
/// Errors: `cpus` has more than one CPU (`InvalidInput`: the flavor has one thread), or tokio could not
/// create its runtime.
fn start_current_thread<const MULTI_THREAD: bool>(cpus: &[usize]) -> std::io::Result<TokioPool<MULTI_THREAD>> {
    if cpus.len() > 1 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("tokio's current-thread flavor runs every task on one thread, not on {} CPUs", cpus.len()),
        ));
    }
    let refused = Arc::new(AtomicUsize::new(0));
    if overhead_machine::pin_current_thread(cpus[0]).is_err() {
        refused.fetch_add(1, Ordering::Relaxed);
    }
    Ok(TokioPool { rt: ::tokio::runtime::Builder::new_current_thread().build()?, refused })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_runs_tasks_on_its_workers() {
        let cpus = overhead_machine::allowed_cpus();
        let pool = <TokioPool>::start(&cpus[..cpus.len().min(2)]).unwrap();
        let sum: u64 = pool.block_on(async {
            let handles: Vec<_> = (0..8u64).map(|i| pool.spawn(async move { i })).collect();
            let mut s = 0;
            for h in handles {
                s += h.await;
            }
            s
        });
        assert_eq!(sum, 28);
        assert!(<TokioPool>::start(&[]).is_err());
    }

    /// The current-thread flavor runs every task on the thread that calls `block_on`, and refuses a second CPU.
    #[test]
    fn the_current_thread_pool_runs_its_tasks_on_the_calling_thread() {
        let cpu = overhead_machine::allowed_cpus()[0];
        let pool = TokioCurrentPool::start(&[cpu]).unwrap();
        let caller = std::thread::current().id();
        let ran_on = pool.on_worker(|_| async { std::thread::current().id() });
        assert_eq!(ran_on, caller);
        let spawned = pool.block_on(pool.spawn(async { std::thread::current().id() }));
        assert_eq!(spawned, caller);
        assert!(TokioCurrentPool::start(&[cpu, cpu]).is_err());
    }
}
