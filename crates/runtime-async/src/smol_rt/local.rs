//! smol's `LocalExecutor` as a [`LocalRuntime`]: Souvatzis's primitives on smol (`crate::local_runtime`), with
//! smol's own spawn, yield and semaphore (async-lock); the timed loop is a task beside its partners.

use std::future::Future;
use std::rc::Rc;

use ::smol::{LocalExecutor, Task};

use super::measure;
use crate::local_runtime::LocalRuntime;
use overhead_harness::{Harness, Measurement};
use overhead_runtime_api::primitives::Body;

/// A `LocalExecutor` run by `smol::block_on` on the calling thread.
pub struct SmolLocal {
    /// The executor; the timed task holds a clone to spawn on it.
    ex: Rc<LocalExecutor<'static>>,
}

impl LocalRuntime for SmolLocal {
    const RUNTIME: &'static str = "smol";
    type Spawner = Rc<LocalExecutor<'static>>;
    type Task<T: Send + 'static> = Task<T>;
    type Semaphore = ::smol::lock::Semaphore;

    fn start() -> anyhow::Result<SmolLocal> {
        Ok(SmolLocal { ex: Rc::new(LocalExecutor::new()) })
    }

    fn spawner(&self) -> Rc<LocalExecutor<'static>> {
        self.ex.clone()
    }

    fn spawn_in<T: Send + 'static>(
        spawner: &Rc<LocalExecutor<'static>>,
        future: impl Future<Output = T> + Send + 'static,
    ) -> Task<T> {
        spawner.spawn(future)
    }

    fn spawn<T: Send + 'static>(&self, future: impl Future<Output = T> + Send + 'static) -> Task<T> {
        self.ex.spawn(future)
    }

    fn finish<T: Send + 'static>(&self, task: Task<T>) -> T {
        ::smol::block_on(self.ex.run(task))
    }

    fn measure<F, Fut>(&self, h: &Harness, test: F) -> Measurement
    where
        F: Fn(u64) -> Fut,
        Fut: Future<Output = ()> + 'static,
    {
        measure(h, &self.ex, test)
    }

    /// Inside `smol::block_on` of the `LocalExecutor`'s `run`: the loop runs on the executor's thread as a task
    /// would, without awaiting.
    fn in_context(&self, h: &Harness, body: Body) -> Measurement {
        ::smol::block_on(self.ex.run(async move { body(h) }))
    }

    fn yield_now() -> impl Future<Output = ()> + Send {
        ::smol::future::yield_now()
    }

    fn semaphore(permits: usize) -> ::smol::lock::Semaphore {
        ::smol::lock::Semaphore::new(permits)
    }

    async fn p(semaphore: &::smol::lock::Semaphore) {
        semaphore.acquire().await.forget();
    }

    fn v(semaphore: &::smol::lock::Semaphore) {
        semaphore.add_permits(1);
    }
}

/// The async channels' message rows (`crate::async_channels::message_row`) on smol: partners are tasks of the
/// `LocalExecutor`, and the timed loop is a task beside them ([`LocalRuntime::measure`]), as in smol's other rows.
impl crate::async_channels::Executor for SmolLocal {
    type Join = Task<()>;
    fn block_on<F: Future>(&self, future: F) -> F::Output {
        ::smol::block_on(self.ex.run(future))
    }
    fn spawn<F: Future<Output = ()> + Send + 'static>(&self, future: F) -> Task<()> {
        self.ex.spawn(future)
    }
    fn measure<F, Fut>(&self, h: &Harness, test: F) -> Measurement
    where
        F: Fn(u64) -> Fut,
        Fut: Future<Output = ()> + 'static,
    {
        measure(h, &self.ex, test)
    }
}
