//! A sense-reversing centralised spin barrier (Mellor-Crummey & Scott, 1991, Algorithm 7; the shape of
//! Ben-Asher & Feitelson 1991 §8.2's `sync`: a counter decremented by fetch-and-add and a flag the last arrival flips).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Spins before the waiter starts yielding. Keeps the common case (one thread per CPU) a pure spin, and
/// keeps an oversubscribed team (more threads than CPUs) from spinning away whole time slices.
const SPINS_BEFORE_YIELD: u32 = 1 << 14;

/// A reusable barrier for `parties` threads. Each thread keeps its own sense (`local_sense`), starting
/// at `false`; the barrier flips the shared sense once per episode.
#[derive(Debug)]
pub struct SpinBarrier {
    parties: usize,
    /// Spins before a waiter starts yielding: [`SPINS_BEFORE_YIELD`], or 0 for [`SpinBarrier::yielding`].
    spins_before_yield: u32,
    remaining: AtomicUsize,
    sense: AtomicBool,
}

impl SpinBarrier {
    /// A barrier for `parties` threads (at least 1).
    pub fn new(parties: usize) -> SpinBarrier {
        let parties = parties.max(1);
        SpinBarrier {
            parties,
            spins_before_yield: SPINS_BEFORE_YIELD,
            remaining: AtomicUsize::new(parties),
            sense: AtomicBool::new(false),
        }
    }

    /// A barrier whose waiters yield at every look that finds the episode not over, for teams with more
    /// threads than CPUs: a spinning waiter would otherwise keep the threads it waits for (on its CPU)
    /// from running, for the length of its spin.
    pub fn yielding(parties: usize) -> SpinBarrier {
        SpinBarrier { spins_before_yield: 0, ..SpinBarrier::new(parties) }
    }

    /// Waits until all parties have arrived. `local_sense` is the caller's own flag, initially `false`,
    /// owned by one thread and passed to every call. Returns true on exactly one thread per episode (the
    /// last to arrive).
    #[inline]
    pub fn wait(&self, local_sense: &mut bool) -> bool {
        *local_sense = !*local_sense;
        if self.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.remaining.store(self.parties, Ordering::Relaxed);
            self.sense.store(*local_sense, Ordering::Release);
            return true;
        }
        let mut spins = 0u32;
        while self.sense.load(Ordering::Acquire) != *local_sense {
            if spins < self.spins_before_yield {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    /// No thread may pass episode k before every thread has finished episode k − 1's work.
    #[test]
    fn no_thread_runs_ahead() {
        // Fewer episodes than the yielding barrier's: with more threads than CPUs each episode can cost a
        // full spin phase per thread (the reason `yielding` exists), so 500 took seconds on 2 CPUs.
        no_thread_runs_ahead_of(SpinBarrier::new(THREADS), 100);
    }

    /// The same for the barrier that yields at once (oversubscribed teams).
    #[test]
    fn yielding_barrier_keeps_episodes_apart() {
        let barrier = SpinBarrier::yielding(THREADS);
        assert_eq!(barrier.spins_before_yield, 0);
        no_thread_runs_ahead_of(barrier, 500);
    }

    const THREADS: usize = 4; // more than this machine's CPUs on purpose: exercises the yield path

    fn no_thread_runs_ahead_of(barrier: SpinBarrier, episodes: u64) {
        let arrived = AtomicU64::new(0);
        let leaders = AtomicU64::new(0);
        std::thread::scope(|s| {
            for _ in 0..THREADS {
                s.spawn(|| {
                    let mut sense = false;
                    for episode in 0..episodes {
                        arrived.fetch_add(1, Ordering::SeqCst);
                        if barrier.wait(&mut sense) {
                            leaders.fetch_add(1, Ordering::SeqCst);
                        }
                        assert!(arrived.load(Ordering::SeqCst) >= (episode + 1) * THREADS as u64);
                        barrier.wait(&mut sense);
                    }
                });
            }
        });
        assert_eq!(arrived.load(Ordering::SeqCst), episodes * THREADS as u64);
        assert_eq!(leaders.load(Ordering::SeqCst), episodes);
    }
}
