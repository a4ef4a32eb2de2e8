//! `msg.switch`: message passing that requires a context switch.

use std::hint::black_box;

use crate::experiments::context::{in_context, runtime_of, tokio_measure, unimplemented_runtime, with_partner};
use crate::experiments::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned};
use crate::harness::Harness;
use crate::record::{Metric, PointSpec};
use crate::runtimes::Capability;
use crate::runtimes::{fiber, tokio_rt, Runtime};

/// Sentinel that ends the echo partner.
const STOP: u64 = u64::MAX;

/// Seed 004's "message passing requiring context switch": the timed activity sends to a partner that
/// is blocked receiving, then blocks receiving the partner's echo; each message wakes a blocked
/// receiver and switches to it. Reported per message (half a round trip). `os`: two threads pinned to
/// the same CPU with `std::sync::mpsc`; `fiber-*`: two fibers and the runtime's channels; `tokio`: two
/// tasks and unbounded mpsc channels.
pub struct Switch;

impl Experiment for Switch {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: "msg.switch",
            summary: "message to a blocked receiver and its echo back, per message (half a round trip)",
            source: "seed 004 timing table, \"message passing requiring context switch\"",
            metric: Metric::OneWay,
            requires: &[Capability::MessageSwitch],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &str) -> Vec<Planned> {
        ctx.same_cpu_pair(self.id(), runtime, &[])
    }
    fn run(&self, spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
        let m = match runtime_of(&spec.runtime)? {
            Runtime::Rayon | Runtime::OpenMp => return Err(unimplemented_runtime(spec)),
            Runtime::Os => {
                let (to_partner, partner_rx) = std::sync::mpsc::channel::<u64>();
                let (partner_tx, from_partner) = std::sync::mpsc::channel::<u64>();
                with_partner(
                    spec.cpus[1],
                    move || {
                        while let Ok(v) = partner_rx.recv() {
                            if v == STOP || partner_tx.send(v).is_err() {
                                break;
                            }
                        }
                    },
                    || {
                        h.measure(
                            |n| {
                                for i in 0..n {
                                    to_partner.send(i).expect("partner alive");
                                    black_box(from_partner.recv().expect("partner alive"));
                                }
                            },
                            empty_loop,
                        )
                    },
                    || {
                        let _ = to_partner.send(STOP);
                    },
                )
            }
            Runtime::Fiber(backend) => in_context(Runtime::Fiber(backend), h, |h| {
                let (to_partner, from_partner) = (fiber::Channel::<u64>::new(), fiber::Channel::<u64>::new());
                let partner = {
                    let (rx, tx) = (to_partner.clone(), from_partner.clone());
                    fiber::spawn(move || loop {
                        let v = rx.recv();
                        if v == STOP {
                            break;
                        }
                        tx.send(v);
                    })
                };
                let m = h.measure(
                    |n| {
                        for i in 0..n {
                            to_partner.send(i);
                            black_box(from_partner.recv());
                        }
                    },
                    empty_loop,
                );
                to_partner.send(STOP);
                let _ = partner.join();
                m
            })?,
            Runtime::Tokio => {
                let rt = tokio_rt::current_thread()?;
                let (to_partner, mut partner_rx) = ::tokio::sync::mpsc::unbounded_channel::<u64>();
                let (partner_tx, from_partner) = ::tokio::sync::mpsc::unbounded_channel::<u64>();
                let partner = rt.spawn(async move {
                    while let Some(v) = partner_rx.recv().await {
                        if v == STOP || partner_tx.send(v).is_err() {
                            break;
                        }
                    }
                });
                let from_partner = ::tokio::sync::Mutex::new(from_partner);
                let m = tokio_measure(h, &rt, |n| {
                    let (tx, rx) = (&to_partner, &from_partner);
                    async move {
                        let mut rx = rx.lock().await;
                        for i in 0..n {
                            tx.send(i).expect("partner alive");
                            black_box(rx.recv().await);
                        }
                    }
                });
                let _ = to_partner.send(STOP);
                rt.block_on(partner)?;
                m
            }
        };
        Ok(m.per(2.0).into())
    }
}
