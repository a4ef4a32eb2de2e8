//! The plug-in interface of the runtimes under test (docs/ARCHITECTURE.md "Runtimes under test"): the
//! capability traits a runtime implements ([`RuntimeUnderTest`] and the traits behind its accessors), what
//! it offers per capability ([`Offers`]), the implementations users choose between (channels, locks,
//! barriers, wake and fork-join mechanisms) and the measuring helpers every runtime family shares. No
//! runtime lives here: each family is a crate of its own (`overhead-runtime-os`, `-fibers`, `-async`,
//! `-parallel`, `-external`) and `overhead-runtime-registry` lists them.

pub mod activity_barrier;
mod capability;
pub mod channel_impl;
pub mod channel_parties;
pub mod channel_shape;
pub mod channel_throughput;
pub mod contention;
pub mod external_probe;
pub mod fan_out;
pub mod grain_sweep;
pub mod grain_tally;
pub mod grain_work;
pub mod ipc;
pub mod offer;
pub mod plugin;
pub mod primitives;
pub mod wake_all;
pub mod yield_barrier;
pub mod yield_round;

pub use capability::{Capability, BETWEEN_CPUS_ELSEWHERE, IPC_UNDER_OS, KERNEL_UNDER_OS, RANKS_UNDER_MPI};
pub use offer::{Offer, Offers};
pub use plugin::{implements, missing, RuntimeUnderTest};
