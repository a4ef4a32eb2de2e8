//! Sides: one plan measured on two or more configurations in one run — another build of this tool, other
//! environment settings for the probe processes, or both — with each point's processes for the sides run
//! back to back in every round, so a comparison between them does not pay for the run level
//! (docs/METHOD.md §17; Kalibera & Jones 2013 on interleaving the configurations compared; tango-bench's
//! paired builds).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{PointRecord, SkippedPoint, ToolInfo};

/// What one side is: a name, the binary its probes run (this one when `None`) and the environment its probe
/// processes get on top of the run's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideSpec {
    /// The side's name, as `--side NAME=…` gave it: letters, digits, `-`, `_`, `.`.
    pub name: String,
    /// The `overhead` binary its probes run; `None`: the binary doing the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary: Option<PathBuf>,
    /// Environment assignments for its probe processes, in the order given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<(String, String)>,
}

impl SideSpec {
    /// `binary`, then the assignments, as `--side` takes them (`K=V K=V PATH` reads the same): for a label.
    pub fn describe(&self) -> String {
        let mut words: Vec<String> = self.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        words.push(self.binary.as_ref().map_or("(this binary)".to_string(), |b| b.display().to_string()));
        words.join(" ")
    }
}

/// One side of a run with sides: what it was, the build its binary reported, and — for every side but the
/// first, whose points are the record's `points` — its own points and skipped cells.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideRecord {
    pub spec: SideSpec,
    /// The build of the side's binary as it answered (`overhead probe --about`): version, commit, crates under
    /// test.
    pub tool: ToolInfo,
    /// The side's points, named `…/side:NAME`; empty for the baseline, whose points keep their plain names in
    /// the record's `points`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub points: Vec<PointRecord>,
    /// Points this side could not measure (its runtime absent there, a probe that failed), with the reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<SkippedPoint>,
    /// The external toolchains in the side's environment when the run began (`java -version`, `go version`,
    /// the MPI launcher's, the C compiler's first line), each `tool: version`; absent in older records.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub toolchains: Vec<String>,
}

/// How the processes of one point were ordered across sides within a round: rotated by one side each round
/// (round 1 `a b`, round 2 `b a`, …), so each side runs first as often as the others, and a drift of the
/// machine within a pair does not favour one side.
pub const SIDE_ORDER: &str = "rotating";

/// The sides of a run: the first is the baseline every other side is compared with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sides {
    pub sides: Vec<SideRecord>,
    /// How a point's processes were ordered across sides in a round ([`SIDE_ORDER`]).
    pub order: String,
    /// Each other side against the baseline, per point and per family (derived by the analysis,
    /// `overhead_analysis::sides`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ratios: Vec<SideRatio>,
}

impl Sides {
    /// The baseline's name.
    pub fn baseline(&self) -> &str {
        &self.sides[0].spec.name
    }
}

/// What a [`SideRatio`] is about: one point, or a family's points together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SideScope {
    Point,
    Family,
}

/// One side against the baseline on one point or family: the ratio of its times (side / baseline, so 1.05
/// is 5% slower), its 95% CI, and whether the difference is flagged after the control for multiple
/// comparisons.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideRatio {
    pub scope: SideScope,
    /// The point's plain name, or the family (`sync`).
    pub name: String,
    /// The side compared with the baseline.
    pub side: String,
    /// The geometric mean ratio, side / baseline; NaN (`null` in JSON) where not compared, as are the CI and
    /// the p-value.
    #[serde(with = "nan_as_null")]
    pub ratio: f64,
    #[serde(with = "nan_as_null")]
    pub ci_low: f64,
    #[serde(with = "nan_as_null")]
    pub ci_high: f64,
    /// Pairs of processes (a point) or points (a family) the ratio is over.
    pub n: usize,
    /// The two-sided p-value of "no change" (Student's t with n − 1 degrees of freedom).
    #[serde(with = "nan_as_null")]
    pub p_value: f64,
    /// The difference is significant at 5% after Benjamini–Hochberg over every point (or family) compared.
    pub flagged: bool,
    /// Why a point could not be compared, when it could not (fewer than two pairs with positive times).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_compared: Option<String>,
    /// Rounds whose pair of processes met different host states and so were left out: like is compared with
    /// like (docs/METHOD.md §19). 0 for a family, and where every pair matched.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub state_mismatched_pairs: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A number that may be NaN, as JSON writes it: `null` for anything not finite, read back as NaN (serde_json
/// writes NaN as `null` and refuses to read `null` as a number).
mod nan_as_null {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        match v.is_finite() {
            true => s.serialize_f64(*v),
            false => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ratio_not_compared_round_trips_through_json() {
        let r = SideRatio {
            scope: SideScope::Point,
            name: "x".into(),
            side: "b".into(),
            ratio: f64::NAN,
            ci_low: f64::NAN,
            ci_high: 1.5,
            n: 1,
            p_value: f64::NAN,
            flagged: false,
            not_compared: Some("1 pair(s)".into()),
            state_mismatched_pairs: 0,
        };
        let json = serde_json::to_string(&r).unwrap();
        assert!(json.contains("\"ratio\":null") && json.contains("\"ci_high\":1.5"), "{json}");
        let back: SideRatio = serde_json::from_str(&json).unwrap();
        assert!(back.ratio.is_nan() && back.p_value.is_nan() && back.ci_high == 1.5);
    }
}
