//! The rounds: which group's probes start next, round after round, until no point wants another process, the
//! last round, or a stop (docs/METHOD.md §2, §4). One loop for the real run, which starts probe processes on
//! the wall clock, and for the simulation, which replays recorded process costs on a simulated clock
//! (docs/METHOD.md "The schedule, simulated"): both make the same decisions from the same state, through
//! [`Probes`].

use std::time::Duration;

use super::between_probes::{gap_line, mean_gap_ms};
use super::minimum_plan::{allot, GroupCost, Schedule};
use super::point_state::PointState;
use super::schedule::{budget_allows, costliest_experiments, expected_wall, group_wants, groups_of_round, side_order};
use overhead_record::{RoundPolicy, RunRecord};

/// Whether the run goes on.
pub enum Flow {
    Go,
    /// Ctrl-C: no more probes.
    Stop,
}

/// What starts the probes the rounds decide on, and the clock they are decided by.
pub trait Probes {
    /// Time since the run's first probe started: the clock the deadline and the budget are read on.
    fn elapsed(&self) -> Duration;
    /// Whether the run was told to stop (Ctrl-C) before the next group.
    fn stopped(&self) -> bool;
    /// Runs point `i`'s probe of round `round` (`left` probes left in the round, the progress bar's), adding
    /// its process to `points[i]` (or marking it failed) and its merged record to `record`.
    fn probe(&mut self, round: usize, i: usize, left: usize, points: &mut [PointState], record: &mut RunRecord)
        -> Flow;
    /// After each group's probes: the real run writes the record when it is due.
    ///
    /// Errors: the record could not be written.
    fn group_done(&mut self, record: &mut RunRecord) -> anyhow::Result<()>;
    /// A refining round owes `probes` more probes (the progress bar's total grows).
    fn owe(&mut self, probes: usize);
    /// A probe owed was passed by (a failed point, the budget, the plan of the minimum).
    fn pass(&mut self);
    /// A line for the user (stderr in the real run).
    fn say(&mut self, line: &str);
}

/// Round after round of `points` (groups of `sides`, one point a side) under `policy` and `schedule`, the
/// probes started by `probes`, until no group wants another process, the last round, or a stop.
///
/// Errors: those of [`Probes::group_done`].
pub fn run_rounds<P: Probes>(
    policy: &RoundPolicy,
    schedule: Schedule,
    sides: usize,
    points: &mut [PointState],
    record: &mut RunRecord,
    probes: &mut P,
) -> anyhow::Result<()> {
    let groups = points.len() / sides.max(1);
    let mut allotted = vec![policy.min_rounds; groups];
    for round in 1..=policy.max_rounds {
        let elapsed = probes.elapsed();
        if schedule == Schedule::Allotted && (2..=policy.min_rounds).contains(&round) {
            let planned = plan_minimum(policy, round, sides, points, record, elapsed);
            // A group whose points all failed is owed nothing: it neither gives way nor is said to.
            let live = |g: &usize| group_wants(policy, &points[g * sides..(g + 1) * sides], record);
            if (0..groups).filter(live).any(|g| planned[g] != allotted[g]) {
                say_what_gives_way(probes, round, policy, sides, points, record, &planned);
            }
            allotted = planned;
            pass_by_allotment(probes, policy, sides, points, record, &allotted);
        }
        let wanted = groups_of_round(policy, round, points, sides, record, elapsed, &allotted);
        if wanted.is_empty() {
            if round > policy.min_rounds || schedule == Schedule::Walk {
                break;
            }
            continue;
        }
        if round > policy.min_rounds {
            probes.owe(wanted.len() * sides);
        }
        if let Flow::Stop = run_round(policy, round, &wanted, sides, points, record, probes)? {
            break;
        }
    }
    // A point a refining round brought up to the minimum is no longer short of it.
    for state in points.iter_mut().filter(|p| p.processes.len() >= policy.min_rounds) {
        state.short_of_minimum = false;
    }
    Ok(())
}

/// One round: for each of `wanted` (groups: a point on every side) that the budget allows, a probe per side
/// that has not failed, back to back, the sides in the round's rotated order.
///
/// Errors: those of [`Probes::group_done`].
fn run_round<P: Probes>(
    policy: &RoundPolicy,
    round: usize,
    wanted: &[usize],
    sides: usize,
    points: &mut [PointState],
    record: &mut RunRecord,
    probes: &mut P,
) -> anyhow::Result<Flow> {
    let groups = points.len() / sides;
    for (done_in_round, &g) in wanted.iter().enumerate() {
        if probes.stopped() {
            return Ok(Flow::Stop);
        }
        let members = g * sides..(g + 1) * sides;
        if !budget_allows(policy, round, &points[members.clone()], groups, probes.elapsed()) {
            for state in &mut points[members] {
                match round <= policy.min_rounds {
                    true => state.short_of_minimum = true,
                    false => state.out_of_budget = true,
                }
                probes.pass();
            }
            continue;
        }
        for (done_in_group, side) in side_order(round, sides).enumerate() {
            let i = g * sides + side;
            if points[i].failed {
                probes.pass();
                continue;
            }
            let left = (wanted.len() - done_in_round) * sides - done_in_group;
            if let Flow::Stop = probes.probe(round, i, left, points, record) {
                return Ok(Flow::Stop);
            }
        }
        probes.group_done(record)?;
    }
    Ok(Flow::Go)
}

/// The plan of the rest of the minimum, made before minimum round `round` (past the first) starts `elapsed`
/// into the run: per group, how many processes of the minimum it gets ([`allot`]), from what its next process
/// is expected to cost plus the overhead the run is expected to pay after it ([`overhead_per_probe`]), against the time left before the deadline. Without a deadline, the whole minimum.
fn plan_minimum(
    policy: &RoundPolicy,
    round: usize,
    sides: usize,
    points: &[PointState],
    record: &RunRecord,
    elapsed: Duration,
) -> Vec<usize> {
    let groups = points.len() / sides;
    let Some(deadline_s) = policy.deadline_s else {
        return vec![policy.min_rounds; groups];
    };
    // `--budget` may ask for more seconds than a Duration holds (1e20): such a deadline never binds.
    let left = Duration::try_from_secs_f64(deadline_s).unwrap_or(Duration::MAX).saturating_sub(elapsed);
    let rounds_left = policy.min_rounds + 1 - round;
    // The gap after each probe grows with the processes done, so it depends on how many the plan gives:
    // planned once with the whole minimum's, then again with the first plan's.
    let owed = |allotted: &[usize]| -> usize {
        let owed_by = |(i, p): (usize, &PointState)| allotted[i / sides].saturating_sub(p.processes.len());
        points.iter().enumerate().filter(|(_, p)| !p.failed).map(owed_by).sum()
    };
    let mut allotted = vec![policy.min_rounds; groups];
    for _ in 0..2 {
        let between = overhead_per_probe(points, owed(&allotted));
        let costs: Vec<GroupCost> = points
            .chunks(sides)
            .map(|group| {
                let live = group.iter().filter(|p| !p.failed).count();
                GroupCost {
                    next: expected_wall(group) + between * live as u32,
                    have: group.iter().map(|p| p.processes.len()).max().unwrap_or(0),
                    live: group_wants(policy, group, record),
                }
            })
            .collect();
        allotted = allot(&costs, policy.min_rounds, rounds_left, left);
    }
    allotted
}

/// The gap the run is expected to pay after each of its next `next` probes (the orchestrator's own work,
/// which grows with the record): the line through its gaps so far ([`gap_line`]), read halfway through them.
fn overhead_per_probe(points: &[PointState], next: usize) -> Duration {
    let mut runs: Vec<(f64, f64)> =
        points.iter().flat_map(|p| &p.processes).filter_map(|q| Some((q.started_s?, q.wall_ms / 1e3))).collect();
    runs.sort_by(|a, b| a.0.total_cmp(&b.0));
    Duration::from_secs_f64(mean_gap_ms(gap_line(&runs), runs.len(), next) / 1e3)
}

/// Marks the groups the plan of the minimum gives no more processes, and that want one, short of the
/// minimum, each of their probes of this round passed by.
fn pass_by_allotment<P: Probes>(
    probes: &mut P,
    policy: &RoundPolicy,
    sides: usize,
    points: &mut [PointState],
    record: &RunRecord,
    allotted: &[usize],
) {
    for (g, &given) in allotted.iter().enumerate() {
        let group = &points[g * sides..(g + 1) * sides];
        let have = group.iter().map(|p| p.processes.len()).max().unwrap_or(0);
        if given > have || !group_wants(policy, group, record) {
            continue;
        }
        for state in &mut points[g * sides..(g + 1) * sides] {
            state.short_of_minimum = true;
            probes.pass();
        }
    }
}

/// Says, before round `round`, which points the plan of the minimum gives fewer processes: how many (how many
/// only one), and the experiments they belong to with their groups' counts, costliest first (at most eight
/// named).
fn say_what_gives_way<P: Probes>(
    probes: &mut P,
    round: usize,
    policy: &RoundPolicy,
    sides: usize,
    points: &[PointState],
    record: &RunRecord,
    allotted: &[usize],
) {
    let live = |g: usize| group_wants(policy, &points[g * sides..(g + 1) * sides], record);
    let short: Vec<usize> = (0..allotted.len()).filter(|&g| allotted[g] < policy.min_rounds && live(g)).collect();
    if short.is_empty() {
        return;
    }
    let costs = short.iter().map(|&g| {
        let group = &points[g * sides..(g + 1) * sides];
        (group[0].spec.experiment.as_str(), expected_wall(group))
    });
    let named = costliest_experiments(costs, 8);
    let single = short.iter().filter(|&&g| allotted[g] <= 1).count();
    probes.say(&format!(
        "round {round}: the minimum of {} processes does not fit the deadline; {} point(s) will get fewer ({single} \
         only one), the costliest first: {named}",
        policy.min_rounds,
        short.len() * sides,
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_analysis::Process;
    use overhead_harness::Mode;
    use overhead_record::fixture::{point, sample_record};

    /// Probes on a clock that advances by each point's cost (ms, one per point) and `gap_ms` after each.
    struct Ticks {
        costs_ms: Vec<f64>,
        gap_ms: f64,
        now: Duration,
        /// Points whose first probe fails.
        failing: Vec<usize>,
        /// What the run said between rounds.
        said: Vec<String>,
    }

    impl Ticks {
        fn new(costs_ms: &[f64], gap_ms: f64) -> Ticks {
            Ticks { costs_ms: costs_ms.to_vec(), gap_ms, now: Duration::ZERO, failing: vec![], said: vec![] }
        }
    }

    impl Probes for Ticks {
        fn elapsed(&self) -> Duration {
            self.now
        }
        fn stopped(&self) -> bool {
            false
        }
        fn probe(&mut self, round: usize, i: usize, _: usize, points: &mut [PointState], _: &mut RunRecord) -> Flow {
            let wall_ms = self.costs_ms[i];
            let started_s = Some(self.now.as_secs_f64());
            self.now += Duration::from_secs_f64((wall_ms + self.gap_ms) / 1e3);
            if self.failing.contains(&i) {
                points[i].failed = true;
                return Flow::Go;
            }
            let record = point("base.call", "os", &[], 1.0);
            points[i].processes.push(Process { record, round, wall_ms, started_s });
            Flow::Go
        }
        fn group_done(&mut self, _: &mut RunRecord) -> anyhow::Result<()> {
            Ok(())
        }
        fn owe(&mut self, _: usize) {}
        fn pass(&mut self) {}
        fn say(&mut self, line: &str) {
            self.said.push(line.to_string());
        }
    }

    /// Runs the rounds of `schedule` on points costing `costs_ms` each: the time the last probe ended and each
    /// point's process count.
    fn run(policy: &RoundPolicy, schedule: Schedule, costs_ms: &[f64]) -> (Duration, Vec<usize>) {
        run_with_gap(policy, schedule, costs_ms, 0.0)
    }

    /// [`run`] with `gap_ms` after each probe.
    fn run_with_gap(policy: &RoundPolicy, schedule: Schedule, costs_ms: &[f64], gap_ms: f64) -> (Duration, Vec<usize>) {
        let spec = point("base.call", "os", &[], 1.0).spec;
        let mut points: Vec<PointState> = costs_ms.iter().map(|_| PointState::new(spec.clone(), None)).collect();
        let mut ticks = Ticks::new(costs_ms, gap_ms);
        run_rounds(policy, schedule, 1, &mut points, &mut sample_record(), &mut ticks).unwrap();
        (ticks.now, points.iter().map(|p| p.processes.len()).collect())
    }

    /// A deadline past what a `Duration` holds (`--budget 1e20`) never binds, and a point that failed is owed
    /// nothing: the run says no point gives way when every live one gets its minimum.
    #[test]
    fn a_huge_deadline_binds_nothing_and_a_failed_point_gives_nothing_way() {
        let policy = RoundPolicy { max_rounds: 3, ..RoundPolicy::for_mode(Mode::Default) }.with_budget(1e20);
        let spec = point("base.call", "os", &[], 1.0).spec;
        let mut points: Vec<PointState> = (0..4).map(|_| PointState::new(spec.clone(), None)).collect();
        let mut ticks = Ticks { failing: vec![2], ..Ticks::new(&[10.0; 4], 0.0) };
        run_rounds(&policy, Schedule::Allotted, 1, &mut points, &mut sample_record(), &mut ticks).unwrap();
        let processes: Vec<usize> = points.iter().map(|p| p.processes.len()).collect();
        assert_eq!(processes, [3, 3, 0, 3]);
        assert!(ticks.said.is_empty(), "{:?}", ticks.said);
    }

    #[test]
    fn a_slow_host_loses_its_most_expensive_processes_to_the_deadline_and_no_first_one() {
        // Eighteen 100 ms points and two 5 s ones (an MPI launch on a slow host), three processes owed to
        // each within a 20 s deadline and no refining: 35.4 s of minimum rounds.
        let policy = RoundPolicy {
            max_rounds: 3,
            budget_s: 0.0,
            deadline_s: Some(20.0),
            ..RoundPolicy::for_mode(Mode::Default)
        };
        let mut costs = vec![100.0; 20];
        (costs[3], costs[11]) = (5000.0, 5000.0);
        for schedule in [Schedule::Walk, Schedule::Allotted] {
            let (ended, processes) = run(&policy, schedule, &costs);
            assert!(ended.as_secs_f64() <= 20.0 + 1e-9, "{schedule:?}: the last probe ended at {ended:?}");
            assert!(processes.iter().all(|&n| n >= 1), "{schedule:?}: every point keeps its first: {processes:?}");
            // Round 1 ends at 11.8 s. Walking, round 2 would end at 23.6 s, so it serves the cheap points
            // first (13.6 s) and the first expensive one (18.6 s). Allotted, the plan of round 2 takes the
            // second process from the later expensive point alone (6.8 s owed in 8.2 s). Either way round 3
            // has room for fourteen cheap processes.
            assert_eq!((processes[3], processes[11]), (2, 1), "{schedule:?}");
            let cheap: Vec<usize> =
                processes.iter().enumerate().filter(|(i, _)| ![3, 11].contains(i)).map(|(_, &n)| n).collect();
            assert_eq!(cheap.iter().filter(|&&n| n == 3).count(), 14, "{schedule:?}");
            assert!(cheap.iter().all(|&n| n >= 2), "{schedule:?}: {cheap:?}");
        }
    }

    #[test]
    fn walking_the_plan_cuts_what_comes_last_and_the_allotment_what_costs_most() {
        // Ten 1 s points, then ten 100 ms ones, and 100 ms of the orchestrator's own after each probe, which a
        // walk does not foresee: round 1 ends at 13 s, and round 2, expected to take 11 s, fits the 24.5 s
        // deadline in plan order; with its gaps it takes 13.
        let policy = RoundPolicy {
            max_rounds: 3,
            budget_s: 0.0,
            deadline_s: Some(24.5),
            ..RoundPolicy::for_mode(Mode::Default)
        };
        let costs: Vec<f64> = (0..20).map(|i| if i < 10 { 1000.0 } else { 100.0 }).collect();
        let (_, walked) = run_with_gap(&policy, Schedule::Walk, &costs, 100.0);
        let (_, allotted) = run_with_gap(&policy, Schedule::Allotted, &costs, 100.0);
        // Walking, the deadline cuts the end of the plan: seven cheap points keep one process.
        assert_eq!(walked[10..].iter().filter(|&&n| n == 1).count(), 7, "{walked:?}");
        // Planned with the gaps, two costly points give way, and every cheap point gets two processes or
        // three.
        assert_eq!(allotted[..10].iter().filter(|&&n| n == 1).count(), 2, "{allotted:?}");
        assert!(allotted[10..].iter().all(|&n| n >= 2), "{allotted:?}");
        assert!(allotted.iter().filter(|&&n| n == 1).count() < walked.iter().filter(|&&n| n == 1).count());
    }

    #[test]
    fn a_run_that_fits_its_deadline_gets_every_minimum_process() {
        let policy = RoundPolicy { max_rounds: 3, budget_s: 0.0, ..RoundPolicy::for_mode(Mode::Quick) };
        for schedule in [Schedule::Walk, Schedule::Allotted] {
            let (ended, processes) = run(&policy, schedule, &[100.0; 40]);
            assert_eq!(ended, Duration::from_secs(12));
            assert!(processes.iter().all(|&n| n == 3));
        }
    }
}
