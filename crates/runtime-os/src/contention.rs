//! Contention between CPUs on kernel threads: a harness thread team, one pinned thread per CPU.

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crossbeam_utils::CachePadded;

use super::futex_lock::FutexLock;
use super::hashed_faa::HashedFaa;
use super::pthread_barrier::PthreadBarrier;
use super::spin_lock::SpinLock;
use super::Os;
use overhead_harness::empty_loop;
use overhead_harness::{Harness, SpinBarrier, TeamReport};
use overhead_record::Outcome;
use overhead_runtime_api::contention::{AtomicImpl, BarrierImpl, Contention, FetchAndAdd, LockImpl, Variable};
use overhead_runtime_api::offer::not_offered;

/// One counter alone on a 128-byte block (crossbeam's `CachePadded` on x86-64): two 64-byte lines, so the
/// adjacent-line prefetcher cannot make neighbours share.
type PaddedCounter = CachePadded<AtomicU64>;

/// Each thread's barrier sense, alone on its line so the threads do not share it.
type PaddedSense = CachePadded<AtomicBool>;

impl Contention for Os {
    /// `hw`: the hardware's atomic add; `hashed_lock`: Ben-Asher & Feitelson 1991 §8.1's `faa`, a lock from a table hashed by
    /// the variable's address around a plain add.
    fn fetch_and_add(&self, faa: FetchAndAdd, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome> {
        let FetchAndAdd { implementation, variable } = faa;
        let counters: Vec<PaddedCounter> = (0..cpus.len()).map(|_| PaddedCounter::default()).collect();
        let shared = variable == Variable::Shared;
        let counter = |thread: usize| &counters[if shared { 0 } else { thread }];
        let report = match implementation {
            AtomicImpl::Hw => h.measure_team(
                cpus,
                |thread, n| {
                    let counter = counter(thread);
                    for _ in 0..n {
                        counter.fetch_add(1, Ordering::Relaxed);
                    }
                },
                |_, n| empty_loop(n),
            ),
            AtomicImpl::HashedLock => {
                let faa = HashedFaa::new();
                h.measure_team(
                    cpus,
                    |thread, n| {
                        let counter = counter(thread);
                        for _ in 0..n {
                            black_box(faa.fetch_add(counter, 1));
                        }
                    },
                    |_, n| empty_loop(n),
                )
            }
            other @ AtomicImpl::OmpAtomic => return Err(not_offered("os", "impl", other)),
        };
        Ok(report.into())
    }

    /// `std`: `std::sync::Barrier` (mutex and condition variable); `spin`: the harness's sense-reversing
    /// spin barrier; `pthread`: `pthread_barrier_t`.
    fn barrier(&self, implementation: BarrierImpl, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome> {
        let threads = cpus.len();
        let report = match implementation {
            BarrierImpl::Std => {
                let barrier = std::sync::Barrier::new(threads);
                episodes(h, cpus, || {
                    barrier.wait();
                })
            }
            BarrierImpl::Spin => {
                let barrier = SpinBarrier::new(threads);
                let senses: Vec<PaddedSense> = (0..threads).map(|_| PaddedSense::default()).collect();
                h.measure_team(
                    cpus,
                    |thread, n| {
                        let mut sense = senses[thread].load(Ordering::Relaxed);
                        for _ in 0..n {
                            barrier.wait(&mut sense);
                        }
                        senses[thread].store(sense, Ordering::Relaxed);
                    },
                    |_, n| empty_loop(n),
                )
            }
            BarrierImpl::Pthread => {
                let barrier = PthreadBarrier::new(threads)?;
                episodes(h, cpus, || {
                    barrier.wait();
                })
            }
            other @ (BarrierImpl::OmpBarrier | BarrierImpl::Cyclic) => return Err(not_offered("os", "impl", other)),
        };
        Ok(report.into())
    }

    /// `std`: `std::sync::Mutex`; `spin`: a test-and-test-and-set lock with backoff; `futex`: Drepper's
    /// three-state futex lock; `parking_lot`: `parking_lot::Mutex`; `spin_crate`: the `spin` crate's
    /// `spin::Mutex`.
    fn lock(&self, lock: LockImpl, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome> {
        let control = |_: usize, n: u64| empty_loop(n);
        let report = match lock {
            LockImpl::Std => {
                let lock = std::sync::Mutex::new(0u64);
                h.measure_team(
                    cpus,
                    |_, n| {
                        for _ in 0..n {
                            // A poisoned lock (a panicking holder) cannot happen here: nothing panics inside.
                            *black_box(&lock).lock().unwrap_or_else(|e| e.into_inner()) += 1;
                        }
                    },
                    control,
                )
            }
            LockImpl::Spin => {
                let lock = SpinLock::new(0u64);
                h.measure_team(cpus, |_, n| (0..n).for_each(|_| black_box(&lock).with(|c| *c += 1)), control)
            }
            LockImpl::Futex => {
                let lock = FutexLock::new(0u64);
                h.measure_team(cpus, |_, n| (0..n).for_each(|_| black_box(&lock).with(|c| *c += 1)), control)
            }
            LockImpl::ParkingLot => {
                let lock = parking_lot::Mutex::new(0u64);
                h.measure_team(cpus, |_, n| (0..n).for_each(|_| *black_box(&lock).lock() += 1), control)
            }
            LockImpl::SpinCrate => {
                let lock = spin::Mutex::new(0u64);
                h.measure_team(cpus, |_, n| (0..n).for_each(|_| *black_box(&lock).lock() += 1), control)
            }
            other @ (LockImpl::OmpLock | LockImpl::Mutex | LockImpl::Synchronized | LockImpl::Reentrant) => {
                return Err(not_offered("os", "lock", other))
            }
        };
        Ok(report.into())
    }
}

/// `n` barrier episodes per thread of a team on `cpus`, each one call of a barrier that needs no per-thread
/// state (`wait`), against the empty loop.
fn episodes(h: &Harness, cpus: &[usize], wait: impl Fn() + Sync) -> TeamReport {
    h.measure_team(
        cpus,
        |_, n| {
            for _ in 0..n {
                wait();
            }
        },
        |_, n| empty_loop(n),
    )
}
