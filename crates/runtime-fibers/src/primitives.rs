//! Souvatzis's primitives on the project's fibers: every measurement runs as the first fiber of a fiber run
//! with the runtime's back-end; partners are fibers on the same kernel thread.

use overhead_runtime_api::channel_impl::ChannelImpl;
use overhead_runtime_api::offer::ensure_offered;
use overhead_runtime_api::RuntimeUnderTest as _;
use std::cell::Cell;
use std::hint::black_box;
use std::rc::Rc;

use super::{FiberRuntime, SwitchPair};
use crate as fiber;
use overhead_harness::empty_loop;
use overhead_harness::{Harness, Measurement};
use overhead_record::Outcome;
use overhead_runtime_api::offer::not_offered;
use overhead_runtime_api::primitives::{
    call_operation, Body, Context, Messages, NewTask, Primitives, SemOp, SpawnKind,
};

/// Sentinel that ends an echo partner or a server.
const STOP: u64 = u64::MAX;

impl Context for FiberRuntime {
    /// Runs `body` as the first fiber of a fiber run on this back-end.
    fn in_context(&self, h: &Harness, body: Body) -> anyhow::Result<Measurement> {
        self.backend().available().map_err(anyhow::Error::msg)?;
        let h = h.clone();
        Ok(fiber::run(self.backend(), move || body(&h)))
    }
}

impl Primitives for FiberRuntime {
    /// Through a `&dyn Fn` in the calling fiber; or `spawn` + `join` of a new fiber.
    fn call(&self, new_task: NewTask, h: &Harness) -> anyhow::Result<Measurement> {
        self.in_context(
            h,
            Box::new(move |h| {
                if new_task == NewTask::Yes {
                    h.measure(
                        |n| {
                            for i in 0..n {
                                black_box(fiber::spawn(move || call_operation(i)).join().ok());
                            }
                        },
                        empty_loop,
                    )
                } else {
                    let op: &dyn Fn(u64) -> u64 = black_box(&call_operation);
                    h.measure(
                        |n| {
                            for i in 0..n {
                                black_box(op(i));
                            }
                        },
                        empty_loop,
                    )
                }
            }),
        )
    }

    /// `spawn` of an empty fiber plus `join` (a pooled stack, two switches).
    fn spawn_join(&self, kind: SpawnKind, h: &Harness) -> anyhow::Result<Measurement> {
        match kind {
            SpawnKind::Task => {}
            other @ (SpawnKind::Thread | SpawnKind::Process) => {
                return Err(not_offered(self.name_str(), "kind", other))
            }
        }
        self.in_context(
            h,
            Box::new(|h| {
                h.measure(
                    |n| {
                        for _ in 0..n {
                            black_box(fiber::spawn(|| black_box(0u8)).join().ok());
                        }
                    },
                    empty_loop,
                )
            }),
        )
    }

    /// The runtime's semaphores; the switch partner is a fiber on the same thread.
    fn semaphore(&self, op: SemOp, _partner_cpu: usize, h: &Harness) -> anyhow::Result<Measurement> {
        self.in_context(h, Box::new(move |h| semaphore(op, h)))
    }

    /// The back-end's raw switch to a partner context and back, no scheduler.
    fn switch_round_trip(&self, _cpus: [usize; 2], h: &Harness) -> anyhow::Result<Outcome> {
        self.backend().available().map_err(anyhow::Error::msg)?;
        let mut pair = SwitchPair::new(self.backend())?;
        Ok(h.measure(|n| pair.round_trips(n), empty_loop).into())
    }
}

impl Messages for FiberRuntime {
    /// The runtime's channel, sender and receiver in the same fiber.
    fn async_message(&self, implementation: ChannelImpl, h: &Harness) -> anyhow::Result<Measurement> {
        ensure_offered(self.name_str(), "impl", self.offers().channel, implementation)?;
        self.in_context(
            h,
            Box::new(|h| {
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
            }),
        )
    }

    /// Two of the runtime's channels to and from an echo fiber.
    fn message_round_trip(
        &self,
        implementation: ChannelImpl,
        _partner_cpu: usize,
        h: &Harness,
    ) -> anyhow::Result<Measurement> {
        ensure_offered(self.name_str(), "impl", self.offers().message_switch, implementation)?;
        self.in_context(
            h,
            Box::new(|h| {
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
            }),
        )
    }

    /// The runtime's rendezvous, answered by a server fiber.
    fn rendezvous(&self, implementation: ChannelImpl, _partner_cpu: usize, h: &Harness) -> anyhow::Result<Measurement> {
        ensure_offered(self.name_str(), "impl", self.offers().rendezvous, implementation)?;
        self.in_context(
            h,
            Box::new(|h| {
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
            }),
        )
    }
}

/// The semaphore rows inside a fiber run.
fn semaphore(op: SemOp, h: &Harness) -> Measurement {
    let sem = fiber::Semaphore::new(op.initial_permits() as usize);
    // The fiber semaphore's fast path is a plain counter the optimiser could fold across a whole batch
    // (n P's become one subtraction); going through an opaque reference keeps one P per iteration.
    let sem_ref = || black_box(&sem);
    match op {
        SemOp::P => {
            h.measure_with_reset(|n| (0..n).for_each(|_| sem_ref().p()), empty_loop, |n| (0..n).for_each(|_| sem.v()))
        }
        SemOp::V => {
            h.measure_with_reset(|n| (0..n).for_each(|_| sem_ref().v()), empty_loop, |n| (0..n).for_each(|_| sem.p()))
        }
        SemOp::Pair => h.measure(
            |n| {
                (0..n).for_each(|_| {
                    sem_ref().v();
                    sem_ref().p()
                })
            },
            empty_loop,
        ),
        SemOp::Switch => {
            let (ping, pong) = (sem, fiber::Semaphore::new(0));
            let stop = Rc::new(Cell::new(false));
            let partner = {
                let (ping, pong, stop) = (ping.clone(), pong.clone(), stop.clone());
                fiber::spawn(move || loop {
                    ping.p();
                    if stop.get() {
                        break;
                    }
                    pong.v();
                })
            };
            let m = h.measure(
                |n| {
                    for _ in 0..n {
                        ping.v();
                        pong.p();
                    }
                },
                empty_loop,
            );
            stop.set(true);
            ping.v();
            let _ = partner.join();
            m
        }
    }
}
