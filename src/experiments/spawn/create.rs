//! `spawn.create`: create an empty activity and wait for its end.

use std::hint::black_box;

use anyhow::Context as _;

use crate::experiments::context::{in_context, runtime_of, tokio_measure, unimplemented_runtime};
use crate::experiments::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned};
use crate::harness::Harness;
use crate::record::{Metric, PointSpec};
use crate::runtimes::Capability;
use crate::runtimes::{fiber, tokio_rt, Runtime};

/// Seed 004's "process create/destroy" for kernel activities: `std::thread::spawn` of an empty closure
/// plus `join`, and `fork` of a child that `_exit`s plus `waitpid` (lmbench's `lat_proc fork`).
/// The new activity inherits the creator's CPU, so the point measures creation on one CPU. For the
/// fiber runtimes: `spawn` of an empty fiber plus `join` (a pooled stack, two switches); for tokio:
/// `tokio::spawn` of an empty task plus awaiting its `JoinHandle` (`kind:task`).
pub struct Create;

impl Experiment for Create {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: "spawn.create",
            summary: "create + join an empty thread; fork + wait a process; spawn + join a fiber or tokio task",
            source: "seed 004 timing table, \"process create/destroy\"; lmbench lat_proc fork",
            metric: Metric::PerOp,
            requires: &[Capability::SpawnJoin],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &str) -> Vec<Planned> {
        let kinds: &[&str] = if runtime == "os" { &["thread", "process"] } else { &["task"] };
        kinds
            .iter()
            .map(|kind| Planned::Run(ctx.spec(self.id(), runtime, &[("kind", kind.to_string())], vec![ctx.home_cpu()])))
            .collect()
    }
    fn run(&self, spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
        match runtime_of(&spec.runtime)? {
            Runtime::Fiber(backend) => {
                let m = in_context(Runtime::Fiber(backend), h, |h| {
                    h.measure(
                        |n| {
                            for _ in 0..n {
                                black_box(fiber::spawn(|| black_box(0u8)).join().ok());
                            }
                        },
                        empty_loop,
                    )
                })?;
                return Ok(m.into());
            }
            Runtime::Tokio => {
                let rt = tokio_rt::current_thread()?;
                let m = tokio_measure(h, &rt, |n| async move {
                    for _ in 0..n {
                        black_box(::tokio::spawn(async { black_box(0u8) }).await.ok());
                    }
                });
                return Ok(m.into());
            }
            Runtime::Os => {}
            Runtime::Rayon | Runtime::OpenMp => return Err(unimplemented_runtime(spec)),
        }
        match spec.param("kind") {
            Some("thread") => {
                // Spawn failures (out of threads) panic inside std; check once before timing instead.
                std::thread::Builder::new().spawn(|| ()).context("creating a thread")?.join().ok();
                Ok(h.measure(
                    |n| {
                        for _ in 0..n {
                            black_box(std::thread::spawn(|| black_box(0u8)).join().ok());
                        }
                    },
                    empty_loop,
                )
                .into())
            }
            Some("process") => {
                fork_and_wait().context("forking a child process")?;
                Ok(h.measure(
                    |n| {
                        for _ in 0..n {
                            black_box(fork_and_wait().ok());
                        }
                    },
                    empty_loop,
                )
                .into())
            }
            other => {
                anyhow::bail!("unknown spawn.create kind {other:?}; expected thread or process")
            }
        }
    }
}

/// Forks a child that exits at once, and reaps it. Errors: fork or waitpid failed.
#[inline]
fn fork_and_wait() -> std::io::Result<()> {
    // SAFETY: the child calls only _exit, which is async-signal-safe, so forking from a process that
    // might have other threads is sound.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(std::io::Error::last_os_error());
    }
    if pid == 0 {
        // SAFETY: ends the child at once, running no destructors or atexit handlers of the parent.
        unsafe { libc::_exit(0) };
    }
    let mut status = 0;
    // SAFETY: `pid` is our own child; `status` is a valid int.
    if unsafe { libc::waitpid(pid, &mut status, 0) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn fork_and_wait_succeeds_repeatedly() {
        for _ in 0..20 {
            super::fork_and_wait().unwrap();
        }
    }
}
