//! POSIX `pthread_barrier_t` (glibc's: a futex-based counting barrier in which waiters sleep), for
//! `sync.barrier` beside std's `Barrier` and the spin barrier (EPCC syncbench measures the same).

use std::cell::UnsafeCell;
use std::io;

/// A `pthread_barrier_t` for a fixed number of threads, initialised once and destroyed on drop. Boxed
/// because POSIX forbids moving an initialised barrier.
pub struct PthreadBarrier {
    inner: Box<UnsafeCell<libc::pthread_barrier_t>>,
}

// SAFETY: a pthread barrier is made to be waited on by many threads at once through a shared pointer;
// the box keeps its address fixed for its whole life. Checked by `tests::no_thread_runs_ahead`.
unsafe impl Sync for PthreadBarrier {}
// SAFETY: the barrier is not tied to the thread that initialised it.
unsafe impl Send for PthreadBarrier {}

impl PthreadBarrier {
    /// A barrier for `parties` threads (default attributes: process-private).
    ///
    /// Errors: `parties` is 0 or above `u32::MAX` (`InvalidInput`), or `pthread_barrier_init` failed.
    pub fn new(parties: usize) -> io::Result<PthreadBarrier> {
        let count = u32::try_from(parties)
            .ok()
            .filter(|&c| c > 0)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, format!("barrier for {parties} threads")))?;
        // SAFETY: an all-zero `pthread_barrier_t` is a valid value to hand to `pthread_barrier_init`,
        // which overwrites it.
        let inner = Box::new(UnsafeCell::new(unsafe { std::mem::zeroed::<libc::pthread_barrier_t>() }));
        // SAFETY: `inner` is a live, uniquely owned, boxed barrier object; null attributes are allowed.
        let rc = unsafe { libc::pthread_barrier_init(inner.get(), std::ptr::null(), count) };
        if rc != 0 {
            return Err(io::Error::from_raw_os_error(rc));
        }
        Ok(PthreadBarrier { inner })
    }

    /// Waits until all parties have arrived; true on exactly one thread per episode
    /// (`PTHREAD_BARRIER_SERIAL_THREAD`).
    #[inline]
    pub fn wait(&self) -> bool {
        // SAFETY: the barrier was initialised in `new`, is not destroyed before drop, and never moves.
        let rc = unsafe { libc::pthread_barrier_wait(self.inner.get()) };
        rc == libc::PTHREAD_BARRIER_SERIAL_THREAD
    }
}

impl Drop for PthreadBarrier {
    fn drop(&mut self) {
        // SAFETY: `&mut self` means no thread is waiting; the barrier was initialised in `new`.
        unsafe { libc::pthread_barrier_destroy(self.inner.get()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// No thread may pass episode k before every thread has arrived at it, and one thread per episode
    /// is told it was the serial one.
    #[test]
    fn no_thread_runs_ahead() {
        const THREADS: usize = 3;
        const EPISODES: u64 = 300;
        let barrier = PthreadBarrier::new(THREADS).unwrap();
        let arrived = AtomicU64::new(0);
        let serial = AtomicU64::new(0);
        std::thread::scope(|s| {
            for _ in 0..THREADS {
                s.spawn(|| {
                    for episode in 0..EPISODES {
                        arrived.fetch_add(1, Ordering::SeqCst);
                        if barrier.wait() {
                            serial.fetch_add(1, Ordering::SeqCst);
                        }
                        assert!(arrived.load(Ordering::SeqCst) >= (episode + 1) * THREADS as u64);
                        barrier.wait();
                    }
                });
            }
        });
        assert_eq!(serial.load(Ordering::SeqCst), EPISODES);
    }

    #[test]
    fn zero_parties_is_refused() {
        assert_eq!(PthreadBarrier::new(0).err().unwrap().kind(), io::ErrorKind::InvalidInput);
    }
}
