//! How many of the minimum rounds each group of points gets when they do not all fit before the deadline:
//! planned from what each group's next process is expected to cost, the costliest groups giving way first
//! (docs/METHOD.md §4, "A deadline, planned from what processes cost here").

use std::time::Duration;

/// Which minimum rounds a run's schedule gives its groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule {
    /// Before each minimum round past the first, the rest of the minimum is planned against the deadline
    /// ([`allot`]): when it does not fit, the costliest groups get fewer processes, so every cheap group gets
    /// its minimum and every group its second process before any its third.
    Allotted,
    /// Every minimum round walks the whole plan while it is expected to fit, and serves the cheapest groups
    /// first only in the round that would overrun: the schedule of runs before the allotment (its records
    /// are what the simulation is checked against).
    Walk,
}

impl Schedule {
    /// How many times the last rewrite of the record took a run of this schedule waits before the next
    /// (`record_writer::WRITE_SHARE`): the builds that walked the plan rewrote it every second whatever it
    /// took (0).
    pub fn write_share(self) -> u32 {
        match self {
            Schedule::Allotted => super::record_writer::WRITE_SHARE,
            Schedule::Walk => 0,
        }
    }

    /// The schedule named `name` (`allotted`, `walk`).
    ///
    /// Errors: another name, with the known ones.
    pub fn named(name: &str) -> Result<Schedule, String> {
        match name {
            "allotted" => Ok(Schedule::Allotted),
            "walk" => Ok(Schedule::Walk),
            other => Err(format!("schedule {other:?}: expected `allotted` or `walk`")),
        }
    }
}

/// A group's place in the plan of the minimum: what its next process is expected to take (its points on
/// every side together, with the run's overhead between probes), how many processes it has, and whether it
/// still wants any (a group whose points all failed does not).
#[derive(Debug, Clone, Copy)]
pub struct GroupCost {
    pub next: Duration,
    pub have: usize,
    pub live: bool,
}

/// How many processes each group gets of the `min_rounds` minimum when `left` is all the time there is
/// before the deadline and `rounds_left` minimum rounds are left (a group gets at most one process a round):
/// every group its `min_rounds` (or what it can still reach) when their remaining processes fit; otherwise groups
/// give way one at a time, costliest first, first down to `min_rounds - 1` processes, then (only if every
/// group is there and it still does not fit) to `min_rounds - 2`, and so on, never below what a group already
/// has nor below one. Dropping the costliest processes first keeps the most processes in the time, and
/// keeping the second process of every group before anyone's third keeps a between-process spread for every
/// point (Kalibera & Jones 2013: repetitions where they cost the least). Ties keep plan order: the later
/// group gives way first. The time the cuts freed beyond what they had to goes back to the groups, second
/// processes before third ones, cheapest first.
pub fn allot(groups: &[GroupCost], min_rounds: usize, rounds_left: usize, left: Duration) -> Vec<usize> {
    let reach: Vec<usize> = groups.iter().map(|g| min_rounds.min(g.have + rounds_left).max(g.have)).collect();
    let mut target = reach.clone();
    let owed = |t: &[usize]| -> Duration {
        groups.iter().zip(t).filter(|(g, _)| g.live).map(|(g, &t)| g.next * (t.saturating_sub(g.have)) as u32).sum()
    };
    let mut costliest: Vec<usize> = (0..groups.len()).filter(|&g| groups[g].live).collect();
    costliest.sort_by(|&a, &b| groups[b].next.cmp(&groups[a].next).then(b.cmp(&a)));
    'cut: for level in (1..min_rounds).rev() {
        for &g in &costliest {
            if owed(&target) <= left {
                break 'cut;
            }
            target[g] = target[g].min(level.max(groups[g].have));
        }
    }
    // What giving way left over goes back, lowest process first and cheapest group first: the last cut may
    // have freed more than it needed.
    let mut spare = left.saturating_sub(owed(&target));
    for level in 1..=min_rounds {
        for &g in costliest.iter().rev() {
            if target[g] + 1 == level && level <= reach[g] && groups[g].next <= spare {
                target[g] = level;
                spare -= groups[g].next;
            }
        }
    }
    target
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(ms: u64, have: usize) -> GroupCost {
        GroupCost { next: Duration::from_millis(ms), have, live: true }
    }

    #[test]
    fn a_minimum_that_fits_is_given_whole() {
        let groups = [group(100, 1), group(200, 1)];
        assert_eq!(allot(&groups, 3, 2, Duration::from_millis(600)), [3, 3]);
    }

    #[test]
    fn the_costliest_give_way_first_and_only_as_far_as_needed() {
        // Owed: 2 × (100 + 100 + 2000 + 1000) = 6.4 s; 4 s left. The 2 s group gives way first (−2 s), then the
        // 1 s group (−1 s): 3.4 s fits.
        let groups = [group(100, 1), group(100, 1), group(2000, 1), group(1000, 1)];
        assert_eq!(allot(&groups, 3, 2, Duration::from_secs(4)), [3, 3, 2, 2]);
        // With 5 s, the 2 s group alone gives way.
        assert_eq!(allot(&groups, 3, 2, Duration::from_secs(5)), [3, 3, 2, 3]);
    }

    #[test]
    fn every_group_keeps_its_second_process_before_any_loses_it() {
        let groups = [group(100, 1), group(2000, 1), group(1000, 1)];
        // Second processes alone cost 3.1 s; with 1.5 s the costliest loses its second, the rest keep theirs,
        // and the 0.4 s that cut freed beyond its need buys the cheapest group its third.
        assert_eq!(allot(&groups, 3, 2, Duration::from_millis(1500)), [3, 1, 2]);
        // Nothing left: every group keeps what it has.
        assert_eq!(allot(&groups, 3, 2, Duration::ZERO), [1, 1, 1]);
        // A group never gives back processes it has, nor is a failed group owed anything.
        let mut done = groups;
        done[1] = group(2000, 2);
        done[2].live = false;
        assert_eq!(allot(&done, 3, 2, Duration::from_millis(200)), [3, 2, 3]);
    }

    #[test]
    fn a_group_cut_to_one_process_keeps_its_second_before_any_other_gets_its_third() {
        // The last minimum round: the costly group has one process and can reach two; the cheap ones have two.
        let groups = [group(100, 2), group(100, 2), group(1000, 1)];
        assert_eq!(allot(&groups, 3, 1, Duration::from_millis(1100)), [3, 2, 2], "the later cheap group gives way");
        assert_eq!(allot(&groups, 3, 1, Duration::from_millis(1000)), [2, 2, 2]);
        assert_eq!(allot(&groups, 3, 1, Duration::from_millis(900)), [3, 3, 1], "its second only when it must");
        // The cut of its second freed 1 s: the cheap groups get their thirds back.
        assert_eq!(allot(&groups, 3, 1, Duration::from_millis(250)), [3, 3, 1]);
        assert_eq!(allot(&groups, 3, 1, Duration::from_millis(150)), [3, 2, 1]);
    }

    #[test]
    fn of_equal_costs_the_later_group_gives_way_first() {
        let groups = [group(500, 2), group(500, 2), group(500, 2)];
        assert_eq!(allot(&groups, 3, 2, Duration::from_millis(1000)), [3, 3, 2]);
    }

    #[test]
    fn schedules_are_named() {
        assert_eq!(Schedule::named("walk"), Ok(Schedule::Walk));
        assert!(Schedule::named("fifo").unwrap_err().contains("expected `allotted` or `walk`"));
    }
}
