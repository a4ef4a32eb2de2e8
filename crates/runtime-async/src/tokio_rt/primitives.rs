//! Souvatzis's message rows on tokio's current-thread scheduler: every async channel crate
//! (`crate::async_channels`), partners tasks on the same runtime, and tokio's own rendezvous idiom (mpsc and a
//! `oneshot` reply). The other primitives are `crate::local_runtime`'s on [`super::TokioLocal`].

use crate::async_channels::{with_async_channel, MessageRow, Row};
use overhead_runtime_api::channel_impl::ChannelImpl;
use overhead_runtime_api::channel_throughput::Capacity;
use overhead_runtime_api::offer::ensure_offered;
use overhead_runtime_api::RuntimeUnderTest as _;
use std::hint::black_box;

use super::{current_thread, measure, Tokio};
use overhead_harness::{Harness, Measurement};
use overhead_runtime_api::primitives::Messages;

impl Messages for Tokio {
    /// An unbounded channel of `implementation`, sender and receiver in the same task
    /// (`async_channels::message_row`).
    fn async_message(&self, implementation: ChannelImpl, h: &Harness) -> anyhow::Result<Measurement> {
        ensure_offered("tokio", "impl", self.offers().channel, implementation)?;
        let rt = current_thread()?;
        with_async_channel(
            "tokio",
            implementation,
            Capacity::Unbounded,
            Row { executor: &rt, row: MessageRow::Async, h },
        )
    }

    /// Two unbounded channels of `implementation` to and from an echo task.
    fn message_round_trip(
        &self,
        implementation: ChannelImpl,
        _partner_cpu: usize,
        h: &Harness,
    ) -> anyhow::Result<Measurement> {
        ensure_offered("tokio", "impl", self.offers().message_switch, implementation)?;
        let rt = current_thread()?;
        with_async_channel(
            "tokio",
            implementation,
            Capacity::Unbounded,
            Row { executor: &rt, row: MessageRow::Echo, h },
        )
    }

    /// `tokio_mpsc`: a server task, an mpsc request queue and a `oneshot` reply per call (tokio's idiom: its
    /// mpsc has no zero capacity); `flume_async`, `kanal_async`: two zero-capacity channels to a server task.
    fn rendezvous(&self, implementation: ChannelImpl, _partner_cpu: usize, h: &Harness) -> anyhow::Result<Measurement> {
        ensure_offered("tokio", "impl", self.offers().rendezvous, implementation)?;
        if implementation != ChannelImpl::TokioMpsc {
            let rt = current_thread()?;
            let row = Row { executor: &rt, row: MessageRow::Server, h };
            return with_async_channel("tokio", implementation, Capacity::Bounded(0), row);
        }
        type Request = (u64, ::tokio::sync::oneshot::Sender<u64>);
        let rt = current_thread()?;
        let (request_tx, mut request_rx) = ::tokio::sync::mpsc::unbounded_channel::<Request>();
        let server = rt.spawn(async move {
            while let Some((q, reply)) = request_rx.recv().await {
                let _ = reply.send(q + 1);
            }
        });
        let m = measure(h, &rt, |n| {
            let request_tx = &request_tx;
            async move {
                for i in 0..n {
                    let (reply_tx, reply_rx) = ::tokio::sync::oneshot::channel();
                    request_tx.send((i, reply_tx)).expect("server alive");
                    black_box(reply_rx.await.ok());
                }
            }
        });
        drop(request_tx);
        rt.block_on(server)?;
        Ok(m)
    }
}
