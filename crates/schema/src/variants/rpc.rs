//! How an RPC client and server talk (`rpc.*`'s `transport:` parameter); the transports themselves are
//! `overhead_grpc::transport`.

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
