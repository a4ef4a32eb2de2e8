//! POSIX unnamed semaphores (`sem_t`), the kernel-thread semaphore of Souvatzis's table.

use std::cell::UnsafeCell;

/// A process-private POSIX semaphore. `p` is `sem_wait`, `v` is `sem_post` (glibc: an atomic in user
/// space, a futex only when a waiter must sleep or be woken).
pub struct PosixSemaphore {
    sem: Box<UnsafeCell<libc::sem_t>>,
}

// SAFETY: sem_t is designed for concurrent use by threads of one process (pshared = 0); all access goes
// through sem_wait/sem_post, never through Rust references to its contents.
unsafe impl Sync for PosixSemaphore {}
// SAFETY: as above; the boxed sem_t never moves while initialised.
unsafe impl Send for PosixSemaphore {}

impl PosixSemaphore {
    /// A semaphore with `value` permits (at most `SEM_VALUE_MAX`, 2^31 − 1 on Linux).
    ///
    /// Errors: `sem_init` refused the value (EINVAL).
    pub fn new(value: u32) -> std::io::Result<PosixSemaphore> {
        // SAFETY: a zeroed sem_t is valid storage for sem_init to initialise.
        let sem = Box::new(UnsafeCell::new(unsafe { std::mem::zeroed() }));
        // SAFETY: the pointer is to boxed, never-moving storage; pshared = 0 (threads only).
        if unsafe { libc::sem_init(sem.get(), 0, value) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(PosixSemaphore { sem })
    }

    /// Takes one permit, sleeping while there is none (retries on EINTR).
    #[inline]
    pub fn p(&self) {
        // SAFETY: the semaphore was initialised in `new` and is destroyed only in `drop`.
        while unsafe { libc::sem_wait(self.sem.get()) } != 0 {}
    }

    /// Returns one permit, waking one sleeper if any.
    #[inline]
    pub fn v(&self) {
        // SAFETY: as for `p`; sem_post fails only on overflow past SEM_VALUE_MAX, which callers avoid.
        unsafe { libc::sem_post(self.sem.get()) };
    }
}

impl Drop for PosixSemaphore {
    fn drop(&mut self) {
        // SAFETY: no thread can still be waiting: they all borrow `self`, which is being dropped.
        unsafe { libc::sem_destroy(self.sem.get()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A permit passed back and forth must wake the other thread every time; a lost wake-up hangs.
    #[test]
    fn ping_pong_through_two_semaphores() {
        let (a, b) = (PosixSemaphore::new(0).unwrap(), PosixSemaphore::new(0).unwrap());
        std::thread::scope(|s| {
            s.spawn(|| {
                for _ in 0..10_000 {
                    a.p();
                    b.v();
                }
            });
            for _ in 0..10_000 {
                a.v();
                b.p();
            }
        });
    }

    #[test]
    fn refuses_a_value_beyond_the_maximum() {
        assert!(PosixSemaphore::new(u32::MAX).is_err());
    }
}
