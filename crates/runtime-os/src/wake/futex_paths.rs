//! The futex wake paths: one private futex word, and `futex_waitv` over one or eight.

use std::io;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use super::{check, Ends, Unavailable, WaitEnd, WakeEnd};
use crate::futex;

/// One word, 0 while no wake is pending, 1 once one is.
struct FutexWait(Arc<AtomicU32>);
struct FutexWake(Arc<AtomicU32>);

/// A private futex pair.
pub(super) fn futex() -> Ends {
    let word = Arc::new(AtomicU32::new(0));
    (Box::new(FutexWait(word.clone())), Box::new(FutexWake(word)))
}

impl WaitEnd for FutexWait {
    fn wait(&mut self) -> io::Result<()> {
        // The swap consumes a wake; FUTEX_WAIT sleeps only while the word is still 0 (no lost wake-up).
        while self.0.swap(0, Ordering::Acquire) == 0 {
            futex::wait(&self.0, 0);
        }
        Ok(())
    }
    fn poll(&mut self) -> io::Result<bool> {
        Ok(self.0.swap(0, Ordering::Acquire) == 1)
    }
}

impl WakeEnd for FutexWake {
    fn wake(&mut self) -> io::Result<()> {
        self.0.store(1, Ordering::Release);
        // Always the system call: what is measured is the kernel's wake, not a user-space fast path that
        // skips it when nobody sleeps.
        futex::wake(&self.0, 1);
        Ok(())
    }
}

/// `struct futex_waitv` of the kernel's uapi: 24 bytes, `__reserved` zero.
#[repr(C, align(8))]
#[derive(Clone, Copy)]
struct FutexWaitv {
    val: u64,
    uaddr: u64,
    flags: u32,
    reserved: u32,
}

/// `FUTEX2_SIZE_U32 | FUTEX2_PRIVATE`: 32-bit words of this process.
const FUTEX2_U32_PRIVATE: u32 = 0x02 | 128;

/// The words a `futex_waitv` waiter sleeps on, each on its own cache line.
#[repr(align(64))]
struct Padded(AtomicU32);

struct WaitvWait {
    words: Arc<Vec<Padded>>,
    waitv: Vec<FutexWaitv>,
}
struct WaitvWake(Arc<Vec<Padded>>);

/// A `futex_waitv` pair over `n` words (1 ≤ n ≤ 128); the waker wakes the last.
///
/// Errors: the kernel has no `futex_waitv` (before 5.16: ENOSYS), found by one call that returns at once.
pub(super) fn futex_waitv(n: usize) -> Result<Ends, Unavailable> {
    let words: Arc<Vec<Padded>> = Arc::new((0..n).map(|_| Padded(AtomicU32::new(0))).collect());
    let waitv = words
        .iter()
        .map(|w| FutexWaitv { val: 0, uaddr: w.0.as_ptr() as u64, flags: FUTEX2_U32_PRIVATE, reserved: 0 })
        .collect();
    let mut wait = WaitvWait { words: words.clone(), waitv };
    // One word set: the call must return EAGAIN at once where the kernel has it.
    words[0].0.store(1, Ordering::Relaxed);
    match wait.call() {
        Err(e) if e.raw_os_error() == Some(libc::EAGAIN) => {}
        Err(e) => return Err(Unavailable::from_io("futex_waitv", &e)),
        Ok(_) => return Err(Unavailable("futex_waitv returned without a wake on a changed word".into())),
    }
    words[0].0.store(0, Ordering::Relaxed);
    Ok((Box::new(wait), Box::new(WaitvWake(words))))
}

impl WaitvWait {
    /// One `futex_waitv` call: sleeps while every word holds its `val`; returns the index of the word woken.
    fn call(&mut self) -> io::Result<libc::c_long> {
        // SAFETY: `waitv` holds `len` initialised entries whose `uaddr`s point into `words`, which this end
        // keeps alive for the call; flags 0, no timeout (a null pointer), clock id ignored without one.
        let ret = unsafe {
            libc::syscall(
                libc::SYS_futex_waitv,
                self.waitv.as_ptr(),
                self.waitv.len() as libc::c_uint,
                0 as libc::c_uint,
                std::ptr::null::<libc::timespec>(),
                libc::CLOCK_MONOTONIC,
            )
        };
        check(ret)
    }

    fn take(&self) -> bool {
        // Every word is cleared, not only up to the first set one.
        let mut any = false;
        for word in self.words.iter() {
            any |= word.0.swap(0, Ordering::Acquire) == 1;
        }
        any
    }
}

impl WaitEnd for WaitvWait {
    fn wait(&mut self) -> io::Result<()> {
        while !self.take() {
            match self.call() {
                Ok(_) => {}
                Err(e) if matches!(e.raw_os_error(), Some(libc::EAGAIN) | Some(libc::EINTR)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
    fn poll(&mut self) -> io::Result<bool> {
        Ok(self.take())
    }
}

impl WakeEnd for WaitvWake {
    fn wake(&mut self) -> io::Result<()> {
        let last = &self.0[self.0.len() - 1].0;
        last.store(1, Ordering::Release);
        futex::wake(last, 1);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel reads 24 bytes a waiter, 8-aligned; a wrong layout would make it read another word.
    #[test]
    fn futex_waitv_is_the_kernels_layout() {
        assert_eq!(std::mem::size_of::<FutexWaitv>(), 24);
        assert_eq!(std::mem::align_of::<FutexWaitv>(), 8);
        assert_eq!(std::mem::offset_of!(FutexWaitv, flags), 16);
    }
}
