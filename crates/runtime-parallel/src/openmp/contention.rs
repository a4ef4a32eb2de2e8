//! Contention between CPUs in a pinned libgomp team: each operation is a C kernel's loop in one parallel
//! region, against the same region with an empty loop (the region's fork-join cancels); the region ends
//! when its slowest thread does.

use super::{OpenMp, Team};
use overhead_harness::Harness;
use overhead_record::Outcome;
use overhead_runtime_api::contention::{AtomicImpl, BarrierImpl, Contention, FetchAndAdd, LockImpl};
use overhead_runtime_api::offer::not_offered;

impl Contention for OpenMp {
    /// `#pragma omp atomic` increments of one shared or per-thread counter.
    fn fetch_and_add(&self, faa: FetchAndAdd, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome> {
        let FetchAndAdd { implementation, variable } = faa;
        match implementation {
            AtomicImpl::OmpAtomic => {}
            other @ (AtomicImpl::Hw | AtomicImpl::HashedLock) => return Err(not_offered("openmp", "impl", other)),
        }
        let team = Team::pinned(cpus)?;
        let measurement = h.measure(
            |n| {
                std::hint::black_box(team.faa(n, variable));
            },
            |n| team.team_loop(n),
        );
        Ok(with_notes(measurement.into(), &team))
    }

    /// `#pragma omp barrier`.
    fn barrier(&self, implementation: BarrierImpl, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome> {
        match implementation {
            BarrierImpl::OmpBarrier => {}
            other @ (BarrierImpl::Std | BarrierImpl::Spin | BarrierImpl::Pthread | BarrierImpl::Cyclic) => {
                return Err(not_offered("openmp", "impl", other))
            }
        }
        let team = Team::pinned(cpus)?;
        Ok(with_notes(h.measure(|n| team.barrier(n), |n| team.team_loop(n)).into(), &team))
    }

    /// `omp_lock_t` around a shared counter's increment; the count proves mutual exclusion held in every
    /// timed batch.
    fn lock(&self, lock: LockImpl, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome> {
        match lock {
            LockImpl::OmpLock => {}
            other @ (LockImpl::Std
            | LockImpl::Spin
            | LockImpl::Futex
            | LockImpl::ParkingLot
            | LockImpl::SpinCrate
            | LockImpl::Mutex
            | LockImpl::Synchronized
            | LockImpl::Reentrant) => return Err(not_offered("openmp", "lock", other)),
        }
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
