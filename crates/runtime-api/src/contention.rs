//! Contention between CPUs as a runtime implements it: Ben-Asher & Feitelson 1991 §8's fetch-and-add and barrier, and a
//! contended lock (docs/ARCHITECTURE.md "Runtimes under test"). `sync.faa`, `sync.barrier` and
//! `sync.mutex` are written once against [`Contention`]; `os` and `openmp` implement it in their modules.

use overhead_harness::Harness;
use overhead_record::Outcome;

/// `sync.faa`'s implementations (its `impl:` parameter), across runtimes; each runtime offers some
/// ([`super::Offers::atomic`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AtomicImpl {
    /// The CPU's atomic add (`lock xadd` on x86-64; Go's `sync/atomic`, Java's `AtomicLong`).
    Hw,
    /// Ben-Asher & Feitelson 1991 §8.1's `faa`: the address hashed to one of 256 test-and-set spin locks, a plain add under it.
    HashedLock,
    /// `#pragma omp atomic`.
    OmpAtomic,
}

/// `sync.faa`'s `variable:` parameter: Ben-Asher & Feitelson 1991 §8.1's two cases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Variable {
    /// All threads on one counter: its line moves between CPUs.
    Shared,
    /// Each thread on its own counter, alone on a 128-byte block.
    Distinct,
}

/// `sync.barrier`'s implementations (its `impl:` parameter), across runtimes ([`super::Offers::barrier`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BarrierImpl {
    /// `std::sync::Barrier` (mutex and condition variable).
    Std,
    /// A sense-reversing spin barrier (Ben-Asher & Feitelson's counter-and-flag `sync`).
    Spin,
    /// POSIX `pthread_barrier_wait`.
    Pthread,
    /// `#pragma omp barrier`.
    OmpBarrier,
    /// Java's `CyclicBarrier`, Go's barrier of a mutex and condition (the external probes).
    Cyclic,
}

/// `sync.mutex`'s locks (its `lock:` parameter), across runtimes ([`super::Offers::lock`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LockImpl {
    /// `std::sync::Mutex`.
    Std,
    /// A test-and-test-and-set lock with backoff.
    Spin,
    /// Drepper's three-state futex lock.
    Futex,
    /// `parking_lot::Mutex`: one byte, an uncontended CAS, then spinning and parking in its own queue
    /// (the lock of parking_lot's own lock benchmark).
    ParkingLot,
    /// The `spin` crate's `spin::Mutex` (a compare-and-swap, then spinning on a read, without backoff and
    /// never sleeping), named `spin_crate` because `lock:spin` is already our own TTAS lock and point names are public.
    SpinCrate,
    /// `omp_lock_t`.
    OmpLock,
    /// Go's `sync.Mutex`.
    Mutex,
    /// Java's `synchronized` block.
    Synchronized,
    /// Java's `ReentrantLock`.
    Reentrant,
}

/// `sync.rwlock`'s reader-writer locks (its `lock:` parameter), across runtimes ([`super::Offers::rwlock`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RwLockImpl {
    /// `std::sync::RwLock`.
    Std,
    /// `parking_lot::RwLock`.
    ParkingLot,
    /// The `spin` crate's `spin::RwLock` (readers and the writer on one spinning word), named `spin_crate`
    /// like [`LockImpl::SpinCrate`].
    SpinCrate,
    /// Go's `sync.RWMutex` (the `go` probe, probes/go/contention.go).
    RwMutex,
    /// Java's non-fair `ReentrantReadWriteLock` (the Java probe, probes/java ContentionFamily).
    ReentrantRw,
    /// Java's `StampedLock`, its pessimistic read and write locks (the Java probe, probes/java ContentionFamily).
    Stamped,
}

/// Whether operation `i` (from 0, counted per batch) of a `sync.rwlock` thread writes when `writers_percent`
/// of the operations write: `(i × writers) mod 100 < writers`. Every 100 consecutive operations hold exactly
/// `writers_percent` writes, spread evenly (10 %: every tenth; 50 %: every other one; 1 %: one in a hundred),
/// so no thread runs a burst of writes. The external probes use the same rule.
#[inline(always)]
pub fn rwlock_writes(i: u64, writers_percent: u32) -> bool {
    let w = u64::from(writers_percent);
    (i.wrapping_mul(w)) % 100 < w
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
    fn fetch_and_add(
        &self,
        implementation: AtomicImpl,
        variable: Variable,
        cpus: &[usize],
        h: &Harness,
    ) -> anyhow::Result<Outcome>;
    /// `sync.barrier`: one barrier episode per operation.
    ///
    /// Errors: an `implementation` the runtime does not offer; the barrier or the team could not be created.
    fn barrier(&self, implementation: BarrierImpl, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome>;
    /// `sync.mutex`: lock, increment a shared counter, unlock, per operation.
    ///
    /// Errors: a `lock` the runtime does not offer; the team could not start; the lock lost an update.
    fn lock(&self, lock: LockImpl, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome>;
}
