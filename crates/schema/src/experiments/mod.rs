//! What a record names of each experiment, by family: its ID (and, where a reader decodes them, its
//! parameters and result). The experiments take their IDs from here, and so does every reader, so no
//! experiment ID is a string literal outside this module and the experiments themselves.

pub mod base;
pub mod clock;
pub mod grain;
pub mod mem;
pub mod mpi;
pub mod msg;
pub mod rpc;
pub mod sched;
pub mod spawn;
pub mod sync;
pub mod timer;
pub mod wake;
