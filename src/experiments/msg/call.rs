//! `msg.call`: an inter-task call, answered in the caller's activity or by a new one.

use std::future::Future;
use std::hint::black_box;
use std::pin::Pin;

use crate::experiments::context::{in_context, runtime_of, tokio_measure, unimplemented_runtime};
use crate::experiments::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned};
use crate::harness::Harness;
use crate::record::{Metric, PointSpec};
use crate::runtimes::Capability;
use crate::runtimes::{fiber, tokio_rt, Runtime};

/// The operation being called: one argument in, one result out.
fn operation(x: u64) -> u64 {
    x.wrapping_add(1)
}

/// An async operation behind a boxed trait object, as `async-trait` and service stacks call across a
/// component boundary without a new task.
fn boxed_operation(x: u64) -> Pin<Box<dyn Future<Output = u64>>> {
    Box::pin(async move { operation(x) })
}

/// Seed 004's "interresource call, no new process" and "…, new process". `new_task:no`: the call goes
/// through an opaque operation reference and runs in the caller's activity (`os`, `fiber-*`: a
/// `&dyn Fn`; `tokio`: awaiting a boxed `dyn Future`, the async-trait shape). `new_task:yes`: the
/// callee runs in a new activity and the caller waits for its result (`os`: a thread, spawn + join;
/// `fiber-*`: `spawn` + `join`; `tokio`: `tokio::spawn` + awaiting the `JoinHandle`). Per call.
pub struct Call;

impl Experiment for Call {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: "msg.call",
            summary: "inter-task call answered in the caller's activity, or by a new activity",
            source: "seed 004 timing table, \"interresource call, no new process / new process\"",
            metric: Metric::Rtt,
            requires: &[Capability::Call],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &str) -> Vec<Planned> {
        ["no", "yes"]
            .iter()
            .map(|new| {
                Planned::Run(ctx.spec(self.id(), runtime, &[("new_task", new.to_string())], vec![ctx.home_cpu()]))
            })
            .collect()
    }
    fn run(&self, spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
        let new_task = match spec.param("new_task") {
            Some("no") => false,
            Some("yes") => true,
            other => anyhow::bail!("unknown msg.call new_task {other:?}; expected no or yes"),
        };
        let runtime = runtime_of(&spec.runtime)?;
        let m = match (runtime, new_task) {
            (Runtime::Rayon | Runtime::OpenMp, _) => return Err(unimplemented_runtime(spec)),
            (Runtime::Os | Runtime::Fiber(_), false) => in_context(runtime, h, |h| {
                let op: &dyn Fn(u64) -> u64 = black_box(&operation);
                h.measure(
                    |n| {
                        for i in 0..n {
                            black_box(op(i));
                        }
                    },
                    empty_loop,
                )
            })?,
            (Runtime::Os, true) => h.measure(
                |n| {
                    for i in 0..n {
                        black_box(std::thread::spawn(move || operation(i)).join().ok());
                    }
                },
                empty_loop,
            ),
            (Runtime::Fiber(_), true) => in_context(runtime, h, |h| {
                h.measure(
                    |n| {
                        for i in 0..n {
                            black_box(fiber::spawn(move || operation(i)).join().ok());
                        }
                    },
                    empty_loop,
                )
            })?,
            (Runtime::Tokio, false) => {
                let rt = tokio_rt::current_thread()?;
                tokio_measure(h, &rt, |n| async move {
                    for i in 0..n {
                        black_box(boxed_operation(i).await);
                    }
                })
            }
            (Runtime::Tokio, true) => {
                let rt = tokio_rt::current_thread()?;
                tokio_measure(h, &rt, |n| async move {
                    for i in 0..n {
                        black_box(::tokio::spawn(async move { operation(i) }).await.ok());
                    }
                })
            }
        };
        Ok(m.into())
    }
}
