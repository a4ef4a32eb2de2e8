//! Linux futex wait/wake on an `AtomicU32`, and a two-thread handoff built on them.

use std::sync::atomic::{AtomicU32, Ordering};

use anyhow::Context as _;

/// Sleeps while `word == expected` (FUTEX_WAIT_PRIVATE, no timeout). Returns at once if the word
/// already differs; may return spuriously, so callers loop on their own condition.
#[inline]
pub fn wait(word: &AtomicU32, expected: u32) {
    wait_op(word, expected, libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG);
}

/// Wakes up to `count` threads sleeping on `word` (FUTEX_WAKE_PRIVATE).
#[inline]
pub fn wake(word: &AtomicU32, count: i32) {
    wake_op(word, count, libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG);
}

/// [`wait`] on a word in memory shared between processes (FUTEX_WAIT: the kernel keys the futex by the
/// page, not by this process's address space).
#[inline]
pub fn wait_shared(word: &AtomicU32, expected: u32) {
    wait_op(word, expected, libc::FUTEX_WAIT);
}

/// [`wake`] for a word in memory shared between processes (FUTEX_WAKE).
#[inline]
pub fn wake_shared(word: &AtomicU32, count: i32) {
    wake_op(word, count, libc::FUTEX_WAKE);
}

#[inline]
fn wait_op(word: &AtomicU32, expected: u32, op: libc::c_int) {
    // SAFETY: `word` is a live, aligned u32 for the whole call; a null timeout means wait forever.
    unsafe {
        libc::syscall(libc::SYS_futex, word.as_ptr(), op, expected, std::ptr::null::<libc::timespec>());
    }
}

#[inline]
fn wake_op(word: &AtomicU32, count: i32, op: libc::c_int) {
    // SAFETY: `word` is a live, aligned u32; FUTEX_WAKE reads nothing through the pointer.
    unsafe {
        libc::syscall(libc::SYS_futex, word.as_ptr(), op, count);
    }
}

/// How a [`wait_timeout`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FutexWait {
    /// The timeout expired (ETIMEDOUT): the case `timer.wakeup` measures.
    TimedOut,
    /// Returned 0: woken by FUTEX_WAKE, or spuriously.
    Woken,
    /// A signal interrupted the wait (EINTR).
    Interrupted,
    /// The word did not hold `expected` (EAGAIN).
    ValueDiffered,
}

/// `FUTEX_WAIT_PRIVATE` on `word` while it holds `expected`, for at most `timeout_ns` (relative, measured
/// on `CLOCK_MONOTONIC` by the kernel).
///
/// Errors: any other errno (EINVAL for a bad timeout, ENOSYS), with the call named.
pub fn wait_timeout(word: &AtomicU32, expected: u32, timeout_ns: i64) -> anyhow::Result<FutexWait> {
    let ts = libc::timespec {
        tv_sec: (timeout_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (timeout_ns % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: `word` is a live, aligned u32 for the whole call and `ts` a valid timespec.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
            expected,
            &ts as *const libc::timespec,
        )
    };
    if rc == 0 {
        return Ok(FutexWait::Woken);
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::ETIMEDOUT) => Ok(FutexWait::TimedOut),
        Some(libc::EINTR) => Ok(FutexWait::Interrupted),
        Some(libc::EAGAIN) => Ok(FutexWait::ValueDiffered),
        _ => Err(e).context("futex(FUTEX_WAIT_PRIVATE) with timeout"),
    }
}

/// A ping-pong handoff between an initiator and a responder thread through one futex word: the
/// initiator posts PING and wakes the responder, then sleeps until the word reads PONG.
#[derive(Debug, Default)]
pub struct Handoff {
    word: AtomicU32,
}

const PONG: u32 = 0;
const PING: u32 = 1;
const STOP: u32 = 2;

impl Handoff {
    /// A handoff at rest (PONG).
    pub fn new() -> Handoff {
        Handoff { word: AtomicU32::new(PONG) }
    }

    /// One round trip from the initiator's side: returns once the responder has answered.
    #[inline]
    pub fn round_trip(&self) {
        self.word.store(PING, Ordering::Release);
        wake(&self.word, 1);
        while self.word.load(Ordering::Acquire) == PING {
            wait(&self.word, PING);
        }
    }

    /// The responder's loop: answers every PING until [`Handoff::stop`].
    pub fn respond(&self) {
        loop {
            match self.word.load(Ordering::Acquire) {
                STOP => return,
                PING => {
                    self.word.store(PONG, Ordering::Release);
                    wake(&self.word, 1);
                }
                _ => wait(&self.word, PONG),
            }
        }
    }

    /// Ends the responder's loop (call from the initiator when no round trip is in flight).
    pub fn stop(&self) {
        self.word.store(STOP, Ordering::Release);
        wake(&self.word, 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every round trip must be answered exactly once: a lost wake-up would hang (the test harness's
    /// timeout catches it), a missing wait would let the initiator run ahead of the count.
    #[test]
    fn handoff_answers_every_ping() {
        let handoff = Handoff::new();
        std::thread::scope(|s| {
            s.spawn(|| handoff.respond());
            for _ in 0..10_000 {
                handoff.round_trip();
                assert_eq!(handoff.word.load(Ordering::Acquire), PONG);
            }
            handoff.stop();
        });
    }

    #[test]
    fn futex_wait_times_out_after_its_timeout() {
        let word = AtomicU32::new(7);
        let start = std::time::Instant::now();
        assert_eq!(wait_timeout(&word, 7, 2_000_000).unwrap(), FutexWait::TimedOut);
        assert!(start.elapsed() >= std::time::Duration::from_millis(2), "returned before the 2 ms timeout");
        // A word that differs returns at once instead of sleeping.
        assert_eq!(wait_timeout(&word, 8, 1_000_000_000).unwrap(), FutexWait::ValueDiffered);
        assert!(wait_timeout(&word, 7, -1).is_err(), "a negative timeout is EINVAL");
    }
}
