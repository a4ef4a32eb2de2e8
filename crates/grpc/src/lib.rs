//! The system under test of the `rpc` family (Walfield, "RPC overhead", Viengoos, 2008): a gRPC service with
//! Walfield's four Viengoos calls (tonic + prost on hyper's HTTP/2, `service.rs`, its code generated from
//! `proto/overhead_rpc.proto` into `generated/`), its transports (a UNIX domain socket or TCP loopback, `transport.rs`), the bare
//! socket ping-pong under it (`bare.rs`) and the cache eviction between calls (`evict.rs`). A crate of its own,
//! like the timer queue: the experiments (`overhead_experiments::rpc`) drive it, and nothing else needs the
//! gRPC stack; docs/ARCHITECTURE.md "The rpc family".

pub use overhead_schema::variants::rpc::RpcTransport;

pub mod bare;
pub mod evict;
pub mod service;
pub mod transport;
