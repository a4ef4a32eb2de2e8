//! `msg.async`: an asynchronous send and its receive, with no context switch.

use std::hint::black_box;

use crate::experiments::context::{in_context, runtime_of, tokio_measure, unimplemented_runtime};
use crate::experiments::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned};
use crate::harness::Harness;
use crate::record::{Metric, PointSpec};
use crate::runtimes::Capability;
use crate::runtimes::{fiber, tokio_rt, Runtime};

/// Seed 004's "asynchronous send/receive": one activity sends a message to a channel and receives it
/// back itself, so the receive never blocks and nothing switches. `os`: `std::sync::mpsc::channel`;
/// `fiber-*`: the runtime's channel; `tokio`: `tokio::sync::mpsc::unbounded_channel`. Per send + receive.
pub struct AsyncSend;

impl Experiment for AsyncSend {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: "msg.async",
            summary: "asynchronous send + receive of a u64 on one activity, no switch",
            source: "seed 004 timing table, \"asynchronous send/receive\"",
            metric: Metric::PerOp,
            requires: &[Capability::Channel],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &str) -> Vec<Planned> {
        ctx.single(self.id(), runtime)
    }
    fn run(&self, spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
        let m = match runtime_of(&spec.runtime)? {
            Runtime::Rayon | Runtime::OpenMp => return Err(unimplemented_runtime(spec)),
            Runtime::Os => {
                let (tx, rx) = std::sync::mpsc::channel::<u64>();
                h.measure(
                    |n| {
                        for i in 0..n {
                            tx.send(i).expect("receiver alive");
                            black_box(rx.recv().expect("sender alive"));
                        }
                    },
                    empty_loop,
                )
            }
            Runtime::Fiber(backend) => in_context(Runtime::Fiber(backend), h, |h| {
                let ch = fiber::Channel::<u64>::new();
                h.measure(
                    |n| {
                        for i in 0..n {
                            ch.send(i);
                            black_box(ch.recv());
                        }
                    },
                    empty_loop,
                )
            })?,
            Runtime::Tokio => {
                let rt = tokio_rt::current_thread()?;
                let (tx, rx) = ::tokio::sync::mpsc::unbounded_channel::<u64>();
                let rx = ::tokio::sync::Mutex::new(rx);
                tokio_measure(h, &rt, |n| {
                    let (tx, rx) = (&tx, &rx);
                    async move {
                        let mut rx = rx.lock().await;
                        for i in 0..n {
                            tx.send(i).expect("receiver alive");
                            black_box(rx.recv().await);
                        }
                    }
                })
            }
        };
        Ok(m.into())
    }
}
