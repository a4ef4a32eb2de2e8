//! `msg.rendezvous`: a synchronous call answered by a server activity.

use std::hint::black_box;

use crate::experiments::context::{in_context, runtime_of, tokio_measure, unimplemented_runtime, with_partner};
use crate::experiments::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned};
use crate::harness::Harness;
use crate::record::{Metric, PointSpec};
use crate::runtimes::Capability;
use crate::runtimes::{fiber, tokio_rt, Runtime};

/// Request that ends the server.
const STOP: u64 = u64::MAX;

/// Seed 004's "rendezvous" (SR's `call` answered by an `in` statement): the client blocks until a
/// server activity has received the request and replied. `os`: a server thread on the same CPU and two
/// zero-capacity `sync_channel`s (true rendezvous); `fiber-*`: the runtime's rendezvous; `tokio`: a
/// server task, an mpsc request queue and a `oneshot` reply per call (tokio's idiom). Per call.
pub struct Rendezvous;

impl Experiment for Rendezvous {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: "msg.rendezvous",
            summary: "synchronous call answered by a server activity (request, accept, reply)",
            source: "seed 004 timing table, \"rendezvous\"",
            metric: Metric::Rtt,
            requires: &[Capability::Rendezvous],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &str) -> Vec<Planned> {
        ctx.same_cpu_pair(self.id(), runtime, &[])
    }
    fn run(&self, spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
        let m = match runtime_of(&spec.runtime)? {
            Runtime::Rayon | Runtime::OpenMp => return Err(unimplemented_runtime(spec)),
            Runtime::Os => {
                let (request_tx, request_rx) = std::sync::mpsc::sync_channel::<u64>(0);
                let (reply_tx, reply_rx) = std::sync::mpsc::sync_channel::<u64>(0);
                with_partner(
                    spec.cpus[1],
                    move || {
                        while let Ok(q) = request_rx.recv() {
                            if q == STOP || reply_tx.send(q + 1).is_err() {
                                break;
                            }
                        }
                    },
                    || {
                        h.measure(
                            |n| {
                                for i in 0..n {
                                    request_tx.send(i).expect("server alive");
                                    black_box(reply_rx.recv().expect("server alive"));
                                }
                            },
                            empty_loop,
                        )
                    },
                    || {
                        let _ = request_tx.send(STOP);
                    },
                )
            }
            Runtime::Fiber(backend) => in_context(Runtime::Fiber(backend), h, |h| {
                let (client, server) = fiber::rendezvous::<u64, u64>();
                let server = fiber::spawn(move || loop {
                    let (q, reply) = server.accept();
                    reply.reply(q.wrapping_add(1));
                    if q == STOP {
                        break;
                    }
                });
                let m = h.measure(
                    |n| {
                        for i in 0..n {
                            black_box(client.call(i));
                        }
                    },
                    empty_loop,
                );
                client.call(STOP);
                let _ = server.join();
                m
            })?,
            Runtime::Tokio => {
                type Request = (u64, ::tokio::sync::oneshot::Sender<u64>);
                let rt = tokio_rt::current_thread()?;
                let (request_tx, mut request_rx) = ::tokio::sync::mpsc::unbounded_channel::<Request>();
                let server = rt.spawn(async move {
                    while let Some((q, reply)) = request_rx.recv().await {
                        let _ = reply.send(q + 1);
                    }
                });
                let m = tokio_measure(h, &rt, |n| {
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
                m
            }
        };
        Ok(m.into())
    }
}
