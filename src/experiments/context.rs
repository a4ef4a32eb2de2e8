//! From a point's runtime name to the runtime's implementation of the capability an experiment uses
//! (docs/ARCHITECTURE.md "Runtimes under test"). Plans only make points for runtimes that have it; a
//! hand-written probe job may name another, and gets this error.

use crate::record::PointSpec;
use crate::runtimes::activity_barrier::ActivityBarrier;
use crate::runtimes::contention::Contention;
use crate::runtimes::fan_out::FanOut;
use crate::runtimes::primitives::{Context, Primitives};
use crate::runtimes::wake_all::WakeAll;
use crate::runtimes::yield_round::YieldRound;
use crate::runtimes::RuntimeUnderTest;

/// The error for a point whose runtime the experiment does not implement (plans never make one; a
/// hand-written probe job can).
pub fn unimplemented_runtime(spec: &PointSpec) -> anyhow::Error {
    anyhow::anyhow!("{} does not implement runtime {}", spec.experiment, spec.runtime)
}

/// The point's runtime's implementation behind `get`.
///
/// Errors: the runtime is not in the registry, or `get` gives nothing for it.
fn capability_of<T: ?Sized>(
    spec: &PointSpec,
    get: impl FnOnce(&'static dyn RuntimeUnderTest) -> Option<&'static T>,
) -> anyhow::Result<&'static T> {
    crate::runtimes::find(&spec.runtime).and_then(get).ok_or_else(|| unimplemented_runtime(spec))
}

/// The seed 004 primitives of the point's runtime, for the experiments of seed 004's table.
///
/// Errors: as [`capability_of`].
pub fn primitives_of(spec: &PointSpec) -> anyhow::Result<&'static dyn Primitives> {
    capability_of(spec, |r| r.primitives())
}

/// The point's runtime's contention between CPUs (`sync.faa`, `sync.barrier`, `sync.mutex`).
///
/// Errors: as [`capability_of`].
pub fn contention_of(spec: &PointSpec) -> anyhow::Result<&'static dyn Contention> {
    capability_of(spec, |r| r.contention())
}

/// The point's runtime's own context for single-thread loops (`base.loop`, `base.call`).
///
/// Errors: as [`capability_of`].
pub fn context_of(spec: &PointSpec) -> anyhow::Result<&'static dyn Context> {
    capability_of(spec, |r| r.context())
}

/// The point's runtime's yield round (`sched.yield`).
///
/// Errors: as [`capability_of`].
pub fn yield_round_of(spec: &PointSpec) -> anyhow::Result<&'static dyn YieldRound> {
    capability_of(spec, |r| r.yield_round())
}

/// The point's runtime's wake-all (`sched.broadcast`).
///
/// Errors: as [`capability_of`].
pub fn wake_all_of(spec: &PointSpec) -> anyhow::Result<&'static dyn WakeAll> {
    capability_of(spec, |r| r.wake_all())
}

/// The point's runtime's fork-join fan-out (`spawn.forkjoin`, `spawn.bulk`, `spawn.remote`, `grain.sweep`).
///
/// Errors: as [`capability_of`].
pub fn fan_out_of(spec: &PointSpec) -> anyhow::Result<&'static dyn FanOut> {
    capability_of(spec, |r| r.fan_out())
}

/// The point's runtime's many activities on a barrier (`sync.oversub`).
///
/// Errors: as [`capability_of`].
pub fn activity_barrier_of(spec: &PointSpec) -> anyhow::Result<&'static dyn ActivityBarrier> {
    capability_of(spec, |r| r.activity_barrier())
}
