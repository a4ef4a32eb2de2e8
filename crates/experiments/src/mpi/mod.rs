//! The `mpi` family: MPI's own primitives between ranks, as the OSU micro-benchmarks measure them
//! (osu_latency, osu_bw, osu_barrier, osu_allreduce) and mpiGraph's host matrix, with the project's batches,
//! control subtraction, processes and CIs. Every point runs as MPI ranks (`runtime:mpi`,
//! docs/ARCHITECTURE.md "Hosts and MPI"): rank 0 runs the harness and leads each batch, the other ranks
//! follow ([`lead_measure`], [`follow`], in `runtimes::mpi`).

mod bandwidth;
mod collective;
pub mod hosts;
mod pingpong;
pub use bandwidth::{Bandwidth, BandwidthResult, BwParams};
pub use collective::{Allreduce, Barrier, CollectiveParams};
pub use hosts::Hosts;
pub use pingpong::{PingPong, PingPongParams};

use overhead_runtime_api::Capability;
use overhead_runtime_external::mpi::{follow, lead_measure};

/// What every `mpi.*` experiment requires of its runtime.
const RANKS: &[Capability] = &[Capability::Ranks];

pub use overhead_schema::experiments::mpi::NOT_ON_ONE_CPU;
