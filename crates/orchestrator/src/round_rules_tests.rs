//! Tests of [`RoundPolicy`]'s rules (its home is `overhead_record`) on synthetic points merged as the run merges
//! them, which needs the analysis above the record.

use overhead_analysis::{merge_processes, Flagging, Process};
use overhead_harness::Mode;
use overhead_record::fixture::point;
use overhead_record::RoundPolicy;
use overhead_stats::synthetic::{two_level, Rng};
use overhead_stats::Summary;
use std::time::Duration;

const RULES: Flagging = Flagging { noisy_fraction: 0.05, unstable_spread: 0.01, cycle_ns: None };

/// Runs the policy on a synthetic point whose processes have process effect sd `between` and batch sd
/// `within` around 100: returns how many processes it got.
fn processes_until_stop(policy: &RoundPolicy, rng: &mut Rng, between: f64, within: f64) -> usize {
    let mut processes: Vec<Process> = Vec::new();
    let mut merged = None;
    while policy.wants_another(merged.as_ref(), processes.len()) {
        let samples = two_level(rng, 1, 5, 100.0, between, within).remove(0);
        let mut record = point("base.call", "os", &[], 100.0);
        record.summary = Summary::of(&samples).unwrap();
        record.samples_ns = samples;
        processes.push(Process { record, round: processes.len() + 1, wall_ms: 1.0, started_s: None });
        merged = Some(merge_processes(&processes, &RULES));
    }
    processes.len()
}

#[test]
fn a_stable_point_stops_at_the_minimum_and_an_unstable_one_keeps_going() {
    let policy = RoundPolicy::for_mode(Mode::Default);
    let mut rng = Rng::new(42);
    for _ in 0..20 {
        assert_eq!(processes_until_stop(&policy, &mut rng, 0.1, 0.5), policy.stop_from);
    }
    // Processes 10% apart: the CI does not reach 3% in a few processes, but for a rare draw whose middle
    // processes agree by chance (from five processes the interval is the trimmed one, over the middle three:
    // honest on average, narrow now and then).
    let rounds: Vec<usize> = (0..20).map(|_| processes_until_stop(&policy, &mut rng, 10.0, 0.5)).collect();
    assert!(rounds.iter().filter(|&&r| r > policy.stop_from).count() >= 18, "{rounds:?}");
    assert!(rounds.iter().all(|&r| r <= policy.max_rounds), "{rounds:?}");
    assert!(rounds.iter().filter(|&&r| r == policy.max_rounds).count() >= 10, "{rounds:?}");
}

#[test]
fn a_part_of_the_plan_gets_its_share_of_the_budget() {
    let default = RoundPolicy::for_mode(Mode::Default);
    assert_eq!(default.for_part(315, 315).budget_s, 80.0);
    assert_eq!(default.for_part(630, 315).budget_s, 80.0, "more runtimes than the default: never more");
    assert_eq!(default.for_part(180, 360).budget_s, 40.0);
    assert_eq!(default.for_part(1, 360).budget_s, 20.0, "at least a quarter");
    assert_eq!(default.for_part(0, 0).budget_s, 20.0);
    assert_eq!(default.for_part(180, 360).max_rounds, default.max_rounds, "only the budget changes");
}

#[test]
fn the_budget_binds_only_after_the_minimum_rounds() {
    let policy = RoundPolicy::for_mode(Mode::Quick);
    let late = policy.budget() + Duration::from_secs(1);
    assert!(policy.affordable(policy.min_rounds, late, Duration::ZERO));
    assert!(!policy.affordable(policy.min_rounds + 1, late, Duration::ZERO));
    assert!(policy.affordable(policy.min_rounds + 1, Duration::ZERO, Duration::from_secs(1)));
    assert!(!policy.affordable(policy.min_rounds + 1, policy.budget(), Duration::from_millis(1)));
}

#[test]
fn an_expensive_point_stops_at_its_share_of_the_budget() {
    let policy = RoundPolicy::for_mode(Mode::Default);
    let points = 100;
    let share = Duration::from_secs_f64(policy.max_share * policy.budget_s / points as f64);
    let refining = policy.min_rounds + 1;
    assert!(policy.within_share(refining, share / 2, share / 4, points));
    assert!(!policy.within_share(refining, share, Duration::from_millis(1), points));
    // The minimum rounds are owed whatever they cost.
    assert!(policy.within_share(policy.min_rounds, share * 3, share, points));
}

#[test]
fn the_deadline_binds_every_round_but_the_first() {
    let policy = RoundPolicy::for_mode(Mode::Default);
    let deadline = Duration::from_secs_f64(policy.deadline_s.unwrap());
    let late = deadline + Duration::from_secs(1);
    assert!(policy.affordable(1, late, Duration::from_secs(5)), "every point keeps its first process");
    assert!(!policy.affordable(2, late, Duration::ZERO), "a minimum round is owed only within the deadline");
    assert!(!policy.affordable(2, deadline - Duration::from_secs(1), Duration::from_secs(2)));
    assert!(policy.affordable(2, deadline - Duration::from_secs(2), Duration::from_secs(1)));
    assert!(policy.round_overruns(2, deadline - Duration::from_secs(2), Duration::from_secs(3)));
    assert!(!policy.round_overruns(1, late, Duration::from_secs(3)), "the first round is never cut");
    let old = RoundPolicy { deadline_s: None, ..policy };
    assert!(old.affordable(2, late * 100, Duration::ZERO), "a policy without a deadline owes the minimum rounds");
}

#[test]
fn a_longer_budget_moves_the_deadline_out_and_a_shorter_one_keeps_it() {
    let policy = RoundPolicy::for_mode(Mode::Quick);
    assert_eq!(policy.with_budget(100.0).deadline_s, Some(100.0));
    assert_eq!(policy.with_budget(0.0).deadline_s, policy.deadline_s);
    assert_eq!(policy.with_budget(0.0).budget_s, 0.0);
}
