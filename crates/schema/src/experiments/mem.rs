//! The `mem.*` experiments: cache lines, contention and fairness.

use serde::{Deserialize, Serialize};

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

/// `mem.c2c`'s parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct C2cParams {
    pub op: C2cOp,
}

/// `mem.contention`'s parameters, in name order: the op, then the team size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ContentionParams {
    pub op: Op,
    pub threads: usize,
}

/// What every thread does to the shared line, 100 times per iteration. Serialized snake_case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// A plain store of the loop index (`AtomicU64::store(i, Relaxed)`: one `mov` on x86-64), the study's
    /// `*pg=lg`. A store retires into the store buffer; the core then needs the line exclusive to drain it.
    Store,
    /// `fetch_add(1, Relaxed)` with the result unused: one locked add on x86-64 (`lock inc`; `lock xadd`
    /// when the result is used), an atomic read-modify-write that holds the line for its whole duration.
    AtomicAdd,
}

/// `mem.mix`'s parameters, in name order: shared writes per block, then the team size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MixParams {
    pub x: u32,
    pub threads: usize,
}

/// The study's values of x (shared writes per block of 100), planned in default and `--full` runs.
pub const X_VALUES: [u32; 5] = [1, 10, 20, 50, 100];

/// `mem.remote`'s parameters (a `placement` follows where two CPUs are involved).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RemoteParams {
    pub case: Case,
    pub reference: Reference,
}

/// One row of Table 3 (`case` parameter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Case {
    /// Local B increments its own line, nobody else touches it (seed: 1.00).
    LocalFree,
    /// B on its own line while one remote activity C increments another word of the same line; B's rate
    /// (seed: 0.74).
    LocalOneRemote,
    /// As above with every other usable CPU a remote activity on that word; B's rate (seed: 0.57).
    LocalManyRemote,
    /// C increments a line first touched by another CPU, which then leaves it alone (seed: 0.11).
    RemoteUnused,
    /// C's rate in `local_one_remote`'s setting: to a line another core is using (seed: 0.11).
    RemoteUsed,
    /// Every CPU but the reference's increments one word; the slowest and fastest remote (seed: 0.01–0.03).
    RemoteHeavy,
    /// A dependent pointer chase over a buffer 4× the last-level cache, first touched on the walker's
    /// node, against a second such buffer: the local-node walk against itself.
    NumaLocal,
    /// The same walk over a buffer first touched on another node, against the local-node walk.
    NumaRemote,
}

/// What the rates are relative to (`reference` parameter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reference {
    /// An isolated activity A on a CPU of its own (the study's method): thread 0.
    Activity,
    /// The clock: the measured activity's rate against its own undisturbed rate in an adjacent window.
    Clock,
}

/// What a `mem.remote` point reports beside its median (its `extra`). Relative rates are the measured
/// activities' access rates over the reference's (1 = undisturbed), medians over the kept windows.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RemoteResult {
    /// The measured activities' relative rate.
    pub relative_rate: f64,
    /// The slowest measured activity's relative rate (more than one measured activity only).
    pub relative_rate_min: Option<f64>,
    /// The fastest measured activity's relative rate (more than one measured activity only).
    pub relative_rate_max: Option<f64>,
    /// Windows kept.
    pub windows: f64,
    /// Kept windows dropped because an activity was not counting yet (the counting cases only).
    pub dropped_windows: Option<f64>,
    /// A kept window's median length (ms; the counting cases only).
    pub window_ms: Option<f64>,
    /// The streamed buffer (MiB; the NUMA cases only).
    pub buffer_mib: Option<f64>,
    /// Steps timed per window (the NUMA cases only).
    pub steps_per_window: Option<f64>,
}

/// What a `mem.fairness` point reports beside its median (its `extra`), over the kept windows of all threads.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FairnessResult {
    /// Jain's fairness index of the accesses per thread (1 = even, 1/n = one thread took them all); absent
    /// when no thread made an access.
    pub jain_index: Option<f64>,
    /// The most accesses of a thread over the fewest; absent when a thread made none.
    pub max_over_min: Option<f64>,
    /// Accesses of every thread together.
    pub total_accesses: f64,
    /// Windows kept.
    pub windows: f64,
    /// A kept window's mean length (ms).
    pub window_ms: f64,
    /// Accesses a thread made in a row before another thread's (`atomic_inc` only, when any were counted).
    pub mean_consecutive_accesses: Option<f64>,
}

/// How the line is passed: one line compare-and-swapped by both sides, or two lines, each written by one
/// side and read by the other. serde: `cas`, `load_store`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum C2cOp {
    Cas,
    LoadStore,
}

impl C2cOp {
    /// The parameter value: `cas`, `load_store`.
    pub fn name(self) -> &'static str {
        match self {
            C2cOp::Cas => "cas",
            C2cOp::LoadStore => "load_store",
        }
    }
}

impl Op {
    /// Every op, in plan and report column order.
    pub const ALL: [Op; 2] = [Op::Store, Op::AtomicAdd];

    /// The parameter value (`store`, `atomic_add`).
    pub fn name(self) -> &'static str {
        match self {
            Op::Store => "store",
            Op::AtomicAdd => "atomic_add",
        }
    }

    /// Words for a report column.
    pub fn label(self) -> &'static str {
        match self {
            Op::Store => "store",
            Op::AtomicAdd => "atomic add",
        }
    }
}

impl Case {
    /// Every row, in Table 3's order, the NUMA rows last.
    pub const ALL: [Case; 8] = [
        Case::LocalFree,
        Case::LocalOneRemote,
        Case::LocalManyRemote,
        Case::RemoteUnused,
        Case::RemoteUsed,
        Case::RemoteHeavy,
        Case::NumaLocal,
        Case::NumaRemote,
    ];

    /// The parameter value (`local_free`, …).
    pub fn name(self) -> &'static str {
        match self {
            Case::LocalFree => "local_free",
            Case::LocalOneRemote => "local_one_remote",
            Case::LocalManyRemote => "local_many_remote",
            Case::RemoteUnused => "remote_unused",
            Case::RemoteUsed => "remote_used",
            Case::RemoteHeavy => "remote_heavy",
            Case::NumaLocal => "numa_local",
            Case::NumaRemote => "numa_remote",
        }
    }
}
