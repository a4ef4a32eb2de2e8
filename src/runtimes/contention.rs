//! Contention between CPUs as a runtime implements it: seed 001 §8's fetch-and-add and barrier, and a
//! contended lock (docs/ARCHITECTURE.md "Runtimes under test"). `sync.faa`, `sync.barrier` and
//! `sync.mutex` are written once against [`Contention`]; `os` and `openmp` implement it in their modules.

use crate::harness::Harness;
use crate::record::Outcome;

/// [`super::Capability::BETWEEN_CPUS`]: one thread per CPU of `cpus` (pinned, started together), each
/// doing `n` operations per batch; the time per operation is the slowest thread's, against the runtime's
/// empty loop. Implementation names are the runtime's own (the points' `impl:` and `lock:` values).
pub trait Contention: Sync {
    /// The `impl:` values of `sync.faa` this runtime has, in plan order.
    fn atomic_impls(&self) -> &'static [&'static str];
    /// `sync.faa`: every thread adds 1 to one shared counter (`shared`) or to its own, on its own line.
    ///
    /// Errors: `implementation` is not one of [`Contention::atomic_impls`]; the team could not start.
    fn fetch_and_add(&self, implementation: &str, shared: bool, cpus: &[usize], h: &Harness)
        -> anyhow::Result<Outcome>;
    /// The `impl:` values of `sync.barrier` this runtime has, in plan order.
    fn barrier_impls(&self) -> &'static [&'static str];
    /// `sync.barrier`: one barrier episode per operation.
    ///
    /// Errors: unknown `implementation`; the barrier or the team could not be created.
    fn barrier(&self, implementation: &str, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome>;
    /// The `lock:` values of `sync.mutex` this runtime has, in plan order.
    fn lock_impls(&self) -> &'static [&'static str];
    /// `sync.mutex`: lock, increment a shared counter, unlock, per operation.
    ///
    /// Errors: unknown `implementation`; the team could not start; the lock lost an update.
    fn lock(&self, implementation: &str, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome>;
}
