//! Derived numbers the analysis stage writes into the record beside the fits (docs/ARCHITECTURE.md "The
//! data flow"): Souvatzis's comparison of each runtime with the reference, and Kiszka's least squares
//! of hot-path time against the conversion and read counts. Renderers only format them.

use serde::{Deserialize, Serialize};

/// A ratio of two medians with a conservative 95% interval built from their own 95% CIs (`a.ci_low /
/// b.ci_high` to `a.ci_high / b.ci_low`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RatioCi {
    /// `a.median / b.median`.
    pub ratio: f64,
    /// Low end of the interval.
    pub low: f64,
    /// High end of the interval.
    pub high: f64,
}

/// Souvatzis: how a runtime's column compares with the reference runtime's on the switch-bound rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuntimeComparison {
    /// The runtime compared (a column of Souvatzis's table).
    pub runtime: overhead_schema::runtimes::RuntimeId,
    /// The runtime it is compared with (`fiber-asm`).
    pub reference: String,
    /// Geometric mean over the switch-bound rows both have of runtime / reference (× ; > 1 is slower).
    pub switch_bound_geomean: f64,
    /// How many rows that mean is over.
    pub rows: usize,
    /// The raw switch round trip (`sched.switch`, same CPU), runtime / reference, with its interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_switch: Option<RatioCi>,
}

/// Kiszka 2006 (§1.3–§5.3): a least-squares line of the `experiment`'s medians (ns per op) against one of
/// the counts its points carry in `extra` (conversions, counter reads), over every measured row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CountFit {
    /// The experiment whose points are fitted (`timer.hotpath`).
    pub experiment: String,
    /// The `extra` key of the count (e.g. `conversions`).
    pub count: String,
    /// Slope: ns per counted operation.
    pub ns_per_count: f64,
    /// Coefficient of determination of the line.
    pub r2: f64,
    /// Points in the fit.
    pub rows: usize,
}
