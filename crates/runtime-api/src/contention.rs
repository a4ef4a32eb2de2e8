//! Contention between CPUs as a runtime implements it: Ben-Asher & Feitelson 1991 §8's fetch-and-add and barrier, and a
//! contended lock (docs/ARCHITECTURE.md "Runtimes under test"). `sync.faa`, `sync.barrier` and
//! `sync.mutex` are written once against [`Contention`]; `os` and `openmp` implement it in their modules.

use overhead_harness::Harness;
use overhead_record::Outcome;
pub use overhead_schema::variants::contention::{AtomicImpl, BarrierImpl, LockImpl, RwLockImpl, Variable};

/// Whether operation `i` (from 0, counted per batch) of a `sync.rwlock` thread writes when `writers_percent`
/// of the operations write: `(i × writers) mod 100 < writers`. Every 100 consecutive operations hold exactly
/// `writers_percent` writes, spread evenly (10 %: every tenth; 50 %: every other one; 1 %: one in a hundred),
/// so no thread runs a burst of writes. The external probes use the same rule.
#[inline(always)]
pub fn rwlock_writes(i: u64, writers_percent: u32) -> bool {
    let w = u64::from(writers_percent);
    (i.wrapping_mul(w)) % 100 < w
}

/// What one `sync.faa` point adds with: the implementation, and whether every thread adds to one shared
/// counter or each to its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FetchAndAdd {
    /// The hardware's atomic add, a hashed lock around a plain add, OpenMP's `atomic`.
    pub implementation: AtomicImpl,
    /// One shared counter or one a thread.
    pub variable: Variable,
}

/// [`super::Capability::RwLock`]: one thread per CPU of `cpus` (pinned, started together) on one reader-writer
/// lock, `writers_percent` of each thread's operations writes (increment the protected counter under the write
/// lock), the rest reads (load it under the read lock), spread evenly through the batch ([`rwlock_writes`]);
/// the time per operation is the slowest thread's, against the same loop choosing reads and writes without
/// the lock (so the choice's arithmetic is subtracted, docs/METHOD.md §9).
pub trait RwLockContention: Sync {
    /// `sync.rwlock`: reads and writes on one lock by one thread per CPU of `cpus`.
    ///
    /// Errors: a `lock` the runtime does not offer; `writers_percent` over 100; the team could not start.
    fn rwlock(&self, lock: RwLockImpl, writers_percent: u32, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome>;
}

/// [`super::Capability::BETWEEN_CPUS`]: one thread per CPU of `cpus` (pinned, started together), each
/// doing `n` operations per batch; the time per operation is the slowest thread's, against the runtime's
/// empty loop. The variants a runtime has are its data ([`super::Offers`]); one it does not offer is an
/// error ([`super::offer::not_offered`]).
pub trait Contention: Sync {
    /// `sync.faa`: every thread adds 1 to one shared counter or to its own, on its own line.
    ///
    /// Errors: an `implementation` the runtime does not offer; the team could not start.
    fn fetch_and_add(&self, faa: FetchAndAdd, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome>;
    /// `sync.barrier`: one barrier episode per operation.
    ///
    /// Errors: an `implementation` the runtime does not offer; the barrier or the team could not be created.
    fn barrier(&self, implementation: BarrierImpl, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome>;
    /// `sync.mutex`: lock, increment a shared counter, unlock, per operation.
    ///
    /// Errors: a `lock` the runtime does not offer; the team could not start; the lock lost an update.
    fn lock(&self, lock: LockImpl, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome>;
}
