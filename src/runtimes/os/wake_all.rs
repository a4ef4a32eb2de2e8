//! Wake-all mechanisms for kernel threads (`sched.broadcast`, seed 001 §5): what a waiter blocks on, and
//! how one thread releases every waiter at once.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Condvar, Mutex};

use crossbeam_utils::CachePadded;

use super::futex;

/// A way for threads to wait for the next generation and for one thread to start it, waking them all.
pub trait WakeAll: Sync + Default {
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

impl WakeAll for FutexWake {
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

impl WakeAll for CondvarWake {
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
