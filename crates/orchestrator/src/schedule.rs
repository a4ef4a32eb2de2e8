//! Which points a round measures, in which order, on which side first, and whether the budget lets their
//! probes start (docs/METHOD.md "Rounds", §17; the policy's rules are `RoundPolicy`'s, in `overhead_record`'s
//! `round_rules.rs`).

use std::time::Duration;

use super::point_state::PointState;
use overhead_record::{RoundPolicy, RunRecord};

/// The groups that round `round`, starting `elapsed` into the run, measures, in order. A group is one point
/// on every side of the run: `points[g * sides .. (g + 1) * sides]` (one point alone in a run without
/// sides), measured back to back so the sides' processes are neighbours. A group is wanted when
/// [`group_wants`] says so and, in a minimum round, the plan of the minimum gives it more processes than it
/// has (`allotted[g]` processes in all, [`crate::minimum_plan::allot`]; every group when `allotted` is empty). A minimum round goes in plan order while it is
/// expected to end before the deadline; one that would not, and every refining round, serves the cheapest
/// groups first, so the deadline cuts the fewest processes and the budget buys the most (Kalibera & Jones:
/// repetitions where they narrow the most per second). A refining round serves the groups the deadline left
/// short of the minimum before the others: a point's third process narrows its interval more than another's
/// fourth. The sort is stable: groups of equal cost keep plan order.
pub fn groups_of_round(
    policy: &RoundPolicy,
    round: usize,
    points: &[PointState],
    sides: usize,
    record: &RunRecord,
    elapsed: Duration,
    allotted: &[usize],
) -> Vec<usize> {
    let given = |g: usize| {
        let have = points[g * sides..(g + 1) * sides].iter().map(|p| p.processes.len()).max().unwrap_or(0);
        round > policy.min_rounds || allotted.get(g).is_none_or(|&a| a > have)
    };
    let mut wanted: Vec<usize> = points
        .chunks(sides)
        .enumerate()
        .filter(|(g, group)| given(*g) && group_wants(policy, group, record))
        .map(|(g, _)| g)
        .collect();
    let cost = |g: usize| expected_wall(&points[g * sides..(g + 1) * sides]);
    let expected: Duration = wanted.iter().map(|&g| cost(g)).sum();
    if round > policy.min_rounds {
        // Short: a live point below the minimum (a point skipped on a side, or failed, is owed nothing).
        let short = |g: usize| {
            points[g * sides..(g + 1) * sides].iter().any(|p| !p.failed && p.processes.len() < policy.min_rounds)
        };
        wanted.sort_by_key(|&g| (!short(g), cost(g)));
    } else if policy.round_overruns(round, elapsed, expected) {
        wanted.sort_by_key(|&g| cost(g));
    }
    wanted
}

/// Whether `group` (one point on every side) wants another process: one of its points has not failed and
/// `policy` wants another process of it (its merged record in `record` so far).
pub fn group_wants(policy: &RoundPolicy, group: &[PointState], record: &RunRecord) -> bool {
    group.iter().any(|p| !p.failed && policy.wants_another(p.merged(record), p.processes.len()))
}

/// What the next processes of `group`'s points that have not failed are expected to take together.
pub fn expected_wall(group: &[PointState]) -> Duration {
    group.iter().filter(|p| !p.failed).map(PointState::expected_wall).sum()
}

/// Whether `group` (one point on every side) may have its probes of round `round`, `elapsed` into the run,
/// out of `groups` groups sharing the budget: always its first process; its other processes of the minimum
/// (in a minimum round, or in a refining one when the deadline left it short) while the run stays within its
/// deadline; past them, only while the run stays within its budget
/// ([`RoundPolicy::affordable`]) and the group within its share of it ([`RoundPolicy::within_share`]).
pub fn budget_allows(
    policy: &RoundPolicy,
    round: usize,
    group: &[PointState],
    groups: usize,
    elapsed: Duration,
) -> bool {
    let expected = expected_wall(group);
    let spent = group.iter().map(PointState::spent_wall).sum();
    // A group left short of the minimum is owed its next process as a minimum one, whatever the round.
    let nth = round.min(group.iter().map(|p| p.processes.len()).max().unwrap_or(0) + 1);
    policy.within_share(nth, spent, expected, groups) && policy.affordable(nth, elapsed, expected)
}

/// The order in which round `round` measures a group's `sides` sides: rotated by one each round (round 1
/// `0 1 2`, round 2 `1 2 0`, …), so every side runs first equally often (`overhead_record::SIDE_ORDER`).
pub fn side_order(round: usize, sides: usize) -> impl Iterator<Item = usize> {
    (0..sides).map(move |j| (round - 1 + j) % sides)
}

/// The experiments of points the schedule gave fewer processes, costliest first, as the run says them:
/// `NAME (N points, up to M ms a process)` for each of `items` (a point's or group's experiment and what its
/// next process costs), grouped by experiment with its costliest cost, at most `named` of them, then `K more
/// experiment(s)`.
pub fn costliest_experiments<'a>(items: impl IntoIterator<Item = (&'a str, Duration)>, named: usize) -> String {
    let mut by_experiment: Vec<(&str, usize, Duration)> = Vec::new();
    for (experiment, cost) in items {
        match by_experiment.iter_mut().find(|(e, _, _)| *e == experiment) {
            Some(entry) => (entry.1, entry.2) = (entry.1 + 1, entry.2.max(cost)),
            None => by_experiment.push((experiment, 1, cost)),
        }
    }
    by_experiment.sort_by_key(|e| std::cmp::Reverse(e.2));
    let mut out: Vec<String> = by_experiment
        .iter()
        .take(named)
        .map(|(e, n, cost)| {
            let points = overhead_humanize::counted(*n, "point", "points");
            format!("{e} ({points}, up to {:.0} ms a process)", cost.as_secs_f64() * 1e3)
        })
        .collect();
    if by_experiment.len() > named {
        out.push(format!("{} more experiment(s)", by_experiment.len() - named));
    }
    out.join(", ")
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
        let mut state = PointState::new(record.spec.clone(), None);
        state.processes =
            (1..=processes).map(|round| Process { record: record.clone(), round, wall_ms, started_s: None }).collect();
        state
    }

    #[test]
    fn the_minimum_rounds_go_in_plan_order_and_a_failed_point_is_left_out() {
        let policy = RoundPolicy::for_mode(Mode::Default);
        let mut points = vec![state(30.0, 0), state(10.0, 0), state(20.0, 0)];
        points[2].failed = true;
        assert_eq!(groups_of_round(&policy, 1, &points, 1, &sample_record(), Duration::ZERO, &[]), [0, 1]);
    }

    #[test]
    fn a_refining_round_serves_the_cheapest_points_first() {
        let policy = RoundPolicy::for_mode(Mode::Default);
        // Below `stop_from` processes a point always wants another, whatever its CI.
        let points = vec![state(30.0, 1), state(10.0, 1), state(20.0, 1)];
        let refining = policy.min_rounds + 1;
        assert_eq!(groups_of_round(&policy, refining, &points, 1, &sample_record(), Duration::ZERO, &[]), [1, 2, 0]);
    }

    #[test]
    fn the_budget_binds_only_past_the_minimum_rounds() {
        let policy = RoundPolicy::for_mode(Mode::Quick);
        let (point, done) = (state(10.0, 2), state(10.0, 3));
        let late = policy.budget();
        assert!(budget_allows(&policy, policy.min_rounds, std::slice::from_ref(&point), 1, late));
        assert!(!budget_allows(&policy, policy.min_rounds + 1, std::slice::from_ref(&done), 1, late));
        assert!(budget_allows(&policy, policy.min_rounds + 1, std::slice::from_ref(&done), 1, Duration::ZERO));
        // A point the deadline left short of the minimum is owed its third in a refining round too.
        assert!(budget_allows(&policy, policy.min_rounds + 1, std::slice::from_ref(&point), 1, late));
    }

    #[test]
    fn with_sides_a_group_is_one_point_on_every_side_and_the_side_order_rotates() {
        let policy = RoundPolicy::for_mode(Mode::Default);
        // Two points on two sides: the second point's group costs 300 + 100 ms, the first 100 + 100.
        let points = vec![state(100.0, 1), state(100.0, 1), state(300.0, 1), state(100.0, 1)];
        let refining = policy.min_rounds + 1;
        assert_eq!(groups_of_round(&policy, 2, &points, 2, &sample_record(), Duration::ZERO, &[]), [0, 1]);
        assert_eq!(expected_wall(&points[2..4]), Duration::from_millis(400));
        let mut failed = points;
        (failed[0].failed, failed[1].failed) = (true, true);
        assert_eq!(groups_of_round(&policy, refining, &failed, 2, &sample_record(), Duration::ZERO, &[]), [1]);
        assert_eq!(side_order(1, 3).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(side_order(2, 3).collect::<Vec<_>>(), [1, 2, 0]);
        assert_eq!(side_order(4, 2).collect::<Vec<_>>(), [1, 0]);
    }

    #[test]
    fn a_minimum_round_goes_in_plan_order_while_it_fits_the_deadline() {
        let policy = RoundPolicy::for_mode(Mode::Default);
        let points = vec![state(300.0, 1), state(100.0, 1), state(200.0, 1)];
        assert_eq!(groups_of_round(&policy, 2, &points, 1, &sample_record(), Duration::ZERO, &[]), [0, 1, 2]);
        let near = Duration::from_secs_f64(policy.deadline_s.unwrap() - 0.5);
        assert_eq!(groups_of_round(&policy, 2, &points, 1, &sample_record(), near, &[]), [1, 2, 0], "cheapest first");
    }

    #[test]
    fn a_point_the_history_knows_is_expected_to_cost_what_it_cost_there_until_measured() {
        let spec = point("base.call", "os", &[], 1.0).spec;
        assert_eq!(PointState::new(spec.clone(), None).expected_wall(), Duration::ZERO);
        let learned = PointState::new(spec, Some(Duration::from_millis(250)));
        assert_eq!(learned.expected_wall(), Duration::from_millis(250));
        let mut measured = state(40.0, 2);
        measured.learned_wall = Some(Duration::from_millis(250));
        assert_eq!(measured.expected_wall(), Duration::from_millis(40), "this run's processes come first");
    }

    #[test]
    fn the_costliest_experiments_are_named_first_with_their_costliest_point() {
        let ms = Duration::from_millis;
        let items = [("msg.switch", ms(10)), ("mpi.bw", ms(400)), ("msg.switch", ms(360)), ("sync.faa", ms(20))];
        assert_eq!(
            costliest_experiments(items, 2),
            "mpi.bw (1 point, up to 400 ms a process), msg.switch (2 points, up to 360 ms a process), 1 more \
             experiment(s)"
        );
    }
}
