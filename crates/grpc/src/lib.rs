//! The system under test of the `rpc` family (Walfield, "RPC overhead", Viengoos, 2008): a gRPC service with
//! Walfield's four Viengoos calls (tonic + prost on hyper's HTTP/2, `service.rs`, its code generated from
//! `proto/overhead_rpc.proto` into `generated/`), its transports (a UNIX domain socket or TCP loopback, `transport.rs`), the bare
//! socket ping-pong under it (`bare.rs`) and the cache eviction between calls (`evict.rs`). A crate of its own,
//! like the timer queue: the experiments (`overhead_experiments::rpc`) drive it, and nothing else needs the
//! gRPC stack; docs/ARCHITECTURE.md "The rpc family".

pub mod bare;
pub mod evict;
pub mod service;
pub mod transport;

use serde::{Deserialize, Serialize};

/// How the client and the server talk (the `transport` parameter of both experiments). serde: `"unix"`,
/// `"tcp"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RpcTransport {
    /// A UNIX domain stream socket in a fresh temporary directory.
    Unix,
    /// TCP over the loopback interface, 127.0.0.1 on a port the kernel picks, with `TCP_NODELAY`.
    Tcp,
}

impl RpcTransport {
    /// Both transports, in the order the plan lists them.
    pub const ALL: [RpcTransport; 2] = [RpcTransport::Unix, RpcTransport::Tcp];
}
