//! Report sections that present experiments of several families (docs/ARCHITECTURE.md "Renderers"): seed
//! 004's primitives table (`base`, `msg`, `sched`, `spawn`, `sync`) and seed 001's yield and oversubscription
//! tables (`sched.yield`, `sync.oversub`), and seed 004's networked case (the primitives against the `other_host`
//! round trip of `mpi.pingpong` or `msg.ipc`). A section of one family lives in that family's folder instead.

pub mod networked_case;
pub mod primitive_rows;
pub mod primitives;
pub mod yield_and_oversub;
