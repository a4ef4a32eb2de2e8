//! Seed 004's primitives on smol's `LocalExecutor` (issue 25 item 3): one thread inside `smol::block_on`,
//! cooperative switches at `.await` (the peer of tokio's current-thread runtime); the timed loop and its
//! partners are tasks of the same executor. Messages go through smol's own channel, async-channel.

use std::future::Future;
use std::hint::black_box;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ::smol::channel::{bounded, unbounded};
use ::smol::lock::Semaphore;
use ::smol::LocalExecutor;

use super::{measure, Smol};
use crate::channel_impl::ChannelImpl;
use crate::offer::{ensure_offered, not_offered};
use crate::primitives::{Body, Context, Messages, NewTask, Primitives, SemOp, SpawnKind};
use crate::RuntimeUnderTest as _;
use overhead_harness::{Harness, Measurement};
use overhead_record::Outcome;

/// The operation `msg.call` calls: one argument in, one result out.
fn operation(x: u64) -> u64 {
    x.wrapping_add(1)
}

/// `operation` behind a boxed trait object, as `async-trait` and service stacks call across a component
/// boundary without a new task.
fn boxed_operation(x: u64) -> Pin<Box<dyn Future<Output = u64>>> {
    Box::pin(async move { operation(x) })
}

/// async-lock's P: acquire one permit and keep it (the permit is returned by a later `add_permits`).
async fn p(sem: &Semaphore) {
    sem.acquire().await.forget();
}

impl Context for Smol {
    /// Inside `smol::block_on` of a `LocalExecutor`'s `run`: the loop runs on the executor's thread as a
    /// task would, without awaiting.
    fn in_context(&self, h: &Harness, body: Body) -> anyhow::Result<Measurement> {
        let ex = LocalExecutor::new();
        Ok(::smol::block_on(ex.run(async move { body(h) })))
    }
}

impl Primitives for Smol {
    /// Awaiting a boxed `dyn Future` (the async-trait shape); or `LocalExecutor::spawn` + awaiting the `Task`.
    fn call(&self, new_task: NewTask, h: &Harness) -> anyhow::Result<Measurement> {
        let ex = Rc::new(LocalExecutor::new());
        Ok(if new_task == NewTask::Yes {
            measure(h, &ex, |n| {
                let ex = ex.clone();
                async move {
                    for i in 0..n {
                        black_box(ex.spawn(async move { operation(i) }).await);
                    }
                }
            })
        } else {
            measure(h, &ex, |n| async move {
                for i in 0..n {
                    black_box(boxed_operation(i).await);
                }
            })
        })
    }

    /// `LocalExecutor::spawn` of an empty task plus awaiting its `Task`.
    fn spawn_join(&self, kind: SpawnKind, h: &Harness) -> anyhow::Result<Measurement> {
        match kind {
            SpawnKind::Task => {}
            other @ (SpawnKind::Thread | SpawnKind::Process) => return Err(not_offered("smol", "kind", other)),
        }
        let ex = Rc::new(LocalExecutor::new());
        Ok(measure(h, &ex, |n| {
            let ex = ex.clone();
            async move {
                for _ in 0..n {
                    black_box(ex.spawn(async { black_box(0u8) }).await);
                }
            }
        }))
    }

    /// `smol::lock::Semaphore` (async-lock); the switch partner is a task.
    fn semaphore(&self, op: SemOp, _partner_cpu: usize, h: &Harness) -> anyhow::Result<Measurement> {
        let ex = LocalExecutor::new();
        let sem = Arc::new(Semaphore::new(op.initial_permits() as usize));
        Ok(match op {
            SemOp::P => measure(h, &ex, |n| {
                let sem = sem.clone();
                async move {
                    for _ in 0..n {
                        p(&sem).await;
                    }
                }
            }),
            SemOp::V => measure(h, &ex, |n| {
                let sem = sem.clone();
                async move { (0..n).for_each(|_| sem.add_permits(1)) }
            }),
            SemOp::Pair => measure(h, &ex, |n| {
                let sem = sem.clone();
                async move {
                    for _ in 0..n {
                        sem.add_permits(1);
                        p(&sem).await;
                    }
                }
            }),
            SemOp::Switch => {
                let (ping, pong) = (sem, Arc::new(Semaphore::new(0)));
                let stop = Arc::new(AtomicBool::new(false));
                let partner = {
                    let (ping, pong, stop) = (ping.clone(), pong.clone(), stop.clone());
                    ex.spawn(async move {
                        loop {
                            p(&ping).await;
                            if stop.load(Ordering::Acquire) {
                                break;
                            }
                            pong.add_permits(1);
                        }
                    })
                };
                let m = measure(h, &ex, |n| {
                    let (ping, pong) = (ping.clone(), pong.clone());
                    async move {
                        for _ in 0..n {
                            ping.add_permits(1);
                            p(&pong).await;
                        }
                    }
                });
                stop.store(true, Ordering::Release);
                ping.add_permits(1);
                ::smol::block_on(ex.run(partner));
                m
            }
        })
    }

    /// Two tasks: the timed task calls `smol::future::yield_now`, the partner (which only yields) runs
    /// once, and control comes back: one round trip through the `LocalExecutor`'s queue.
    fn switch_round_trip(&self, _cpus: [usize; 2], h: &Harness) -> anyhow::Result<Outcome> {
        let ex = LocalExecutor::new();
        let stop = Arc::new(AtomicBool::new(false));
        let partner_stop = stop.clone();
        let partner = ex.spawn(async move {
            while !partner_stop.load(Ordering::Relaxed) {
                ::smol::future::yield_now().await;
            }
        });
        let m = measure(h, &ex, |n| async move {
            for _ in 0..n {
                ::smol::future::yield_now().await;
            }
        });
        stop.store(true, Ordering::Relaxed);
        ::smol::block_on(ex.run(partner));
        Ok(m.into())
    }
}

impl Messages for Smol {
    /// An unbounded async-channel, sender and receiver in the same task.
    fn async_message(&self, implementation: ChannelImpl, h: &Harness) -> anyhow::Result<Measurement> {
        ensure_offered("smol", "impl", self.offers().channel, implementation)?;
        let ex = LocalExecutor::new();
        let (tx, rx) = unbounded::<u64>();
        Ok(measure(h, &ex, |n| {
            let (tx, rx) = (tx.clone(), rx.clone());
            async move {
                for i in 0..n {
                    tx.send(i).await.expect("receiver alive");
                    black_box(rx.recv().await.ok());
                }
            }
        }))
    }

    /// Two unbounded async-channels to and from an echo task.
    fn message_round_trip(
        &self,
        implementation: ChannelImpl,
        _partner_cpu: usize,
        h: &Harness,
    ) -> anyhow::Result<Measurement> {
        ensure_offered("smol", "impl", self.offers().message_switch, implementation)?;
        let ex = LocalExecutor::new();
        let (to_partner, partner_rx) = unbounded::<u64>();
        let (partner_tx, from_partner) = unbounded::<u64>();
        let partner = ex.spawn(async move {
            while let Ok(v) = partner_rx.recv().await {
                if partner_tx.send(v).await.is_err() {
                    break;
                }
            }
        });
        let m = measure(h, &ex, |n| {
            let (tx, rx) = (to_partner.clone(), from_partner.clone());
            async move {
                for i in 0..n {
                    tx.send(i).await.expect("partner alive");
                    black_box(rx.recv().await.ok());
                }
            }
        });
        // The partner ends when its receiver sees the channel closed.
        drop(to_partner);
        ::smol::block_on(ex.run(partner));
        Ok(m)
    }

    /// A server task, an unbounded async-channel of requests and a `bounded(1)` async-channel per call for
    /// the reply: async-channel has no zero-capacity channel and smol no oneshot, so this is smol's way
    /// of tokio's mpsc + `oneshot` (the per-call channel is allocated in the loop, as tokio's oneshot is).
    fn rendezvous(&self, implementation: ChannelImpl, _partner_cpu: usize, h: &Harness) -> anyhow::Result<Measurement> {
        ensure_offered("smol", "impl", self.offers().rendezvous, implementation)?;
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_harness::testing::quick_harness;

    /// A V by one task is the P another task was blocked in, every time, and nothing more.
    #[test]
    fn semaphore_hands_each_permit_to_the_waiting_task() {
        let ex = LocalExecutor::new();
        let (ping, pong) = (Arc::new(Semaphore::new(0)), Arc::new(Semaphore::new(0)));
        let partner = {
            let (ping, pong) = (ping.clone(), pong.clone());
            ex.spawn(async move {
                for _ in 0..100 {
                    p(&ping).await;
                    pong.add_permits(1);
                }
            })
        };
        ::smol::block_on(ex.run(async {
            for _ in 0..100 {
                ping.add_permits(1);
                p(&pong).await;
            }
            partner.await;
        }));
        assert!(ping.try_acquire().is_none() && pong.try_acquire().is_none());
    }

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
