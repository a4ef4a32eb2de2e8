//! The `rpc.*` experiments: remote procedure calls (Walfield).

/// The experiment ID `rpc.methods`.
pub const METHODS: &str = "rpc.methods";

/// The experiment ID `rpc.floor`.
pub const FLOOR: &str = "rpc.floor";
