//! Many more activities than CPUs meeting on a barrier, as a runtime implements it: Ben-Asher & Feitelson 1991 §8.2
//! experiment 2 (Fig. 10), written once as `sync.oversub` against [`ActivityBarrier`]
//! (docs/ARCHITECTURE.md "Runtimes under test").

pub use overhead_schema::variants::activity_barrier::{BarrierKind, Variant};

use overhead_harness::Harness;
use overhead_record::Outcome;

/// [`super::Capability::ActivityBarrier`]: `activities` activities spread round-robin over `cpus` (the
/// runtime's way: pinned threads, or a pool of one pinned worker per CPU), one operation being `variant`
/// with `barrier`, against the empty loop. `just_spawn` passes no barrier; its `barrier` is
/// [`BarrierKind::Blocking`] and unused.
pub trait ActivityBarrier: Sync {
    /// Measures one operation of `point.variant`.
    ///
    /// Errors: the runtime could not start its threads or pool; a combination it refuses.
    fn activity_barrier(&self, point: Oversubscribed<'_>, h: &Harness) -> anyhow::Result<Outcome>;
}

/// One `sync.oversub` point as a runtime measures it: the variant, its barrier, how many activities, and the
/// CPUs they are spread over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Oversubscribed<'a> {
    /// `just_spawn`, `just_sync` or `spawn_sync`.
    pub variant: Variant,
    /// How an activity waits at the barrier (unused by `just_spawn`).
    pub barrier: BarrierKind,
    /// How many activities (Ben-Asher & Feitelson's A).
    pub activities: usize,
    /// The point's CPUs.
    pub cpus: &'a [usize],
}

/// What a runtime offers of [`super::Capability::ActivityBarrier`]: the combinations it refuses, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActivityBarrierLimits {
    /// Why it cannot run `just_sync` (with any barrier), when it cannot.
    pub just_sync: Option<&'static str>,
    /// Why it cannot run a [`BarrierKind::Blocking`] barrier, when it cannot.
    pub blocking: Option<&'static str>,
}

impl ActivityBarrierLimits {
    /// Every combination runs.
    pub const NONE: ActivityBarrierLimits = ActivityBarrierLimits { just_sync: None, blocking: None };

    /// Why the runtime cannot run `variant` with `barrier` (`None` for `just_spawn`), when it cannot.
    pub fn refuses(&self, variant: Variant, barrier: Option<BarrierKind>) -> Option<&'static str> {
        match (variant, barrier) {
            (Variant::JustSync, _) if self.just_sync.is_some() => self.just_sync,
            (_, Some(BarrierKind::Blocking)) => self.blocking,
            _ => None,
        }
    }
}

/// A note when `refused` pinning requests were refused (the activities ran unpinned).
pub fn refused_note(refused: usize) -> Option<String> {
    (refused > 0).then(|| format!("{refused} pinning request(s) refused; those activities ran unpinned"))
}
