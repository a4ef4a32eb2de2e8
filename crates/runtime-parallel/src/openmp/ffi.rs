//! The C side of the `openmp` runtime (`crates/runtime-parallel/c/omp/overhead_omp.h`), declared once: linked kernels when build.rs
//! built them (cfg `overhead_openmp`), otherwise stubs with the same signatures that are never reached
//! because no [`Team`](super::Team) can be made (`available()` is `Err`).

use std::cell::Cell;
use std::ffi::{c_int, c_void};

/// One counter alone on a 128-byte block, C's `ovh_slot`: the kernels write per-thread counts and
/// fetch-and-add targets here. `Cell` because C writes it while Rust holds only shared references.
#[repr(C, align(128))]
#[derive(Debug, Default)]
pub struct Slot {
    pub value: Cell<u64>,
}

/// C's `ovh_omp_thread_fn`: (context, thread number, team size).
pub type ThreadFn = extern "C" fn(ctx: *mut c_void, thread: c_int, size: c_int);

/// Declares the kernels: an `extern "C"` block when they are linked, panicking stubs when they are not.
macro_rules! kernels {
    ($( fn $name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)?; )*) => {
        #[cfg(overhead_openmp)]
        extern "C" {
            $( pub fn $name($($arg: $ty),*) $(-> $ret)?; )*
        }
        $(
            #[cfg(not(overhead_openmp))]
            #[allow(unused_variables)]
            pub unsafe fn $name($($arg: $ty),*) $(-> $ret)? {
                unreachable!(concat!(stringify!($name), " called in a build without OpenMP"))
            }
        )*
    };
}

kernels! {
    fn ovh_omp_slot_size() -> usize;
    fn ovh_omp_spec_version() -> c_int;
    fn ovh_omp_each(threads: c_int, f: ThreadFn, ctx: *mut c_void);
    fn ovh_omp_empty_loop(reps: u64);
    fn ovh_omp_team_loop(threads: c_int, reps: u64);
    fn ovh_omp_single_loop(threads: c_int, n: u64);
    fn ovh_omp_serial_reads(total_reads: u64);
    fn ovh_omp_forkjoin(threads: c_int, reps: u64);
    fn ovh_omp_barrier(threads: c_int, reps: u64);
    fn ovh_omp_bulk(threads: c_int, ntasks: u64);
    fn ovh_omp_remote(threads: c_int, ntasks: u64, per_thread: *mut Slot);
    fn ovh_omp_remote_control(threads: c_int, ntasks: u64);
    fn ovh_omp_grain(threads: c_int, total_reads: u64, ntasks: u64, per_thread: *mut Slot);
    fn ovh_omp_faa(threads: c_int, reps: u64, distinct: c_int, slots: *mut Slot) -> u64;
    fn ovh_omp_mutex(threads: c_int, reps: u64) -> u64;
}
