//! What one operation of `sync.oversub` is and the barrier its activities pass (Ben-Asher & Feitelson 1991
//! §8.2, experiment 2); running them is `overhead_runtime_api::activity_barrier::ActivityBarrier`.

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

crate::param_enum!(Variant);

/// The barrier the activities pass (the `barrier:` parameter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BarrierKind {
    /// The study's `sync`: spin on the flag, yielding every time it is down
    /// (`overhead_runtime_api::yield_barrier::YieldBarrier`).
    Yield,
    /// Waiters sleep: std's `Barrier` for threads, the async runtime's barrier for tasks (`tokio::sync::Barrier`,
    /// `smol::lock::Barrier`).
    Blocking,
}
