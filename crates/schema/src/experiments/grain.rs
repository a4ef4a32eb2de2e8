//! The `grain.*` experiments: task granularity (Ben-Asher & Feitelson 1991).

/// The experiment ID `grain.sweep`.
pub const SWEEP: &str = "grain.sweep";
