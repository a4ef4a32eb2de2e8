//! Rank 0 leading batches of an MPI operation and the other ranks following (docs/ARCHITECTURE.md "Hosts and
//! MPI"): what the `mpi.*` experiments and the `mpi` runtime's Souvatzis message rows ([`super::Mpi`]'s
//! `Messages`) measure with.

use super::shim::{shim, Op};
use overhead_harness::{empty_loop, Harness, Measurement};

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
