//! The `spawn.*` experiments: creating and joining activities.

/// The experiment ID `spawn.create`.
pub const CREATE: &str = "spawn.create";

/// The experiment ID `spawn.remote`.
pub const REMOTE: &str = "spawn.remote";

/// The experiment ID `spawn.bulk`.
pub const BULK: &str = "spawn.bulk";

/// The experiment ID `spawn.forkjoin`.
pub const FORKJOIN: &str = "spawn.forkjoin";
