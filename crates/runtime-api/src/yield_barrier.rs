//! The barrier of ParC's `sync` (Ben-Asher & Feitelson 1991 §8.2): a counter in the spawn descriptor, decremented with
//! fetch-and-add by each arriving activity, and a flag the last arrival raises; the others spin on the
//! flag and yield the processor every time they find it down, "to avoid excessive waste if there are
//! more activities than processors". Sense-reversing (Mellor-Crummey & Scott 1991, Algorithm 7) so it
//! can be reused without a second counter.
//!
//! The waiting loop is left to the caller where a runtime has its own yield ([`YieldBarrier::arrive`]
//! and [`YieldBarrier::released`]): `sched_yield` for kernel threads ([`YieldBarrier::wait`]),
//! `tokio::task::yield_now().await` for tasks, `rayon::yield_now()` for rayon jobs.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// A reusable spin-with-yield barrier for `parties` activities. Each activity keeps its own sense,
/// starting at `false`, and passes it to every call.
#[derive(Debug)]
pub struct YieldBarrier {
    parties: usize,
    remaining: AtomicUsize,
    sense: AtomicBool,
}

impl YieldBarrier {
    /// A barrier for `parties` activities (at least 1).
    pub fn new(parties: usize) -> YieldBarrier {
        let parties = parties.max(1);
        YieldBarrier { parties, remaining: AtomicUsize::new(parties), sense: AtomicBool::new(false) }
    }

    /// Arrives at the barrier: flips `local_sense` and decrements the counter. Returns true on the last
    /// arrival of the episode, which has already released the others; the rest must then wait until
    /// [`YieldBarrier::released`] says so.
    #[inline]
    pub fn arrive(&self, local_sense: &mut bool) -> bool {
        *local_sense = !*local_sense;
        if self.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.remaining.store(self.parties, Ordering::Relaxed);
            self.sense.store(*local_sense, Ordering::Release);
            true
        } else {
            false
        }
    }

    /// True once the episode the caller arrived at (with `local_sense` as `arrive` left it) is over.
    #[inline]
    pub fn released(&self, local_sense: bool) -> bool {
        self.sense.load(Ordering::Acquire) == local_sense
    }

    /// Arrives and waits as the study's kernel-thread activities did: `sched_yield` after every look at
    /// the flag that finds it down. Returns true on the last arrival.
    #[inline]
    pub fn wait(&self, local_sense: &mut bool) -> bool {
        if self.arrive(local_sense) {
            return true;
        }
        while !self.released(*local_sense) {
            std::thread::yield_now();
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    /// Many more threads than CPUs: no thread passes episode k before all have arrived at it, and one
    /// thread per episode is the last.
    #[test]
    fn no_thread_runs_ahead_when_oversubscribed() {
        const THREADS: usize = 8;
        const EPISODES: u64 = 200;
        let barrier = YieldBarrier::new(THREADS);
        let arrived = AtomicU64::new(0);
        let last = AtomicU64::new(0);
        std::thread::scope(|s| {
            for _ in 0..THREADS {
                s.spawn(|| {
                    let mut sense = false;
                    for episode in 0..EPISODES {
                        arrived.fetch_add(1, Ordering::SeqCst);
                        if barrier.wait(&mut sense) {
                            last.fetch_add(1, Ordering::SeqCst);
                        }
                        assert!(arrived.load(Ordering::SeqCst) >= (episode + 1) * THREADS as u64);
                        barrier.wait(&mut sense);
                    }
                });
            }
        });
        assert_eq!(last.load(Ordering::SeqCst), EPISODES);
    }
}
