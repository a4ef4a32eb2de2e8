//! The async runtimes under test (docs/ARCHITECTURE.md "Runtimes under test"): `tokio` and `smol`, each a
//! multi-threaded task pool for Ben-Asher & Feitelson's constructs ([`task_pool`]) and a one-thread runtime
//! for Souvatzis's primitives ([`local_runtime`]), with the async channels measured on both
//! ([`async_channels`]). One macro ([`async_runtime`]) makes a runtime of the two halves. `monoio`, the io_uring
//! runtime, is thread-per-core and has only the one-thread half ([`monoio_rt`]).

pub mod async_channels;
pub mod async_runtime;
pub mod local_runtime;
pub mod monoio_rt;
pub mod smol_rt;
pub mod socket_round_trips;
pub mod task_pool;
pub mod tokio_rt;
