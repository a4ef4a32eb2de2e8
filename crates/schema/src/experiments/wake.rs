//! The `wake.*` experiments: waking another thread.

/// The experiment ID `wake.handoff`.
pub const HANDOFF: &str = "wake.handoff";
