//! Runtimes under test (docs/ARCHITECTURE.md "Runtimes under test"): implementations of the primitives that the
//! experiments time side by side.

pub mod activity_barrier;
pub mod async_channels;
pub mod async_runtime;
mod capability;
pub mod channel_impl;
pub mod channel_parties;
pub mod channel_throughput;
pub mod contention;
pub mod external;
pub mod external_probe;
pub mod fan_out;
pub mod fiber;
pub mod grain_sweep;
pub mod grain_tally;
pub mod grain_work;
pub mod local_runtime;
pub mod mpi;
pub mod offer;
pub mod openmp;
pub mod os;
pub mod plugin;
pub mod primitives;
pub mod rayon_rt;
mod registry;
pub mod smol_rt;
pub mod task_pool;
pub mod tokio_rt;
pub mod wake_all;
pub mod yield_barrier;
pub mod yield_round;

pub use capability::{Capability, BETWEEN_CPUS_ELSEWHERE, KERNEL_UNDER_OS, RANKS_UNDER_MPI};
pub use offer::{Offer, Offers};
pub use plugin::{implements, missing, RuntimeUnderTest};
pub use registry::{column_rank, default_run, find, names, registry};
