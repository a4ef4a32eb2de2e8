//! The `grain.*` experiments: task granularity (Ben-Asher & Feitelson 1991).

/// The experiment ID `grain.sweep`.
pub const SWEEP: &str = "grain.sweep";

/// Names of the detail tables a `grain.sweep` point carries (read by the report).
pub mod tables {
    /// Elapsed ns per decade of tasks: columns median, min, p90; rows labelled by the task count.
    pub const SWEEP: &str = "sweep";
    /// Speed-up over one task per decade: one column.
    pub const SPEEDUP: &str = "speedup";
    /// Elapsed ns of the counts the refinement tried, as `SWEEP`.
    pub const REFINE: &str = "refine";
    /// Each CPU's share of the tasks (%) per decade and for the best count: one column per CPU.
    pub const SHARE: &str = "share";
}

/// What a `grain.sweep` point reports beside its median (its `extra`; a runtime may add its own, such as
/// openmp's `serial_reads_ns`). Times are elapsed ns of the whole work.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SweepResult {
    /// The whole work, in reads of the shared variable.
    pub work_reads: f64,
    /// The task count with the fastest run (after refining around the best decade).
    pub best_tasks: f64,
    /// The decade (1, 10, 100, … tasks) with the fastest run; absent when no decade ran.
    pub best_decade_tasks: Option<f64>,
    /// The last decade tried; absent when no decade ran.
    pub last_decade_tasks: Option<f64>,
    /// Counts tried while refining around the best decade.
    pub refine_evaluations: f64,
    /// The work in one task.
    pub serial_ns: f64,
    /// The work at the best count.
    pub best_ns: f64,
    /// `serial_ns / best_ns`.
    pub speedup: f64,
}
