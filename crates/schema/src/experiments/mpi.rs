//! The `mpi.*` experiments: MPI between ranks and hosts.

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
