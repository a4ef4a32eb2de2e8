//! smol's own rendezvous idiom: a server task, an unbounded async-channel of requests and a `bounded(1)` reply
//! channel per call. Souvatzis's other message rows are the shared ones (`crate::async_channels`, written by
//! `async_runtime!` on [`super::SmolLocal`], smol's `LocalExecutor`), and the other primitives
//! `crate::local_runtime`'s on it.

use std::hint::black_box;

use ::smol::channel::{bounded, unbounded};
use ::smol::LocalExecutor;

use super::measure;
use overhead_harness::{Harness, Measurement};

/// `msg.rendezvous` `impl:async_channel` (smol's own): a server task, an unbounded async-channel of requests and
/// a `bounded(1)` async-channel per call for the reply. async-channel has no zero-capacity channel and smol no
/// oneshot, so this is smol's way of tokio's mpsc + `oneshot` (the per-call channel is allocated in the loop,
/// as tokio's oneshot is).
pub(super) fn own_rendezvous(h: &Harness) -> anyhow::Result<Measurement> {
    type Request = (u64, ::smol::channel::Sender<u64>);
    let ex = LocalExecutor::new();
    let (request_tx, request_rx) = unbounded::<Request>();
    let server = ex.spawn(async move {
        while let Ok((q, reply)) = request_rx.recv().await {
            let _ = reply.send(q + 1).await;
        }
    });
    let m = measure(h, &ex, |n| {
        let request_tx = request_tx.clone();
        async move {
            for i in 0..n {
                let (reply_tx, reply_rx) = bounded(1);
                request_tx.send((i, reply_tx)).await.expect("server alive");
                black_box(reply_rx.recv().await.ok());
            }
        }
    });
    drop(request_tx);
    ::smol::block_on(ex.run(server));
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smol_rt::Smol;
    use overhead_harness::testing::quick_harness;
    use overhead_runtime_api::channel_impl::ChannelImpl;
    use overhead_runtime_api::primitives::Messages;
    use overhead_runtime_api::primitives::{Body, Context, NewTask, Primitives, SemOp, SpawnKind};

    /// Every message the echo and the server get comes back exactly once and in order.
    #[test]
    fn channels_deliver_every_message_once_in_order() {
        let ex = LocalExecutor::new();
        let (tx, rx) = unbounded::<u64>();
        let (echo_tx, echo_rx) = unbounded::<u64>();
        let echo = ex.spawn(async move {
            while let Ok(v) = rx.recv().await {
                echo_tx.send(v).await.unwrap();
            }
        });
        ::smol::block_on(ex.run(async {
            for i in 0..1000 {
                tx.send(i).await.unwrap();
            }
            drop(tx);
            echo.await;
            let mut got = Vec::new();
            while let Ok(v) = echo_rx.try_recv() {
                got.push(v);
            }
            assert_eq!(got, (0..1000).collect::<Vec<_>>());
        }));
    }

    /// Each primitive measures on a tiny harness (the partners end, or these would hang).
    #[test]
    fn every_primitive_measures() {
        let h = quick_harness();
        let reps = h.config.repetitions;
        let smol = Smol;
        for new_task in [NewTask::No, NewTask::Yes] {
            assert_eq!(smol.call(new_task, &h).unwrap().samples_ns.len(), reps);
        }
        assert_eq!(smol.spawn_join(SpawnKind::Task, &h).unwrap().samples_ns.len(), reps);
        assert!(smol.spawn_join(SpawnKind::Thread, &h).is_err());
        for op in [SemOp::P, SemOp::V, SemOp::Pair, SemOp::Switch] {
            assert_eq!(smol.semaphore(op, 0, &h).unwrap().samples_ns.len(), reps, "{op:?}");
        }
        assert_eq!(smol.switch_round_trip([0, 0], &h).unwrap().measurement.samples_ns.len(), reps);
        let own = ChannelImpl::AsyncChannel;
        assert_eq!(smol.async_message(own, &h).unwrap().samples_ns.len(), reps);
        assert_eq!(smol.message_round_trip(own, 0, &h).unwrap().samples_ns.len(), reps);
        assert_eq!(smol.rendezvous(own, 0, &h).unwrap().samples_ns.len(), reps);
        assert!(smol.async_message(ChannelImpl::TokioMpsc, &h).is_err());
        let body: Body = Box::new(|h: &Harness| h.measure(overhead_harness::empty_loop, overhead_harness::empty_loop));
        assert_eq!(smol.in_context(&h, body).unwrap().samples_ns.len(), reps);
    }
}
