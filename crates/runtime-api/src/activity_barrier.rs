//! Many more activities than CPUs meeting on a barrier, as a runtime implements it: Ben-Asher & Feitelson 1991 §8.2
//! experiment 2 (Fig. 10), written once as `sync.oversub` against [`ActivityBarrier`]
//! (docs/ARCHITECTURE.md "Runtimes under test").

use overhead_harness::Harness;
use overhead_record::Outcome;

/// What one operation of `sync.oversub` is (its `variant:` parameter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// Spawn A activities that do nothing and wait for all of them ("just spawn").
    JustSpawn,
    /// Spawn A activities that pass one barrier together, and wait for all of them ("spawn & sync").
    SpawnSync,
    /// One barrier episode of A activities spawned before ("just sync").
    JustSync,
}

impl Variant {
    /// Every variant, in plan order.
    pub const ALL: [Variant; 3] = [Variant::JustSpawn, Variant::SpawnSync, Variant::JustSync];

    /// The parameter value (`just_spawn`, `spawn_sync`, `just_sync`).
    pub fn name(self) -> &'static str {
        match self {
            Variant::JustSpawn => "just_spawn",
            Variant::SpawnSync => "spawn_sync",
            Variant::JustSync => "just_sync",
        }
    }
}

overhead_record::param_enum!(Variant);

/// The barrier the activities pass (the `barrier:` parameter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BarrierKind {
    /// The study's `sync`: spin on the flag, yielding every time it is down
    /// ([`super::yield_barrier::YieldBarrier`]).
    Yield,
    /// Waiters sleep: std's `Barrier` for threads, the async runtime's barrier for tasks (`tokio::sync::Barrier`,
    /// `smol::lock::Barrier`).
    Blocking,
}

/// [`super::Capability::ActivityBarrier`]: `activities` activities spread round-robin over `cpus` (the
/// runtime's way: pinned threads, or a pool of one pinned worker per CPU), one operation being `variant`
/// with `barrier`, against the empty loop. `just_spawn` passes no barrier; its `barrier` is
/// [`BarrierKind::Blocking`] and unused.
pub trait ActivityBarrier: Sync {
    /// Measures one operation of `variant`.
    ///
    /// Errors: the runtime could not start its threads or pool; a combination it refuses.
    fn activity_barrier(
        &self,
        variant: Variant,
        barrier: BarrierKind,
        activities: usize,
        cpus: &[usize],
        h: &Harness,
    ) -> anyhow::Result<Outcome>;
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
