//! `sync.rwlock` on kernel threads: std's, parking_lot's and the `spin` crate's reader-writer locks, each
//! guarding one `u64`, under a team of one pinned thread per CPU.

use std::hint::black_box;

use super::Os;
use overhead_harness::Harness;
use overhead_record::Outcome;
use overhead_runtime_api::contention::{rwlock_writes, RwLockContention, RwLockImpl};

/// A reader-writer lock around one counter, as `sync.rwlock` uses it: a write adds 1 under the write lock, a
/// read loads the value under the read lock. Implemented for each lock `os` offers, so the timed loop
/// ([`rw_ops`]) is one monomorphised body per lock, with no dynamic call in it.
pub trait CounterRwLock: Sync {
    /// Takes the write lock, adds 1 to the counter, releases it.
    fn increment(&self);
    /// Takes the read lock, loads the counter, releases it; returns the value loaded.
    fn read(&self) -> u64;
}

impl CounterRwLock for std::sync::RwLock<u64> {
    #[inline(always)]
    fn increment(&self) {
        // A poisoned lock (a panicking holder) cannot happen here: nothing panics inside.
        *self.write().unwrap_or_else(|e| e.into_inner()) += 1;
    }
    #[inline(always)]
    fn read(&self) -> u64 {
        *self.read().unwrap_or_else(|e| e.into_inner())
    }
}

impl CounterRwLock for parking_lot::RwLock<u64> {
    #[inline(always)]
    fn increment(&self) {
        *self.write() += 1;
    }
    #[inline(always)]
    fn read(&self) -> u64 {
        *parking_lot::RwLock::read(self)
    }
}

impl CounterRwLock for spin::RwLock<u64> {
    #[inline(always)]
    fn increment(&self) {
        *self.write() += 1;
    }
    #[inline(always)]
    fn read(&self) -> u64 {
        *spin::RwLock::read(self)
    }
}

/// One thread's batch of `n` operations on `lock`: operation `i` writes when [`rwlock_writes`] says so,
/// otherwise reads (the value kept alive with `black_box`). The timed body of `sync.rwlock`.
#[inline(always)]
pub fn rw_ops<L: CounterRwLock>(lock: &L, writers_percent: u32, n: u64) {
    let lock = black_box(lock);
    for i in 0..n {
        if rwlock_writes(i, writers_percent) {
            lock.increment();
        } else {
            black_box(lock.read());
        }
    }
}

/// The control of [`rw_ops`]: the same loop and the same choice of read or write, without the lock, so that
/// the index arithmetic of the choice is subtracted and the result is the lock's own cost.
#[inline(always)]
pub fn rw_choice_only(writers_percent: u32, n: u64) {
    for i in 0..n {
        black_box(rwlock_writes(i, writers_percent));
    }
}

/// `sync.rwlock`'s team on `cpus` around a fresh `lock` (holding 0): every thread runs [`rw_ops`] against
/// [`rw_choice_only`]; hands back the outcome and the lock, whose counter is the number of writes made.
pub fn rwlock_team<L: CounterRwLock>(lock: L, writers_percent: u32, cpus: &[usize], h: &Harness) -> (Outcome, L) {
    let report =
        h.measure_team(cpus, |_, n| rw_ops(&lock, writers_percent, n), |_, n| rw_choice_only(writers_percent, n));
    (report.into(), lock)
}

impl RwLockContention for Os {
    /// `std`: `std::sync::RwLock`; `parking_lot`: `parking_lot::RwLock`; `spin_crate`: `spin::RwLock`.
    fn rwlock(&self, lock: RwLockImpl, writers_percent: u32, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome> {
        anyhow::ensure!(writers_percent <= 100, "writers is a percentage of operations (0…100), not {writers_percent}");
        let outcome = match lock {
            RwLockImpl::Std => rwlock_team(std::sync::RwLock::new(0u64), writers_percent, cpus, h).0,
            RwLockImpl::ParkingLot => rwlock_team(parking_lot::RwLock::new(0u64), writers_percent, cpus, h).0,
            RwLockImpl::SpinCrate => rwlock_team(spin::RwLock::new(0u64), writers_percent, cpus, h).0,
            other @ (RwLockImpl::RwMutex | RwLockImpl::ReentrantRw | RwLockImpl::Stamped) => {
                return Err(overhead_runtime_api::offer::not_offered("os", "lock", other))
            }
        };
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::*;
    use overhead_harness::testing::quick_harness;
    use overhead_machine::allowed_cpus;

    /// Exactly `writers` writes in every 100 consecutive operations, for every share, from any starting
    /// operation; and spread: at 1, 10, 50 and 100 % exactly every 100th, 10th, 2nd and every operation, and
    /// at any share no gap between writes longer than ⌈100 / writers⌉.
    #[test]
    fn the_writer_rule_gives_the_share_evenly() {
        for writers in 0..=100u32 {
            for start in [0u64, 1, 37, 1_000_003] {
                let writes = (start..start + 100).filter(|&i| rwlock_writes(i, writers)).count();
                assert_eq!(writes, writers as usize, "writers {writers}, from {start}");
            }
        }
        for (writers, every) in [(1u32, 100u64), (10, 10), (50, 2), (100, 1)] {
            let at: Vec<u64> = (0..300).filter(|&i| rwlock_writes(i, writers)).collect();
            assert!(at.windows(2).all(|w| w[1] - w[0] == every), "writers {writers}: {at:?}");
            assert_eq!(at[0], 0);
        }
        // Any share: no two writes further apart than ⌈100 / writers⌉ operations.
        for writers in 1..=100u32 {
            let at: Vec<u64> = (0..1000).filter(|&i| rwlock_writes(i, writers)).collect();
            let most = u64::from(100u32.div_ceil(writers));
            assert!(at.windows(2).all(|w| w[1] - w[0] <= most), "writers {writers}: {at:?}");
        }
    }

    /// A team run on each lock: the counter ends equal to the writes the rule asked for in every test batch
    /// of every thread (the batches are logged outside the timed body), so no write was lost or doubled
    /// and reads changed nothing. Two threads, on one CPU if the machine has one.
    #[test]
    fn after_a_team_run_the_counter_is_the_number_of_writes() {
        fn check<L: CounterRwLock>(lock: L, into_inner: impl FnOnce(L) -> u64) {
            let h = quick_harness();
            let cpus: Vec<usize> = allowed_cpus().into_iter().cycle().take(2).collect();
            let writers = 10;
            let expected = AtomicU64::new(0);
            h.measure_team(
                &cpus,
                |_, n| {
                    rw_ops(&lock, writers, n);
                    expected.fetch_add((0..n).filter(|&i| rwlock_writes(i, writers)).count() as u64, Ordering::Relaxed);
                },
                |_, n| rw_choice_only(writers, n),
            );
            let expected = expected.into_inner();
            assert!(expected > 0);
            assert_eq!(into_inner(lock), expected);
        }
        check(std::sync::RwLock::new(0u64), |l| l.into_inner().unwrap());
        check(parking_lot::RwLock::new(0u64), parking_lot::RwLock::into_inner);
        check(spin::RwLock::new(0u64), spin::RwLock::into_inner);
    }

    /// `os` measures every reader-writer lock it offers and refuses a share over 100 %.
    #[test]
    fn os_measures_its_locks_and_refuses_a_share_over_100() {
        let h = quick_harness();
        let cpus = allowed_cpus();
        let cpus = &cpus[..cpus.len().min(2)];
        for &lock in overhead_runtime_api::RuntimeUnderTest::offers(&Os).rwlock.has().unwrap() {
            let outcome = Os.rwlock(lock, 50, cpus, &h).unwrap();
            assert_eq!(outcome.measurement.samples_ns.len(), h.config.repetitions, "{lock:?}");
            assert_eq!(outcome.measurement.per_thread_ns.len(), cpus.len(), "{lock:?}");
        }
        let err = Os.rwlock(RwLockImpl::Std, 101, cpus, &h).unwrap_err().to_string();
        assert!(err.contains("101"), "{err}");
    }
}
