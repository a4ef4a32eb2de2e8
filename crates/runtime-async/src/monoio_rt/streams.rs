//! `msg.throughput` on monoio: one runtime per group of parties, on the group's own pinned thread, as tokio's
//! and smol's streams run one executor per group (`crate::async_channels::Throughput`). A monoio runtime
//! belongs to the thread that built it (its io_uring ring and its task queue are that thread's), so the
//! executor handed to the shared stream code is a handle: it builds the calling thread's runtime on its first
//! `block_on` there (a sizing batch, never a kept one) and keeps it for that thread's later batches. Wakes
//! across the groups' threads go through monoio's `sync` feature (a waker from another thread pokes the
//! runtime's eventfd).

use std::cell::RefCell;
use std::future::Future;

use crate::async_channels::BlockOn;

thread_local! {
    /// This thread's monoio runtime, built on its first `block_on`.
    static RUNTIME: RefCell<Option<super::local::Runtime>> = const { RefCell::new(None) };
}

/// The calling thread's monoio runtime, as the executor of one group of a stream's parties.
#[derive(Debug, Clone, Copy, Default)]
pub struct ThreadRuntime;

impl ThreadRuntime {
    /// A handle; the runtime itself is built on the thread that first runs a batch through it.
    ///
    /// Errors: none (where io_uring is missing, monoio's offers say so before any stream is planned).
    pub fn new() -> std::io::Result<ThreadRuntime> {
        Ok(ThreadRuntime)
    }
}

impl BlockOn for ThreadRuntime {
    /// Runs `future` on this thread's runtime, built first if the thread has none.
    ///
    /// Panics: io_uring would not start on this thread although it started on the one that checked the
    /// offers (the team thread's panic fails the point with this message).
    fn block_on<F: Future>(&self, future: F) -> F::Output {
        RUNTIME.with(|slot| {
            let mut slot = slot.borrow_mut();
            let runtime = slot.get_or_insert_with(|| {
                super::local::runtime().expect("monoio's io_uring driver would not start on this thread")
            });
            runtime.block_on(future)
        })
    }
}
