//! The `msg.*` experiments: messages between threads and processes (Souvatzis; Walfield; lmbench).

use crate::variants::ipc::IpcTransport;
use serde::{Deserialize, Serialize};

/// The experiment ID `msg.switch`.
pub const SWITCH: &str = "msg.switch";

/// The experiment ID `msg.call`.
pub const CALL: &str = "msg.call";

/// The experiment ID `msg.ipc`.
pub const IPC: &str = "msg.ipc";

/// The experiment ID `msg.bw`.
pub const BW: &str = "msg.bw";

/// The experiment ID `msg.async`.
pub const ASYNC: &str = "msg.async";

/// The experiment ID `msg.throughput`.
pub const THROUGHPUT: &str = "msg.throughput";

/// The experiment ID `msg.rendezvous`.
pub const RENDEZVOUS: &str = "msg.rendezvous";

/// `msg.ipc`'s parameters, in name order; `placement` follows (two-party points).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct IpcParams {
    pub transport: IpcTransport,
    /// Bytes per message, each way.
    pub payload: usize,
}
