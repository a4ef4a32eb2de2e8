//! Running a measurement inside a runtime's own context: on a fiber for `fiber-*`, under tokio's
//! `block_on` for `tokio`, directly for `os`. Experiments write the operation; this file decides where
//! the harness loop runs.

use anyhow::Context as _;

use crate::harness::Harness;
use crate::record::PointSpec;
use crate::runtimes::primitives::{Context, Primitives};
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

/// The seed 004 primitives of the point's runtime, for the experiments of seed 004's table.
///
/// Errors: the runtime is not in the registry or has no seed 004 primitives (plans never make such a
/// point; a hand-written probe job can).
pub fn primitives_of(spec: &PointSpec) -> anyhow::Result<&'static dyn Primitives> {
    crate::runtimes::find(&spec.runtime).and_then(|r| r.primitives()).ok_or_else(|| unimplemented_runtime(spec))
}

/// The point's runtime's contention between CPUs (`sync.faa`, `sync.barrier`, `sync.mutex`).
///
/// Errors: the runtime is not in the registry or has no such capability.
pub fn contention_of(spec: &PointSpec) -> anyhow::Result<&'static dyn crate::runtimes::contention::Contention> {
    crate::runtimes::find(&spec.runtime).and_then(|r| r.contention()).ok_or_else(|| unimplemented_runtime(spec))
}

/// The point's runtime's own context for single-thread loops (`base.loop`, `base.call`).
///
/// Errors: the runtime is not in the registry or has no context of its own.
pub fn context_of(spec: &PointSpec) -> anyhow::Result<&'static dyn Context> {
    crate::runtimes::find(&spec.runtime).and_then(|r| r.context()).ok_or_else(|| unimplemented_runtime(spec))
}
