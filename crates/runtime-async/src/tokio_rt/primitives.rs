//! tokio's own rendezvous idiom: a server task, an mpsc request queue and a `oneshot` reply per call (its mpsc
//! has no zero capacity). Souvatzis's other message rows are the shared ones (`crate::async_channels`, written
//! by `async_runtime!` on [`super::current_thread`]), and the other primitives `crate::local_runtime`'s on
//! [`super::TokioLocal`].

use std::hint::black_box;

use super::{current_thread, measure};
use overhead_harness::{Harness, Measurement};

/// `msg.rendezvous` `impl:tokio_mpsc`: a request through an unbounded mpsc to a server task, the reply through a
/// `oneshot` allocated per call in the loop, as a tokio program does.
///
/// Errors: tokio could not create its runtime, or the server task panicked.
pub(super) fn own_rendezvous(h: &Harness) -> anyhow::Result<Measurement> {
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
