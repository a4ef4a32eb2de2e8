//! Which points a round measures, in which order, and whether the budget lets one more probe start
//! (docs/METHOD.md "Rounds"; the policy's rules are `RoundPolicy`'s, in `overhead_record`'s `round_rules.rs`).

use std::time::Duration;

use super::point_state::PointState;
use overhead_record::{RoundPolicy, RunRecord};

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

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_analysis::Process;
    use overhead_harness::Mode;
    use overhead_record::fixture::{point, sample_record};

    /// A point with `processes` processes of `wall_ms` each.
    fn state(wall_ms: f64, processes: usize) -> PointState {
        let record = point("base.call", "os", &[], 1.0);
        let mut state = PointState::new(record.spec.clone());
        state.processes =
            (1..=processes).map(|round| Process { record: record.clone(), round, wall_ms, started_s: None }).collect();
        state
    }

    #[test]
    fn the_minimum_rounds_go_in_plan_order_and_a_failed_point_is_left_out() {
        let policy = RoundPolicy::for_mode(Mode::Default);
        let mut points = vec![state(30.0, 0), state(10.0, 0), state(20.0, 0)];
        points[2].failed = true;
        assert_eq!(points_of_round(&policy, 1, &points, &sample_record()), [0, 1]);
    }

    #[test]
    fn a_refining_round_serves_the_cheapest_points_first() {
        let policy = RoundPolicy::for_mode(Mode::Default);
        // Below `stop_from` processes a point always wants another, whatever its CI.
        let points = vec![state(30.0, 1), state(10.0, 1), state(20.0, 1)];
        assert_eq!(points_of_round(&policy, policy.min_rounds + 1, &points, &sample_record()), [1, 2, 0]);
    }

    #[test]
    fn the_budget_binds_only_past_the_minimum_rounds() {
        let policy = RoundPolicy::for_mode(Mode::Quick);
        let point = state(10.0, 1);
        let late = policy.budget();
        assert!(budget_allows(&policy, policy.min_rounds, &point, 1, late));
        assert!(!budget_allows(&policy, policy.min_rounds + 1, &point, 1, late));
        assert!(budget_allows(&policy, policy.min_rounds + 1, &point, 1, Duration::ZERO));
    }
}
