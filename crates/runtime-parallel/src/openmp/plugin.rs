//! The `openmp` runtime as a plug-in.

use overhead_runtime_api::contention::{AtomicImpl, BarrierImpl, LockImpl};
use overhead_runtime_api::fan_out::ForkJoinMechanism;
use overhead_runtime_api::{Offer, Offers, RuntimeUnderTest, KERNEL_UNDER_OS};

/// What `openmp` offers: fork-join fan-out and contention between CPUs, as C kernels of a pinned team.
const OFFERS: Offers = Offers {
    context: Offer::Lacks("its code runs as C kernels on the calling thread: a loop there is os's loop"),
    kernel: Offer::Lacks(KERNEL_UNDER_OS),
    yield_round: Offer::Lacks(super::NO_YIELD),
    wake_all: Offer::Lacks(
        "OpenMP has no wait/notify between threads: a thread waits only at a barrier (sync.barrier) or a lock \
         (sync.mutex), and both release every waiter as part of the construct",
    ),
    fork_join: Offer::Has(&[ForkJoinMechanism::Parallel]),
    activity_barrier: Offer::Lacks(
        "an OpenMP team is sized and pinned to the CPUs (one thread each); oversubscribing it (OMP_NUM_THREADS \
         ≫ CPUs) makes libgomp's spinning barrier the study's spin-with-yield case, which the os runtime \
         measures directly",
    ),
    atomic: Offer::Has(&[AtomicImpl::OmpAtomic]),
    barrier: Offer::Has(&[BarrierImpl::OmpBarrier]),
    lock: Offer::Has(&[LockImpl::OmpLock]),
    rwlock: Offer::Lacks("OpenMP has no reader-writer lock (omp_lock_t is exclusive)"),
    ipc: Offer::Lacks(overhead_runtime_api::IPC_UNDER_OS),
    ..Offers::lacking("Souvatzis's primitives are not written as OpenMP kernels in this build")
};

/// C kernels run by the OpenMP runtime library (libgomp) through FFI.
pub struct OpenMp;

impl RuntimeUnderTest for OpenMp {
    fn name(&self) -> &'static str {
        "openmp"
    }
    fn about(&self) -> &'static str {
        "C kernels in crates/runtime-parallel/c/omp run by libgomp through FFI"
    }
    fn available(&self) -> Result<(), String> {
        super::available()
    }
    overhead_runtime_api::capabilities!(contention, fan_out, grain_sweep);
    fn offers(&self) -> &Offers {
        &OFFERS
    }
}
