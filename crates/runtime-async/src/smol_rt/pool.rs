//! A smol `Executor` run by pinned threads as a [`TaskPool`]: Ben-Asher & Feitelson's constructs on smol
//! (`crate::task_pool`), with smol's own spawn, yield, semaphore and barrier (async-lock) and event-listener's
//! `Event` (the notification smol's locks and channels are built on) as its notify-all.

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use ::smol::{Executor, Task};

use crate::task_pool::{Spawn, TaskPool};

/// An `Executor` run by one thread per CPU of a point, each thread pinned to its CPU (thread i to `cpus[i]`),
/// each running `smol::block_on(executor.run(…))` as smol's own global executor threads do. Dropping it stops
/// the threads (they finish the task they are polling) and joins them.
pub struct SmolPool {
    /// The executor the threads run; tasks spawned on it run on them.
    executor: Arc<Executor<'static>>,
    /// Closed on drop: every thread's `run` then returns.
    stop: Option<::smol::channel::Sender<()>>,
    /// The executor threads.
    threads: Vec<std::thread::JoinHandle<()>>,
    /// Threads whose pinning the kernel refused (they ran unpinned).
    refused: Arc<AtomicUsize>,
}

/// A parent task spawns on the pool's `Executor` (from an executor thread: its local queue).
impl Spawn for Arc<Executor<'static>> {
    type Task<T: Send + 'static> = Task<T>;
    fn spawn<T: Send + 'static>(&self, future: impl Future<Output = T> + Send + 'static) -> Task<T> {
        Executor::spawn(self, future)
    }
}

impl TaskPool for SmolPool {
    const RUNTIME: &'static str = "smol";
    type Spawner = Arc<Executor<'static>>;
    type Barrier = ::smol::lock::Barrier;
    type Gate = ::smol::lock::Semaphore;
    type Broadcast = event_listener::Event;

    fn start(cpus: &[usize]) -> std::io::Result<SmolPool> {
        if cpus.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "a smol executor needs at least one CPU",
            ));
        }
        let (stop, stopped) = ::smol::channel::bounded::<()>(1);
        let mut pool = SmolPool {
            executor: Arc::new(Executor::new()),
            stop: Some(stop),
            threads: Vec::with_capacity(cpus.len()),
            refused: Arc::new(AtomicUsize::new(0)),
        };
        for (i, &cpu) in cpus.iter().enumerate() {
            let (executor, stopped, refused) = (pool.executor.clone(), stopped.clone(), pool.refused.clone());
            let thread = std::thread::Builder::new().name(format!("smol-{i}")).spawn(move || {
                if overhead_machine::pin_current_thread(cpu).is_err() {
                    refused.fetch_add(1, Ordering::Relaxed);
                }
                ::smol::block_on(executor.run(async move {
                    // Never sent: ends when the pool drops the sender.
                    let _ = stopped.recv().await;
                }));
            })?;
            // On an error above, dropping `pool` stops and joins the threads started so far.
            pool.threads.push(thread);
        }
        Ok(pool)
    }

    fn spawn<T: Send + 'static>(&self, future: impl Future<Output = T> + Send + 'static) -> Task<T> {
        self.executor.spawn(future)
    }

    fn block_on<F: Future>(&self, future: F) -> F::Output {
        ::smol::block_on(future)
    }

    fn on_worker<T, Fut>(&self, parent: impl FnOnce(Arc<Executor<'static>>) -> Fut) -> T
    where
        T: Send + 'static,
        Fut: Future<Output = T> + Send + 'static,
    {
        ::smol::block_on(self.executor.spawn(parent(self.executor.clone())))
    }

    fn notes(&self) -> Option<String> {
        overhead_runtime_api::fan_out::pool_notes(&self.refused)
    }

    fn yield_now() -> impl Future<Output = ()> + Send {
        ::smol::future::yield_now()
    }

    fn barrier(parties: usize) -> ::smol::lock::Barrier {
        ::smol::lock::Barrier::new(parties)
    }

    async fn barrier_wait(barrier: &::smol::lock::Barrier) {
        barrier.wait().await;
    }

    fn gate() -> ::smol::lock::Semaphore {
        ::smol::lock::Semaphore::new(0)
    }

    async fn pass(gate: &::smol::lock::Semaphore) {
        gate.acquire().await.forget();
    }

    fn open(gate: &::smol::lock::Semaphore, tasks: usize) {
        gate.add_permits(tasks);
    }

    fn broadcast() -> event_listener::Event {
        event_listener::Event::new()
    }

    async fn wait_for(broadcast: &event_listener::Event, registered: impl FnOnce() + Send) {
        // On the task's stack, no allocation; registered from here on: a notify after `registered` reaches it.
        event_listener::listener!(broadcast => listener);
        registered();
        listener.await;
    }

    fn notify_all(broadcast: &event_listener::Event) {
        broadcast.notify(usize::MAX);
    }
}

impl Drop for SmolPool {
    fn drop(&mut self) {
        drop(self.stop.take());
        for thread in self.threads.drain(..) {
            // A thread that panicked has nothing left to stop; the panic was printed where it happened.
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_runs_tasks_on_its_threads_and_stops_on_drop() {
        let cpus = overhead_machine::allowed_cpus();
        let pool = SmolPool::start(&cpus[..cpus.len().min(2)]).unwrap();
        let sum: u64 = pool.on_worker(|ex| async move {
            let tasks: Vec<_> = (0..8u64).map(|i| ex.spawn(async move { i })).collect();
            let mut s = 0;
            for t in tasks {
                s += t.await;
            }
            s
        });
        assert_eq!(sum, 28);
        drop(pool);
        assert!(SmolPool::start(&[]).is_err());
    }
}
