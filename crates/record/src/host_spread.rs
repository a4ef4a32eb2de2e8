//! The run's typical spread per family, and each point's `noisy` and `unstable` judged against it
//! (docs/METHOD.md §21; the analysis derives both, `overhead_analysis::host_spread`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What one family's points typically show on this host in this run: the medians over its points.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FamilySpread {
    /// The median of its points' 95% CI half-width over their median (a fraction: 0.05 is 5%).
    pub ci_half_width: f64,
    /// The median of its points' between-process standard deviation over their estimate (a fraction).
    pub process_spread: f64,
    /// Points it is the median of.
    pub points: usize,
}

/// The run's typical spreads: per family, and the processes' spread over every point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostSpread {
    /// Per family with at least `overhead_analysis::host_spread::MIN_POINTS` points.
    pub families: BTreeMap<String, FamilySpread>,
    /// The median over every point with two or more processes of their between-process standard deviation
    /// over the estimate (a fraction): "processes of one point differ by 22% here".
    pub process_spread: f64,
    /// Points that median is over.
    pub points: usize,
    /// How many times its family's typical spread a point must exceed to be flagged for this host.
    pub factor: f64,
}

/// A point's `noisy` and `unstable` judged against its family's typical spread on this host: each is the
/// absolute flag and beyond [`HostSpread::factor`] times the family's typical value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostRelativeFlags {
    pub noisy: bool,
    pub unstable: bool,
}
