//! The `rpc.*` experiments: remote procedure calls (Walfield).

use crate::variants::rpc::RpcTransport;
use serde::{Deserialize, Serialize};

/// The experiment ID `rpc.methods`.
pub const METHODS: &str = "rpc.methods";

/// The experiment ID `rpc.floor`.
pub const FLOOR: &str = "rpc.floor";

/// `rpc.methods`'s parameters; `placement` follows (added by the plan).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MethodsParams {
    pub transport: RpcTransport,
}

/// What an `rpc.floor` point reports beside its median (its `extra`): the reconciliation of gRPC's delta, ns
/// per call, and the sizes involved. A per-call time is absent when its side made no calls.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FloorResult {
    /// gRPC's client time per hot call (calls back to back).
    pub grpc_hot_client_ns: Option<f64>,
    /// The server's time per hot call, from the decoded request to its reply.
    pub grpc_hot_server_ns: Option<f64>,
    /// Client − server per hot call: Walfield's delta.
    pub grpc_hot_delta_ns: Option<f64>,
    /// Hot calls counted.
    pub grpc_hot_calls: f64,
    /// gRPC's client time per cold call (each after both processes streamed the eviction buffer).
    pub grpc_cold_client_ns: Option<f64>,
    /// The server's time per cold call.
    pub grpc_cold_server_ns: Option<f64>,
    /// Client − server per cold call.
    pub grpc_cold_delta_ns: Option<f64>,
    /// Cold calls counted.
    pub grpc_cold_calls: f64,
    /// The bare socket's hot round trip (the point's median in this process).
    pub transport_ns: f64,
    /// gRPC's hot delta less the bare round trip: framing, protocol and runtime.
    pub framing_runtime_ns: f64,
    /// The bare socket's cold round trip.
    pub bare_cold_ns: f64,
    /// gRPC's cold delta less its hot one: Walfield's unaccounted cycles.
    pub cold_minus_hot_ns: f64,
    /// The bare socket's cold round trip less its hot one (a woken server CPU's share).
    pub bare_cold_minus_hot_ns: f64,
    /// The encoded request's size (bytes).
    pub request_bytes: f64,
    /// The encoded reply's size (bytes).
    pub reply_bytes: f64,
    /// The eviction buffer each process streams before a cold call (bytes).
    pub evict_bytes: f64,
}

/// Key of the per-method table in an `rpc.methods` point's `details.tables`.
pub const TABLE_KEY: &str = "methods";

/// Columns of the per-method table, unit in each name: calls; total time of the calls on each side (ms);
/// each side's share of the client's total over all methods (%: the study's "% Time" of the run, whose
/// "Kernel" share was of the same total); µs per call on each side; the delta (µs per call).
pub const COLUMNS: [&str; 8] = [
    "calls",
    "client_ms",
    "server_ms",
    "client_pct",
    "server_pct",
    "client_us_per_call",
    "server_us_per_call",
    "delta_us",
];
