//! The `sync.*` experiments: atomics, locks, semaphores and barriers.

use crate::variants::activity_barrier::{BarrierKind, Variant};

/// The experiment ID `sync.rwlock`.
pub const RWLOCK: &str = "sync.rwlock";

/// The experiment ID `sync.sem`.
pub const SEM: &str = "sync.sem";

/// The experiment ID `sync.getcpu`.
pub const GETCPU: &str = "sync.getcpu";

/// The experiment ID `sync.percpu`.
pub const PERCPU: &str = "sync.percpu";

/// The experiment ID `sync.barrier`.
pub const BARRIER: &str = "sync.barrier";

/// The experiment ID `sync.oversub`.
pub const OVERSUB: &str = "sync.oversub";

/// The experiment ID `sync.faa`.
pub const FAA: &str = "sync.faa";

/// The experiment ID `sync.mutex`.
pub const MUTEX: &str = "sync.mutex";

/// `sync.oversub`'s parameters: `barrier` is absent for `just_spawn`, which passes none; `activities` is
/// the total over all `cpus`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OversubParams {
    pub variant: Variant,
    pub barrier: Option<BarrierKind>,
    pub cpus: usize,
    pub activities: usize,
}
