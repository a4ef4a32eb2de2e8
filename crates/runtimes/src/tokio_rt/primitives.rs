//! Seed 004's primitives on tokio's current-thread scheduler: the async peer of the fibers (one worker
//! thread, cooperative switches at `.await`); partners are tasks on the same runtime.

use crate::async_channels::{with_async_channel, MessageRow, Row};
use crate::channel_impl::ChannelImpl;
use crate::channel_throughput::Capacity;
use crate::offer::ensure_offered;
use crate::RuntimeUnderTest as _;
use std::future::Future;
use std::hint::black_box;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::{current_thread, measure, Tokio};
use crate::offer::not_offered;
use crate::primitives::{Body, Context, Messages, NewTask, Primitives, SemOp, SpawnKind};
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

/// tokio's P: acquire one permit and keep it (the permit is returned by a later `add_permits`).
async fn p(sem: &::tokio::sync::Semaphore) {
    sem.acquire().await.expect("the semaphore is never closed").forget();
}

impl Context for Tokio {
    /// Inside `block_on` of a current-thread runtime: the loop runs on the runtime's thread as a task
    /// would, without awaiting.
    fn in_context(&self, h: &Harness, body: Body) -> anyhow::Result<Measurement> {
        use anyhow::Context as _;
        let rt = current_thread().context("starting tokio's current-thread runtime")?;
        let h = h.clone();
        Ok(rt.block_on(async move { body(&h) }))
    }
}

impl Primitives for Tokio {
    /// Awaiting a boxed `dyn Future` (the async-trait shape); or `tokio::spawn` + awaiting the handle.
    fn call(&self, new_task: NewTask, h: &Harness) -> anyhow::Result<Measurement> {
        let rt = current_thread()?;
        Ok(if new_task == NewTask::Yes {
            measure(h, &rt, |n| async move {
                for i in 0..n {
                    black_box(::tokio::spawn(async move { operation(i) }).await.ok());
                }
            })
        } else {
            measure(h, &rt, |n| async move {
                for i in 0..n {
                    black_box(boxed_operation(i).await);
                }
            })
        })
    }

    /// `tokio::spawn` of an empty task plus awaiting its `JoinHandle`.
    fn spawn_join(&self, kind: SpawnKind, h: &Harness) -> anyhow::Result<Measurement> {
        match kind {
            SpawnKind::Task => {}
            other @ (SpawnKind::Thread | SpawnKind::Process) => return Err(not_offered("tokio", "kind", other)),
        }
        let rt = current_thread()?;
        Ok(measure(h, &rt, |n| async move {
            for _ in 0..n {
                black_box(::tokio::spawn(async { black_box(0u8) }).await.ok());
            }
        }))
    }

    /// `tokio::sync::Semaphore`; the switch partner is a task.
    fn semaphore(&self, op: SemOp, _partner_cpu: usize, h: &Harness) -> anyhow::Result<Measurement> {
        use ::tokio::sync::Semaphore;
        let rt = current_thread()?;
        let sem = Arc::new(Semaphore::new(op.initial_permits() as usize));
        Ok(match op {
            SemOp::P => measure(h, &rt, |n| {
                let sem = sem.clone();
                async move {
                    for _ in 0..n {
                        p(&sem).await;
                    }
                }
            }),
            SemOp::V => measure(h, &rt, |n| {
                let sem = sem.clone();
                async move { (0..n).for_each(|_| sem.add_permits(1)) }
            }),
            SemOp::Pair => measure(h, &rt, |n| {
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
                    rt.spawn(async move {
                        loop {
                            p(&ping).await;
                            if stop.load(Ordering::Acquire) {
                                break;
                            }
                            pong.add_permits(1);
                        }
                    })
                };
                let m = measure(h, &rt, |n| {
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
                rt.block_on(partner)?;
                m
            }
        })
    }

    /// Two tasks: the timed task yields, the partner (which only yields) runs once, and control comes
    /// back: one round trip through tokio's run queue.
    fn switch_round_trip(&self, _cpus: [usize; 2], h: &Harness) -> anyhow::Result<Outcome> {
        let rt = current_thread()?;
        let stop = Arc::new(AtomicBool::new(false));
        let partner_stop = stop.clone();
        let partner = rt.spawn(async move {
            while !partner_stop.load(Ordering::Relaxed) {
                ::tokio::task::yield_now().await;
            }
        });
        let m = measure(h, &rt, |n| async move {
            for _ in 0..n {
                ::tokio::task::yield_now().await;
            }
        });
        stop.store(true, Ordering::Relaxed);
        rt.block_on(partner)?;
        Ok(m.into())
    }
}

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
