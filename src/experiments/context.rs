//! Running a measurement inside a runtime's own context: on a fiber for `fiber-*`, under tokio's
//! `block_on` for `tokio`, directly for `os`. Experiments write the operation; this file decides where
//! the harness loop runs.

use std::future::Future;

use anyhow::Context as _;

use super::empty_loop;
use crate::harness::{Harness, Measurement};
use crate::record::PointSpec;
use crate::runtimes::{fiber, tokio_rt, Runtime};

/// Resolves `spec.runtime` or fails with the name.
pub fn runtime_of(name: &str) -> anyhow::Result<Runtime> {
    Runtime::parse(name).with_context(|| format!("runtime {name:?} is not implemented in this build"))
}

/// Runs `body` with the harness inside `runtime`'s context and returns what it returns: on the calling
/// thread for `os` and `openmp`, as the first fiber of a fiber run, or inside tokio's `block_on` (the harness loop
/// then runs on the runtime's thread as a task would, without awaiting).
///
/// Errors: tokio could not start its runtime, or the fiber back-end is not available on this target.
pub fn in_context<R: 'static>(
    runtime: Runtime,
    h: &Harness,
    body: impl FnOnce(&Harness) -> R + 'static,
) -> anyhow::Result<R> {
    let h = h.clone();
    match runtime {
        Runtime::Os => Ok(body(&h)),
        Runtime::Fiber(backend) => {
            backend.available().map_err(anyhow::Error::msg)?;
            Ok(fiber::run(backend, move || body(&h)))
        }
        Runtime::Tokio => {
            let rt = tokio_rt::current_thread().context("starting tokio's current-thread runtime")?;
            Ok(rt.block_on(async move { body(&h) }))
        }
        // rayon has no single-thread context of its own; its experiments drive a pool directly.
        Runtime::Rayon => anyhow::bail!("rayon has no single-thread context; this experiment drives it directly"),
        // The calling thread is the OpenMP master; kernels fork their team from it.
        Runtime::OpenMp => Ok(body(&h)),
    }
}

/// The error for a point whose runtime the experiment does not implement (plans never make one; a
/// hand-written probe job can).
pub fn unimplemented_runtime(spec: &PointSpec) -> anyhow::Error {
    anyhow::anyhow!("{} does not implement runtime {}", spec.experiment, spec.runtime)
}

/// Measures an async operation on tokio's current-thread runtime: every batch is one `block_on` of a
/// future that awaits the operation `n` times; the control is a `block_on` of the empty loop, so the
/// cost of entering and leaving the runtime per batch cancels.
pub fn tokio_measure<F, Fut>(h: &Harness, rt: &::tokio::runtime::Runtime, test: F) -> Measurement
where
    F: Fn(u64) -> Fut,
    Fut: Future<Output = ()>,
{
    h.measure(|n| rt.block_on(test(n)), |n| rt.block_on(async move { empty_loop(n) }))
}

/// Runs `partner` on a kernel thread pinned to `cpu` while `timed` runs on the calling thread, then
/// calls `stop` (which must make `partner` return) and waits for the partner. For `os` points whose
/// operation needs a second activity: an echo server, a semaphore ping-pong partner.
pub fn with_partner<M>(cpu: usize, partner: impl FnOnce() + Send, timed: impl FnOnce() -> M, stop: impl FnOnce()) -> M {
    std::thread::scope(|s| {
        s.spawn(move || {
            // A refused pin leaves the partner wherever the kernel puts it; the point's CPUs still say
            // what was asked, and the home thread's own pinning is reported by the probe.
            let _ = crate::machine::pin_current_thread(cpu);
            partner();
        });
        let m = timed();
        stop();
        m
    })
}
