//! The runtimes' names as a record holds them (`runtime:` in a point's name), for the readers that pick a
//! runtime's points without its code. Each runtime's crate takes its name from here.

/// Kernel threads (`overhead_runtime_os`).
pub const OS: &str = "os";
/// MPI ranks launched by `mpirun` (`overhead_runtime_external::mpi`).
pub const MPI: &str = "mpi";
