//! The `openmp` runtime as a plug-in.

use crate::runtimes::{Capability, RuntimeUnderTest};

/// C kernels run by the OpenMP runtime library (libgomp) through FFI.
pub struct OpenMp;

impl RuntimeUnderTest for OpenMp {
    fn name(&self) -> &'static str {
        "openmp"
    }
    fn about(&self) -> &'static str {
        "C kernels in c/omp run by libgomp through FFI"
    }
    fn available(&self) -> Result<(), String> {
        super::available()
    }
    crate::runtimes::plugin::capabilities!(contention, fan_out);
    fn lacks(&self, capability: Capability) -> Option<&'static str> {
        match capability {
            Capability::Context => Some("its code runs as C kernels on the calling thread: a loop there is os's loop"),
            Capability::Kernel => Some(crate::runtimes::KERNEL_UNDER_OS),
            c if Capability::TABLE_004.contains(&c) => {
                Some("seed 004's primitives are not written as OpenMP kernels in this build")
            }
            Capability::Yield => Some(super::NO_YIELD),
            Capability::WakeAll => Some(
                "OpenMP has no wait/notify between threads: a thread waits only at a barrier (sync.barrier) or a lock \
                 (sync.mutex), and both release every waiter as part of the construct",
            ),
            Capability::ActivityBarrier => Some(
                "an OpenMP team is sized and pinned to the CPUs (one thread each); oversubscribing it (OMP_NUM_THREADS \
                 ≫ CPUs) makes libgomp's spinning barrier the seed's spin-with-yield case, which the os runtime \
                 measures directly",
            ),
            _ => None,
        }
    }
}
