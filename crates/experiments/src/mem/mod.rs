//! The `mem` family: what sharing memory costs (Ben-Asher & Feitelson 1991 §3–4, for cache coherence instead of a bus).
//! Every thread is pinned and its CPU recorded; memory is first touched by the CPU it is meant to be
//! local to ([`page`]). Runtime `os` only: these are the machine's costs, not a runtime's.
//!
//! - `mem.c2c`: the core-to-core matrix, a cache-line round trip between every pair of CPUs.
//! - `mem.contention` (Fig. 1): time per store to one line vs. the threads storing to it.
//! - `mem.mix` (Fig. 2): blocks of 100 operations, x of them shared writes, vs. threads.
//! - `mem.fairness` (Table 2): how the line's accesses split among threads hammering it.
//! - `mem.remote` (Table 3): relative access rates against an undisturbed reference activity.

mod c2c;
mod contention;
mod fairness;
mod mix;
pub mod page;
mod remote;
pub use c2c::C2c;
pub use c2c::Params as C2cParams;
pub use contention::Params as ContentionParams;
pub use contention::{Contention, Op};
pub use fairness::{Fairness, FairnessResult};
pub use mix::Params as MixParams;
pub use mix::{Mix, X_VALUES};
pub use remote::Params as RemoteParams;
pub use remote::{Reference, Remote, RemoteResult};
