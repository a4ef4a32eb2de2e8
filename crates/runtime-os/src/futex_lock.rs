//! A futex-based mutex, Drepper's three-state lock ("Futexes Are Tricky", 2011, §6 "Mutex, Take 3"):
//! the uncontended lock and unlock are one atomic instruction each and no system call; only a thread
//! that finds the lock held sleeps in the kernel, and only an unlock that may have sleepers wakes one.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU32, Ordering};

use super::futex;

/// Unlocked.
const FREE: u32 = 0;
/// Locked, nobody sleeping on it.
const LOCKED: u32 = 1;
/// Locked, and some thread may be sleeping on it (the unlock must wake one).
const CONTENDED: u32 = 2;

/// A value of type `T` guarded by Drepper's three-state futex lock.
#[derive(Debug, Default)]
pub struct FutexLock<T> {
    state: AtomicU32,
    data: UnsafeCell<T>,
}

// SAFETY: the lock gives one thread at a time access to `data` (acquire on taking, release on giving
// back), so sharing it shares `T` only by moving access, which needs `T: Send`. Checked by
// `tests::mutual_exclusion_keeps_every_increment`.
unsafe impl<T: Send> Sync for FutexLock<T> {}

impl<T> FutexLock<T> {
    /// An unlocked lock guarding `value`.
    pub const fn new(value: T) -> FutexLock<T> {
        FutexLock { state: AtomicU32::new(FREE), data: UnsafeCell::new(value) }
    }

    /// Runs `f` on the guarded value with the lock held, and returns what it returns.
    #[inline]
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        self.lock();
        // SAFETY: `lock` returned, so this thread is the only holder until `unlock` below; no other
        // reference to `data` exists meanwhile. A panic in `f` leaves the lock held.
        let result = f(unsafe { &mut *self.data.get() });
        self.unlock();
        result
    }

    /// Consumes the lock and returns the guarded value.
    pub fn into_inner(self) -> T {
        self.data.into_inner()
    }

    #[inline]
    fn lock(&self) {
        if let Err(seen) = self.state.compare_exchange(FREE, LOCKED, Ordering::Acquire, Ordering::Relaxed) {
            self.lock_contended(seen);
        }
    }

    /// Marks the lock contended and sleeps until an exchange finds it free. Taking it with CONTENDED
    /// (not LOCKED) is deliberate: we cannot know whether others still sleep, so our unlock must wake.
    #[cold]
    fn lock_contended(&self, seen: u32) {
        let mut c = if seen == CONTENDED { CONTENDED } else { self.state.swap(CONTENDED, Ordering::Acquire) };
        while c != FREE {
            futex::wait(&self.state, CONTENDED);
            c = self.state.swap(CONTENDED, Ordering::Acquire);
        }
    }

    #[inline]
    fn unlock(&self) {
        if self.state.fetch_sub(1, Ordering::Release) != LOCKED {
            self.state.store(FREE, Ordering::Release);
            futex::wake(&self.state, 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Concurrent increments through the lock all survive (`lock_tests::add_from_four_threads`).
    #[test]
    fn mutual_exclusion_keeps_every_increment() {
        let lock = FutexLock::new(0u64);
        let expected = crate::lock_tests::add_from_four_threads(|add| lock.with(|c| add(c)));
        assert_eq!(lock.into_inner(), expected);
    }

    #[test]
    fn uncontended_lock_leaves_the_state_free() {
        let lock = FutexLock::new(1u8);
        assert_eq!(lock.with(|v| *v + 1), 2);
        assert_eq!(lock.state.load(Ordering::Relaxed), FREE);
    }
}
