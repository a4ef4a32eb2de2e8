//! What `msg.throughput` runs smol's parties on: `smol::block_on`, one group of parties per pinned thread of a
//! harness team (`crate::async_channels::Throughput`, written by `async_runtime!`).

use std::future::Future;

use crate::async_channels::BlockOn;

/// `smol::block_on` on the calling thread: what a smol program's thread that runs a group of futures does
/// (async-io's reactor drives it while every future waits).
#[derive(Debug, Clone, Copy)]
pub struct SmolBlockOn;

impl BlockOn for SmolBlockOn {
    fn block_on<F: Future>(&self, future: F) -> F::Output {
        ::smol::block_on(future)
    }
}
