//! Wake-all on kernel threads (`sched.broadcast`, Ben-Asher & Feitelson 1991 §5): what a waiter blocks on, how one thread
//! releases every waiter at once, and the `os` runtime's [`overhead_runtime_api::wake_all::WakeAll`].

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Condvar, Mutex};

use crossbeam_utils::CachePadded;

use super::futex;
use super::Os;
use overhead_harness::Harness;
use overhead_machine::pin_current_thread;
use overhead_record::Outcome;
use overhead_runtime_api::offer::not_offered;
use overhead_runtime_api::wake_all::WakeMechanism as Mechanism;
use overhead_runtime_api::wake_all::{measure_episodes, Progress, WakeAll};

/// A way for threads to wait for the next generation and for one thread to start it, waking them all.
pub trait Broadcast: Sync + Default {
    /// Blocks until the generation after `seen` begins; returns that generation's number. Calls
    /// `announce` once the caller is sure to catch the next wake-all (the waker may then broadcast).
    fn wait(&self, seen: u64, announce: impl FnOnce()) -> u64;
    /// Begins the next generation and wakes every waiter.
    fn wake_all(&self);
}

/// A generation word and `FUTEX_WAKE` of every sleeper on it.
#[derive(Default)]
pub struct FutexWake {
    generation: CachePadded<AtomicU32>,
}

impl Broadcast for FutexWake {
    fn wait(&self, seen: u64, announce: impl FnOnce()) -> u64 {
        // The word is 32 bits: generations wrap, and only equality with `seen` matters.
        let seen = seen as u32;
        announce();
        while self.generation.load(Ordering::Acquire) == seen {
            futex::wait(&self.generation, seen);
        }
        u64::from(seen.wrapping_add(1))
    }
    fn wake_all(&self) {
        self.generation.fetch_add(1, Ordering::Release);
        futex::wake(&self.generation, i32::MAX);
    }
}

/// std's `Condvar::notify_all` over a generation counter under a `Mutex`.
#[derive(Default)]
pub struct CondvarWake {
    generation: Mutex<u64>,
    condvar: Condvar,
}

impl Broadcast for CondvarWake {
    fn wait(&self, seen: u64, announce: impl FnOnce()) -> u64 {
        let mut g = self.generation.lock().unwrap_or_else(|e| e.into_inner());
        // Announced under the lock: the waker's increment cannot slip in before this thread waits.
        announce();
        while *g == seen {
            g = self.condvar.wait(g).unwrap_or_else(|e| e.into_inner());
        }
        *g
    }
    fn wake_all(&self) {
        *self.generation.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.condvar.notify_all();
    }
}

/// A waiter's life: announce, sleep until the next wake-all, count the arrival; until `progress.stop`.
pub fn wait_until_stopped<W: Broadcast>(wake: &W, progress: &Progress) {
    let mut seen = 0;
    loop {
        seen = wake.wait(seen, || {
            progress.announced.fetch_add(1, Ordering::Release);
        });
        if progress.stop.load(Ordering::Acquire) {
            break;
        }
        progress.arrived.fetch_add(1, Ordering::Release);
    }
}

/// One waiter thread per entry of `waiter_cpus`, pinned there; the calling thread wakes them with `wake`.
fn broadcast<W: Broadcast>(waiter_cpus: &[usize], h: &Harness, settle_ticks: u64, wake: W) -> Outcome {
    let progress = Progress::default();
    let (measurement, refused) = std::thread::scope(|s| {
        let waiters: Vec<_> = waiter_cpus
            .iter()
            .map(|&cpu| {
                let (wake, progress) = (&wake, &progress);
                s.spawn(move || {
                    let refused =
                        pin_current_thread(cpu).err().map(|e| format!("waiter for CPU {cpu} not pinned: {e}"));
                    wait_until_stopped(wake, progress);
                    refused
                })
            })
            .collect();
        let m = measure_episodes(h, &progress, waiter_cpus.len() as u64, settle_ticks, || wake.wake_all());
        let refused: Vec<String> = waiters.into_iter().filter_map(|t| t.join().expect("waiter panicked")).collect();
        (m, refused)
    });
    let mut outcome = Outcome::from(measurement);
    outcome.notes.extend(refused);
    outcome
}

impl WakeAll for Os {
    /// `futex`: a generation word, `FUTEX_WAKE` of all sleepers ([`FutexWake`]); `condvar`: std's
    /// `Condvar::notify_all` ([`CondvarWake`]; waiters then take the mutex one after the other). The
    /// waiters are pinned as `cpus[1..]` says, so more waiters than CPUs queue on their CPU.
    fn wake_all(
        &self,
        mechanism: Mechanism,
        waiters: usize,
        cpus: &[usize],
        settle_ticks: u64,
        h: &Harness,
    ) -> anyhow::Result<Outcome> {
        let waiter_cpus = &cpus[1..];
        anyhow::ensure!(
            waiter_cpus.len() == waiters,
            "os: {waiters} waiters need as many CPUs after the waker's, got {cpus:?}"
        );
        match mechanism {
            Mechanism::Futex => Ok(broadcast(waiter_cpus, h, settle_ticks, FutexWake::default())),
            Mechanism::Condvar => Ok(broadcast(waiter_cpus, h, settle_ticks, CondvarWake::default())),
            other @ (Mechanism::Notify | Mechanism::Semaphore) => Err(not_offered("os", "mechanism", other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_runtime_api::wake_all::spin_until;

    /// Every episode wakes all N waiters: the waker would hang on `arrived` otherwise.
    #[test]
    fn both_mechanisms_wake_all_waiters() {
        let h = overhead_harness::testing::quick_harness();
        let cpus = overhead_machine::allowed_cpus();
        let waiter_cpus: Vec<usize> = (0..3).map(|i| cpus[i % cpus.len()]).collect();
        for outcome in [
            broadcast(&waiter_cpus, &h, 100, FutexWake::default()),
            broadcast(&waiter_cpus, &h, 100, CondvarWake::default()),
        ] {
            assert_eq!(outcome.measurement.samples_ns.len(), h.config.repetitions);
        }
    }

    /// Direct count: after k episodes with the futex mechanism, exactly k·N arrivals (a waiter that ran
    /// twice per episode would push `arrived` past N per episode).
    #[test]
    fn futex_wake_all_counts_each_waiter_once_per_episode() {
        const N: u64 = 3;
        const EPISODES: u64 = 200;
        let wake = FutexWake::default();
        let progress = Progress::default();
        std::thread::scope(|s| {
            for _ in 0..N {
                s.spawn(|| wait_until_stopped(&wake, &progress));
            }
            for e in 1..=EPISODES {
                spin_until(|| progress.announced.load(Ordering::Acquire) >= N * e);
                wake.wake_all();
                spin_until(|| progress.arrived.load(Ordering::Acquire) >= N * e);
                assert_eq!(progress.arrived.load(Ordering::Acquire), N * e);
            }
            progress.stop.store(true, Ordering::Release);
            spin_until(|| progress.announced.load(Ordering::Acquire) >= N * (EPISODES + 1));
            wake.wake_all();
        });
    }
}
