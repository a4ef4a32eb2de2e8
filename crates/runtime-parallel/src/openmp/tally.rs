//! The `openmp` runtime's tally of `grain.sweep`'s tasks per CPU: OpenMP's C tasks count per team
//! thread in slots that each run overwrites, so [`OmpTally`] collects them after every run and maps
//! thread `i` to the CPU it is pinned to.

use std::cell::RefCell;

use super::Team;
use overhead_runtime_api::grain_tally::Tally;

/// The `openmp` tally: after each [`Team::grain`] run, adds [`Team::tasks_per_thread`] to the count of
/// each thread's CPU (`team.cpus()[i]`). A thread whose pinning was refused is still counted on its
/// CPU; [`Team::notes`] says so.
pub struct OmpTally<'t> {
    team: &'t Team,
    /// Index: CPU; the last slot (other CPUs) stays 0 and is there for the shape of [`Tally::take_counts`].
    counts: RefCell<Vec<u64>>,
}

impl<'t> OmpTally<'t> {
    /// An empty tally for `team`'s CPUs.
    pub fn new(team: &'t Team) -> OmpTally<'t> {
        let slots = team.cpus().iter().copied().max().unwrap_or(0) + 2;
        OmpTally { team, counts: RefCell::new(vec![0; slots]) }
    }
}

impl Tally for OmpTally<'_> {
    fn after_run(&self) {
        let mut counts = self.counts.borrow_mut();
        for (&cpu, ran) in self.team.cpus().iter().zip(self.team.tasks_per_thread()) {
            counts[cpu] += ran;
        }
    }

    fn take_counts(&self) -> Vec<u64> {
        let mut counts = self.counts.borrow_mut();
        let taken = counts.clone();
        counts.iter_mut().for_each(|c| *c = 0);
        taken
    }
}

#[cfg(all(test, overhead_openmp))]
mod tests {
    use super::*;

    /// Every task of every run is counted once, on one of the team's CPUs, and taking the counts zeroes
    /// them.
    #[test]
    fn omp_counts_add_up_to_the_tasks_of_every_run() {
        let allowed = overhead_machine::allowed_cpus();
        let cpus: Vec<usize> = (0..2).map(|i| allowed[i % allowed.len()]).collect();
        let team = Team::pinned(&cpus).unwrap();
        let tally = OmpTally::new(&team);
        for tasks in [1u64, 7, 1000] {
            for _ in 0..3 {
                team.grain(10_000, tasks);
                tally.after_run();
            }
            let counts = tally.take_counts();
            assert_eq!(counts.iter().sum::<u64>(), 3 * tasks, "{tasks} tasks: {counts:?}");
            let off_team: u64 = counts.iter().enumerate().filter(|(cpu, _)| !cpus.contains(cpu)).map(|e| e.1).sum();
            assert_eq!(off_team, 0, "{counts:?}");
            assert!(tally.take_counts().iter().all(|&c| c == 0), "take_counts zeroes the tally");
        }
    }
}
