//! `sync.sem`: semaphore P only, V only, a pair, and a handoff that requires a context switch.

use std::cell::Cell;
use std::hint::black_box;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::experiments::context::{in_context, runtime_of, tokio_measure, unimplemented_runtime, with_partner};
use crate::experiments::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned};
use crate::harness::{Harness, Measurement};
use crate::record::{Metric, PointSpec};
use crate::runtimes::os::sem::PosixSemaphore;
use crate::runtimes::Capability;
use crate::runtimes::{fiber, tokio_rt, Runtime};

/// Permits a P-only semaphore starts with. A test batch never takes more than the harness's batch cap,
/// and the reset after each batch gives its permits back, so P never blocks; below POSIX's
/// SEM_VALUE_MAX (2^31 − 1).
const PLENTY: u32 = 1 << 30;

/// The four semaphore rows of seed 004's table. `op:p`: P on a semaphore with plenty of permits (never
/// blocks); `op:v`: V with no waiter; `op:pair`: V then P; `op:switch`: two activities on one CPU pass a
/// permit back and forth through two semaphores, each handoff a V that wakes a blocked P plus a context
/// switch (reported per handoff, half a round trip). `os` uses POSIX `sem_t` on two threads pinned to
/// the same CPU, `fiber-*` the runtime's semaphores, `tokio` `tokio::sync::Semaphore`.
pub struct Sem;

impl Experiment for Sem {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: "sync.sem",
            summary: "semaphore P only, V only, P+V pair, and a handoff requiring a context switch",
            source: "seed 004 timing table, \"semaphore P only / V only / pair / requiring context switch\"",
            metric: Metric::PerOp,
            requires: &[Capability::Semaphore],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &str) -> Vec<Planned> {
        let home = ctx.home_cpu();
        ["p", "v", "pair", "switch"]
            .iter()
            .map(|op| {
                let cpus = if *op == "switch" { vec![home, home] } else { vec![home] };
                Planned::Run(ctx.spec(self.id(), runtime, &[("op", op.to_string())], cpus))
            })
            .collect()
    }
    fn run(&self, spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
        let op = Op::parse(spec.param("op"))?;
        let m = match runtime_of(&spec.runtime)? {
            Runtime::Rayon | Runtime::OpenMp => return Err(unimplemented_runtime(spec)),
            Runtime::Os => os(op, spec, h)?,
            Runtime::Fiber(backend) => in_context(Runtime::Fiber(backend), h, move |h| fiber_sem(op, h))?,
            Runtime::Tokio => tokio_sem(op, h)?,
        };
        Ok(m.into())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    P,
    V,
    Pair,
    Switch,
}

impl Op {
    fn parse(op: Option<&str>) -> anyhow::Result<Op> {
        Ok(match op {
            Some("p") => Op::P,
            Some("v") => Op::V,
            Some("pair") => Op::Pair,
            Some("switch") => Op::Switch,
            other => anyhow::bail!("unknown sync.sem op {other:?}; expected p, v, pair or switch"),
        })
    }

    fn initial_permits(self) -> u32 {
        if self == Op::P {
            PLENTY
        } else {
            0
        }
    }
}

fn os(op: Op, spec: &PointSpec, h: &Harness) -> anyhow::Result<Measurement> {
    let sem = PosixSemaphore::new(op.initial_permits())?;
    Ok(match op {
        Op::P => h.measure_with_reset(|n| (0..n).for_each(|_| sem.p()), empty_loop, |n| (0..n).for_each(|_| sem.v())),
        Op::V => h.measure_with_reset(|n| (0..n).for_each(|_| sem.v()), empty_loop, |n| (0..n).for_each(|_| sem.p())),
        Op::Pair => h.measure(
            |n| {
                (0..n).for_each(|_| {
                    sem.v();
                    sem.p()
                })
            },
            empty_loop,
        ),
        Op::Switch => {
            let (ping, pong) = (sem, PosixSemaphore::new(0)?);
            let stop = AtomicBool::new(false);
            let m = with_partner(
                spec.cpus[1],
                || loop {
                    ping.p();
                    if stop.load(Ordering::Acquire) {
                        break;
                    }
                    pong.v();
                },
                || {
                    h.measure(
                        |n| {
                            for _ in 0..n {
                                ping.v();
                                pong.p();
                            }
                        },
                        empty_loop,
                    )
                },
                || {
                    stop.store(true, Ordering::Release);
                    ping.v();
                },
            );
            m.per(2.0)
        }
    })
}

fn fiber_sem(op: Op, h: &Harness) -> Measurement {
    let sem = fiber::Semaphore::new(op.initial_permits() as usize);
    // The fiber semaphore's fast path is a plain counter the optimiser could fold across a whole batch
    // (n P's become one subtraction); going through an opaque reference keeps one P per iteration.
    let sem_ref = || black_box(&sem);
    match op {
        Op::P => {
            h.measure_with_reset(|n| (0..n).for_each(|_| sem_ref().p()), empty_loop, |n| (0..n).for_each(|_| sem.v()))
        }
        Op::V => {
            h.measure_with_reset(|n| (0..n).for_each(|_| sem_ref().v()), empty_loop, |n| (0..n).for_each(|_| sem.p()))
        }
        Op::Pair => h.measure(
            |n| {
                (0..n).for_each(|_| {
                    sem_ref().v();
                    sem_ref().p()
                })
            },
            empty_loop,
        ),
        Op::Switch => {
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
            m.per(2.0)
        }
    }
}

/// tokio's P: acquire one permit and keep it (the permit is returned by a later `add_permits`).
async fn p(sem: &::tokio::sync::Semaphore) {
    sem.acquire().await.expect("the semaphore is never closed").forget();
}

fn tokio_sem(op: Op, h: &Harness) -> anyhow::Result<Measurement> {
    use ::tokio::sync::Semaphore;
    let rt = tokio_rt::current_thread()?;
    let sem = Arc::new(Semaphore::new(op.initial_permits() as usize));
    Ok(match op {
        Op::P => tokio_measure(h, &rt, |n| {
            let sem = sem.clone();
            async move {
                for _ in 0..n {
                    p(&sem).await;
                }
            }
        }),
        Op::V => tokio_measure(h, &rt, |n| {
            let sem = sem.clone();
            async move { (0..n).for_each(|_| sem.add_permits(1)) }
        }),
        Op::Pair => tokio_measure(h, &rt, |n| {
            let sem = sem.clone();
            async move {
                for _ in 0..n {
                    sem.add_permits(1);
                    p(&sem).await;
                }
            }
        }),
        Op::Switch => {
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
            let m = tokio_measure(h, &rt, |n| {
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
            m.per(2.0)
        }
    })
}
