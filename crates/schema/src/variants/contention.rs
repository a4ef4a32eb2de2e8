//! The implementations the `sync.*` points are named after (`impl:`, `lock:`, `variable:`); measuring them is
//! `overhead_runtime_api::contention` and the runtimes'.

/// `sync.faa`'s implementations (its `impl:` parameter), across runtimes; each runtime offers some
/// (`overhead_runtime_api::Offers::atomic`).
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

/// `sync.barrier`'s implementations (its `impl:` parameter), across runtimes (`overhead_runtime_api::Offers::barrier`).
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

/// `sync.mutex`'s locks (its `lock:` parameter), across runtimes (`overhead_runtime_api::Offers::lock`).
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

/// `sync.rwlock`'s reader-writer locks (its `lock:` parameter), across runtimes (`overhead_runtime_api::Offers::rwlock`).
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
