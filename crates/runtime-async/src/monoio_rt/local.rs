//! One monoio runtime (io_uring driver) as a [`LocalRuntime`]: Souvatzis's primitives on monoio
//! (`crate::local_runtime`), with monoio's own spawn, a yield written for it (monoio has no public one), and
//! tokio's runtime-agnostic semaphore (monoio has none); the timed loop is a task beside its partners.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::local_runtime::LocalRuntime;
use overhead_harness::{empty_loop, Harness, Measurement};
use overhead_runtime_api::primitives::Body;

/// A monoio runtime with its io_uring driver and no fallback: where io_uring is missing, it does not start.
pub type Runtime = monoio::Runtime<monoio::IoUringDriver>;

/// A new runtime on the calling thread.
///
/// Errors: io_uring would not start (ENOSYS, EPERM under `kernel.io_uring_disabled`, a seccomp filter).
pub fn runtime() -> std::io::Result<Runtime> {
    monoio::RuntimeBuilder::<monoio::IoUringDriver>::new().build()
}

/// One monoio runtime on the calling thread (`block_on` needs it mutably).
pub struct MonoioLocal {
    rt: RefCell<Runtime>,
}

/// A spawned monoio task.
pub type Task<T> = monoio::task::JoinHandle<T>;

/// The spawner the timed task uses: monoio spawns on the runtime of the thread it runs on.
#[derive(Clone, Copy)]
pub struct OnThisRuntime;

impl MonoioLocal {
    /// Runs `future` on the runtime until it ends.
    fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.rt.borrow_mut().block_on(future)
    }
}

/// Yields to the runtime once: pending the first time it is polled, after waking itself, as tokio's and smol's
/// `yield_now` do.
struct YieldNow(bool);

impl Future for YieldNow {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

impl LocalRuntime for MonoioLocal {
    const RUNTIME: &'static str = "monoio";
    type Spawner = OnThisRuntime;
    type Task<T: Send + 'static> = Task<T>;
    type Semaphore = ::tokio::sync::Semaphore;

    fn start() -> anyhow::Result<MonoioLocal> {
        use anyhow::Context as _;
        Ok(MonoioLocal { rt: RefCell::new(runtime().context("starting monoio's io_uring runtime")?) })
    }

    fn spawner(&self) -> OnThisRuntime {
        OnThisRuntime
    }

    fn spawn_in<T: Send + 'static>(_: &OnThisRuntime, future: impl Future<Output = T> + Send + 'static) -> Task<T> {
        monoio::spawn(future)
    }

    /// Spawned inside a `block_on` (monoio spawns only on a running runtime); the task stays queued on the
    /// runtime and runs in the next `block_on`.
    #[allow(clippy::async_yields_async)] // The handle is the point: the task is awaited later, by `finish`.
    fn spawn<T: Send + 'static>(&self, future: impl Future<Output = T> + Send + 'static) -> Task<T> {
        self.block_on(async move { monoio::spawn(future) })
    }

    fn finish<T: Send + 'static>(&self, task: Task<T>) -> T {
        self.block_on(task)
    }

    /// Every batch is one `block_on` running a task that awaits the operation `n` times beside the partners
    /// spawned before; the control is the same with a task running the empty loop.
    fn measure<F, Fut>(&self, h: &Harness, test: F) -> Measurement
    where
        F: Fn(u64) -> Fut,
        Fut: Future<Output = ()> + 'static,
    {
        // Spawned inside `block_on`: monoio spawns only on a running runtime.
        h.measure(
            |n| {
                let batch = test(n);
                self.block_on(async move { monoio::spawn(batch).await })
            },
            |n| self.block_on(async move { monoio::spawn(async move { empty_loop(n) }).await }),
        )
    }

    fn in_context(&self, h: &Harness, body: Body) -> Measurement {
        self.block_on(async move { body(h) })
    }

    fn yield_now() -> impl Future<Output = ()> + Send {
        YieldNow(false)
    }

    crate::local_runtime::tokio_semaphore!();
}

/// The async channels' message rows (`crate::async_channels`) on monoio: partners are tasks of the runtime, and
/// the timed loop is a task beside them ([`LocalRuntime::measure`]).
impl crate::async_channels::Executor for MonoioLocal {
    type Join = Task<()>;
    fn block_on<F: Future>(&self, future: F) -> F::Output {
        MonoioLocal::block_on(self, future)
    }
    fn spawn<F: Future<Output = ()> + Send + 'static>(&self, future: F) -> Task<()> {
        LocalRuntime::spawn(self, future)
    }
    fn measure<F, Fut>(&self, h: &Harness, test: F) -> Measurement
    where
        F: Fn(u64) -> Fut,
        Fut: Future<Output = ()> + 'static,
    {
        LocalRuntime::measure(self, h, test)
    }
}
