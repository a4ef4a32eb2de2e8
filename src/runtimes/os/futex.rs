//! Linux futex wait/wake on an `AtomicU32`, and a two-thread handoff built on them.

use std::sync::atomic::{AtomicU32, Ordering};

/// Sleeps while `word == expected` (FUTEX_WAIT_PRIVATE, no timeout). Returns at once if the word
/// already differs; may return spuriously, so callers loop on their own condition.
#[inline]
pub fn wait(word: &AtomicU32, expected: u32) {
    // SAFETY: `word` is a live, aligned u32 for the whole call; a null timeout means wait forever.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
            expected,
            std::ptr::null::<libc::timespec>(),
        );
    }
}

/// Wakes up to `count` threads sleeping on `word` (FUTEX_WAKE_PRIVATE).
#[inline]
pub fn wake(word: &AtomicU32, count: i32) {
    // SAFETY: `word` is a live, aligned u32; FUTEX_WAKE reads nothing through the pointer.
    unsafe {
        libc::syscall(libc::SYS_futex, word.as_ptr(), libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG, count);
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
}
