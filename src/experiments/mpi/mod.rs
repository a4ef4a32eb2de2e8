//! The `mpi` family (issue 24): MPI's own primitives between ranks, as the OSU micro-benchmarks measure them
//! (osu_latency, osu_bw, osu_barrier, osu_allreduce) and mpiGraph's host matrix, with the project's batches,
//! control subtraction, processes and CIs. Every point runs as MPI ranks (`runtime:mpi`,
//! docs/ARCHITECTURE.md "Hosts and MPI"): rank 0 runs the harness and leads each batch, the other ranks
//! follow ([`lead_measure`], [`follow`]).

mod bandwidth;
mod collective;
mod hosts;
mod pingpong;
pub(crate) mod report;

pub use bandwidth::{Bandwidth, BandwidthResult};
pub use collective::{Allreduce, Barrier, CollectiveParams};
pub use hosts::Hosts;
pub use pingpong::{PingPong, PingPongParams};

use crate::experiments::empty_loop;
use crate::harness::{Harness, Measurement};
use crate::runtimes::mpi::shim::{shim, Op};
use crate::runtimes::Capability;

/// What every `mpi.*` experiment requires of its runtime.
const RANKS: &[Capability] = &[Capability::Ranks];

/// Rank 0's measurement of `op` with `bytes` per message and `window` messages in flight: the harness times
/// batches of n operations, each batch one lead (a broadcast of what to do, then n operations on every
/// rank); the control is the empty loop plus a lead of nothing, so the broadcast that starts a batch is
/// subtracted with the loop. One operation first, untimed, so every rank has its buffers and connections;
/// at the end every follower is told to stop.
///
/// Errors: an MPI call failed on this rank (the others stop with it: the launcher ends the job).
pub fn lead_measure(h: &Harness, op: Op, bytes: u64, window: u64) -> anyhow::Result<Measurement> {
    let mpi = shim().map_err(anyhow::Error::msg)?;
    mpi.lead(op, 1, bytes, window)?;
    let mut failed = None;
    let measurement = h.measure(
        |n| {
            if let Err(e) = mpi.lead(op, n, bytes, window) {
                failed.get_or_insert(e);
            }
        },
        |n| {
            empty_loop(n);
            let _ = mpi.lead(Op::Nothing, n, 0, 0);
        },
    );
    mpi.lead(Op::Stop, 0, 0, 0)?;
    if let Some(e) = failed {
        return Err(e.context("a batch failed during measurement"));
    }
    Ok(measurement)
}

/// Every rank but 0: do what rank 0 leads until it says stop.
///
/// Errors: an MPI call failed on this rank.
pub fn follow() -> anyhow::Result<()> {
    shim().map_err(anyhow::Error::msg)?.follow()
}

/// Why an MPI point does not put two ranks on one CPU: each rank polls while it waits (the default progress
/// of OpenMPI and MPICH), so two on one CPU take turns by time slice and the slice is what is measured.
pub const NOT_ON_ONE_CPU: &str =
    "MPI ranks poll while they wait: two on one CPU take turns by time slice, which is not MPI's cost";
