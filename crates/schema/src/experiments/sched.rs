//! The `sched.*` experiments: context switches and yields.

/// The experiment ID `sched.switch`.
pub const SWITCH: &str = "sched.switch";

/// The experiment ID `sched.broadcast`.
pub const BROADCAST: &str = "sched.broadcast";

/// The experiment ID `sched.yield`.
pub const YIELD: &str = "sched.yield";
