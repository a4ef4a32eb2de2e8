//! tokio's current-thread runtime as a [`LocalRuntime`]: Souvatzis's primitives on tokio
//! (`crate::local_runtime`), with tokio's own spawn, yield and semaphore; the timed loop is `block_on`'s future.

use std::future::Future;

use super::pool::{InRuntime, Joined};
use super::{current_thread, measure};
use crate::local_runtime::LocalRuntime;
use overhead_harness::{Harness, Measurement};
use overhead_runtime_api::primitives::Body;

/// A current-thread tokio runtime on the calling thread.
pub struct TokioLocal {
    /// The runtime.
    rt: ::tokio::runtime::Runtime,
}

impl LocalRuntime for TokioLocal {
    const RUNTIME: &'static str = "tokio";
    type Spawner = InRuntime;
    type Task<T: Send + 'static> = Joined<T>;
    type Semaphore = ::tokio::sync::Semaphore;

    fn start() -> anyhow::Result<TokioLocal> {
        use anyhow::Context as _;
        Ok(TokioLocal { rt: current_thread().context("starting tokio's current-thread runtime")? })
    }

    fn spawner(&self) -> InRuntime {
        InRuntime
    }

    fn spawn_in<T: Send + 'static>(_: &InRuntime, future: impl Future<Output = T> + Send + 'static) -> Joined<T> {
        crate::task_pool::Spawn::spawn(&InRuntime, future)
    }

    fn spawn<T: Send + 'static>(&self, future: impl Future<Output = T> + Send + 'static) -> Joined<T> {
        Joined::new(self.rt.spawn(future))
    }

    fn finish<T: Send + 'static>(&self, task: Joined<T>) -> T {
        self.rt.block_on(task)
    }

    fn measure<F, Fut>(&self, h: &Harness, test: F) -> Measurement
    where
        F: Fn(u64) -> Fut,
        Fut: Future<Output = ()> + 'static,
    {
        measure(h, &self.rt, test)
    }

    /// Inside `block_on` of the runtime: the loop runs on the runtime's thread as a task would, without
    /// awaiting.
    fn in_context(&self, h: &Harness, body: Body) -> Measurement {
        let h = h.clone();
        self.rt.block_on(async move { body(&h) })
    }

    fn yield_now() -> impl Future<Output = ()> + Send {
        ::tokio::task::yield_now()
    }

    crate::local_runtime::tokio_semaphore!();
}
