//! The variants a point's parameters name (`mechanism:`, `transport:`, `barrier:`, …): what runtimes and
//! experiments choose between, as the record spells them. The crates that implement them re-export these and
//! keep the code that runs them; readers decode parameters with them and link nothing that measures.

pub mod activity_barrier;
pub mod channel_impl;
pub mod channel_shape;
pub mod contention;
pub mod ipc;
pub mod rpc;
pub mod timer_scenario;
pub mod wake;
