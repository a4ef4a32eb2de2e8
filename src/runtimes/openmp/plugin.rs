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
    fn contention(&self) -> Option<&dyn crate::runtimes::contention::Contention> {
        Some(self)
    }
    fn lacks(&self, capability: Capability) -> Option<&'static str> {
        match capability {
            Capability::Context => Some("its code runs as C kernels on the calling thread: a loop there is os's loop"),
            Capability::Kernel => Some(crate::runtimes::KERNEL_UNDER_OS),
            c if Capability::TABLE_004.contains(&c) => {
                Some("seed 004's primitives are not written as OpenMP kernels in this build")
            }
            _ => None,
        }
    }
}
