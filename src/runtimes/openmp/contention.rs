//! Contention between CPUs in a pinned libgomp team: each operation is a C kernel's loop in one parallel
//! region, against the same region with an empty loop (the region's fork-join cancels); the region ends
//! when its slowest thread does.

use super::{OpenMp, Team, Variable};
use crate::harness::Harness;
use crate::record::Outcome;
use crate::runtimes::contention::Contention;

impl Contention for OpenMp {
    fn atomic_impls(&self) -> &'static [&'static str] {
        &["omp_atomic"]
    }

    /// `#pragma omp atomic` increments of one shared or per-thread counter.
    fn fetch_and_add(
        &self,
        implementation: &str,
        shared: bool,
        cpus: &[usize],
        h: &Harness,
    ) -> anyhow::Result<Outcome> {
        anyhow::ensure!(implementation == "omp_atomic", "unknown sync.faa impl {implementation:?} for openmp");
        let variable = if shared { Variable::Shared } else { Variable::Distinct };
        let team = Team::pinned(cpus)?;
        let measurement = h.measure(
            |n| {
                std::hint::black_box(team.faa(n, variable));
            },
            |n| team.team_loop(n),
        );
        Ok(with_notes(measurement.into(), &team))
    }

    fn barrier_impls(&self) -> &'static [&'static str] {
        &["omp_barrier"]
    }

    /// `#pragma omp barrier`.
    fn barrier(&self, implementation: &str, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome> {
        anyhow::ensure!(implementation == "omp_barrier", "unknown sync.barrier impl {implementation:?} for openmp");
        let team = Team::pinned(cpus)?;
        Ok(with_notes(h.measure(|n| team.barrier(n), |n| team.team_loop(n)).into(), &team))
    }

    fn lock_impls(&self) -> &'static [&'static str] {
        &["omp_lock"]
    }

    /// `omp_lock_t` around a shared counter's increment; the count proves mutual exclusion held in every
    /// timed batch.
    fn lock(&self, implementation: &str, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome> {
        anyhow::ensure!(implementation == "omp_lock", "unknown sync.mutex lock {implementation:?} for openmp");
        let team = Team::pinned(cpus)?;
        let threads = cpus.len() as u64;
        let (mut counted, mut asked) = (0u64, 0u64);
        let measurement = h.measure(
            |n| {
                counted += team.mutex(n);
                asked += n * threads;
            },
            |n| team.team_loop(n),
        );
        anyhow::ensure!(counted == asked, "omp_lock_t lost updates: counted {counted} of {asked}");
        Ok(with_notes(measurement.into(), &team))
    }
}

/// `outcome` with the team's notes (refused pinning, team size).
fn with_notes(mut outcome: Outcome, team: &Team) -> Outcome {
    outcome.notes = team.notes();
    outcome
}
