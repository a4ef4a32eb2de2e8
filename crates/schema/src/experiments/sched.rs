//! The `sched.*` experiments: context switches and yields.

/// The experiment ID `sched.switch`.
pub const SWITCH: &str = "sched.switch";

/// The experiment ID `sched.broadcast`.
pub const BROADCAST: &str = "sched.broadcast";

/// The experiment ID `sched.yield`.
pub const YIELD: &str = "sched.yield";

/// `sched.yield`'s parameters: CPUs of the point and extra yielding activities per CPU (a cell skipped for
/// a whole runtime has no load).
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct YieldParams {
    pub cpus: usize,
    pub load: Option<usize>,
}
