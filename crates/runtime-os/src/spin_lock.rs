//! A test-and-test-and-set spin lock with exponential backoff, the classic user-space lock that
//! `sync.mutex` sets beside std's `Mutex` and the futex lock (Anderson, "The Performance of Spin Lock
//! Alternatives for Shared-Memory Multiprocessors", 1990, §3: spinning on a read and backing off).

use std::cell::UnsafeCell;
use std::hint::spin_loop;
use std::sync::atomic::{AtomicBool, Ordering};

/// The longest backoff between attempts, in `pause` instructions.
const MAX_BACKOFF: u32 = 1 << 10;

/// Spin iterations after which a waiter also yields its CPU: a lock holder preempted by the kernel
/// (more threads than CPUs, or a VM's neighbours) is then not waited for a whole time slice.
const SPINS_BEFORE_YIELD: u32 = 1 << 14;

/// A value of type `T` guarded by a TTAS spin lock with exponential backoff.
///
/// `lock` is one atomic exchange when the lock is free; a waiter spins on plain reads (the line stays
/// shared in its cache until the holder writes it), and after each failed exchange waits twice as
/// long (1…1024 `pause`s) before the next, so that a release is not followed by every waiter's
/// exchange at once.
#[derive(Debug, Default)]
pub struct SpinLock<T> {
    locked: AtomicBool,
    data: UnsafeCell<T>,
}

// SAFETY: the lock gives one thread at a time access to `data` (acquire on taking, release on giving
// back), so sharing the lock between threads shares `T` only by moving access, which needs `T: Send`.
// Checked by `tests::mutual_exclusion_keeps_every_increment`.
unsafe impl<T: Send> Sync for SpinLock<T> {}

impl<T> SpinLock<T> {
    /// An unlocked lock guarding `value`.
    pub const fn new(value: T) -> SpinLock<T> {
        SpinLock { locked: AtomicBool::new(false), data: UnsafeCell::new(value) }
    }

    /// Runs `f` on the guarded value with the lock held, and returns what it returns.
    #[inline]
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        self.lock();
        // SAFETY: `lock` returned, so this thread is the only holder until `unlock` below; no other
        // reference to `data` exists meanwhile. A panic in `f` leaves the lock held (poisoned by
        // deadlock rather than by data race).
        let result = f(unsafe { &mut *self.data.get() });
        self.locked.store(false, Ordering::Release);
        result
    }

    /// Consumes the lock and returns the guarded value.
    pub fn into_inner(self) -> T {
        self.data.into_inner()
    }

    #[inline]
    fn lock(&self) {
        if !self.locked.swap(true, Ordering::Acquire) {
            return;
        }
        self.lock_contended();
    }

    #[cold]
    fn lock_contended(&self) {
        let mut backoff = 1u32;
        let mut spins = 0u32;
        loop {
            while self.locked.load(Ordering::Relaxed) {
                spin_loop();
                spins += 1;
                if spins >= SPINS_BEFORE_YIELD {
                    spins = 0;
                    std::thread::yield_now();
                }
            }
            if !self.locked.swap(true, Ordering::Acquire) {
                return;
            }
            for _ in 0..backoff {
                spin_loop();
            }
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Concurrent increments through the lock all survive (`lock_tests::add_from_four_threads`).
    #[test]
    fn mutual_exclusion_keeps_every_increment() {
        let lock = SpinLock::new(0u64);
        let expected = crate::lock_tests::add_from_four_threads(|add| lock.with(|c| add(c)));
        assert_eq!(lock.into_inner(), expected);
    }
}
