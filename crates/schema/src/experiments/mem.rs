//! The `mem.*` experiments: cache lines, contention and fairness.

/// The experiment ID `mem.fairness`.
pub const FAIRNESS: &str = "mem.fairness";

/// The experiment ID `mem.contention`.
pub const CONTENTION: &str = "mem.contention";

/// The experiment ID `mem.c2c`.
pub const C2C: &str = "mem.c2c";

/// The experiment ID `mem.remote`.
pub const REMOTE: &str = "mem.remote";

/// The experiment ID `mem.mix`.
pub const MIX: &str = "mem.mix";
