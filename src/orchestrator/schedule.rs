//! Which points a round measures, in which order, and whether the budget lets one more probe start
//! (docs/METHOD.md "Rounds"; the policy's rules are `RoundPolicy`'s, in `rounds.rs`).

use std::time::Duration;

use super::point_state::PointState;
use crate::record::{RoundPolicy, RunRecord};

/// The indices into `points` that round `round` measures, in order: every point that has not failed and
/// that `policy` wants another process of (its merged record in `record` so far). The minimum rounds go
/// in plan order; refining rounds serve the cheapest processes first, so the budget buys the most
/// processes (Kalibera & Jones: repetitions where they narrow the most per second).
pub fn points_of_round(policy: &RoundPolicy, round: usize, points: &[PointState], record: &RunRecord) -> Vec<usize> {
    let mut wanted: Vec<usize> = (0..points.len())
        .filter(|&i| !points[i].failed && policy.wants_another(points[i].merged(record), points[i].processes.len()))
        .collect();
    if round > policy.min_rounds {
        wanted.sort_by_key(|&i| points[i].expected_wall());
    }
    wanted
}

/// Whether `point` may have its probe of round `round`, `elapsed` into the run, out of `points` points
/// sharing the budget: always in the minimum rounds; past them, only while the run stays within its
/// budget ([`RoundPolicy::affordable`]) and the point within its share of it ([`RoundPolicy::within_share`]).
pub fn budget_allows(policy: &RoundPolicy, round: usize, point: &PointState, points: usize, elapsed: Duration) -> bool {
    let expected = point.expected_wall();
    policy.within_share(round, point.spent_wall(), expected, points) && policy.affordable(round, elapsed, expected)
}
