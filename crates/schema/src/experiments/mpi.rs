//! The `mpi.*` experiments: MPI between ranks and hosts.

use serde::{Deserialize, Serialize};

/// The experiment ID `mpi.pingpong`.
pub const PINGPONG: &str = "mpi.pingpong";

/// The experiment ID `mpi.bw`.
pub const BW: &str = "mpi.bw";

/// The experiment ID `mpi.barrier`.
pub const BARRIER: &str = "mpi.barrier";

/// The experiment ID `mpi.allreduce`.
pub const ALLREDUCE: &str = "mpi.allreduce";

/// The experiment ID `mpi.hosts`.
pub const HOSTS: &str = "mpi.hosts";

/// `mpi.bw`'s parameters; `placement` follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BwParams {
    /// Bytes per message.
    pub payload: usize,
    /// Messages in flight per window.
    pub window: usize,
}

/// What an `mpi.bw` point reports beside its median (its `extra`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BandwidthResult {
    /// Bytes per message.
    pub payload_bytes: f64,
    /// The payload over the median time per message (MB/s, 10⁶ bytes, as osu_bw).
    pub mb_per_s: f64,
}

/// A collective's parameters: bytes per rank (0 for the barrier, which carries none) and ranks; `placement`
/// follows on points across hosts (`other_host`: one rank per host).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CollectiveParams {
    pub bytes: usize,
    pub ranks: usize,
}

/// `mpi.pingpong`'s parameters; `placement` follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PingPongParams {
    /// Bytes per message, each way.
    pub payload: usize,
}

/// Why an MPI point does not put two ranks on one CPU: each rank polls while it waits (the default progress
/// of OpenMPI and MPICH), so two on one CPU take turns by time slice and the slice is what is measured.
pub const NOT_ON_ONE_CPU: &str =
    "MPI ranks poll while they wait: two on one CPU take turns by time slice, which is not MPI's cost";

/// The reason the point is skipped without two hosts.
pub const NEEDS_HOSTS: &str = "needs --hosts with two or more hosts";

/// The round-trip matrix's title.
pub const RTT_TITLE: &str = "8 B MPI ping-pong round trip between the row and column hosts, ± CI half-width";

/// The bandwidth matrix's title.
pub const BW_TITLE: &str =
    "1 MiB MPI bandwidth from the row host to the column host (windows of 64 and an ack), ± CI half-width";
