//! Wake paths: how one kernel thread wakes another that waits, by every mechanism runtimes choose between
//! (docs/METHOD.md §9, "Waking another thread"). Each mechanism is two ends behind two traits: a
//! [`WaitEnd`] that blocks until woken (or polls for a wake without blocking) and a [`WakeEnd`] that wakes
//! it; [`handoff`] times a ping-pong over two pairs of them.
//!
//! The mechanisms and where each comes from: the private futex (Drepper, "Futexes Are Tricky"; what
//! `std::thread::park` uses), `futex_waitv` over 1 and 8 words (Linux 5.16, for Wine's WaitForMultipleObjects),
//! an eventfd read, an eventfd or a pipe under `epoll_wait` (tokio's and mio's waker), and io_uring's
//! `IORING_OP_MSG_RING` into the waiter's ring with default flags and with `SINGLE_ISSUER | DEFER_TASKRUN`,
//! the waiter's ring reading an eventfd, `IORING_OP_FUTEX_WAIT` woken by a plain futex wake, and a waker
//! submitting its MSG_RING through `IORING_SETUP_SQPOLL` (liburing issue 1150; Axboe's MSG_RING patch series
//! of June 2024). Rings come from the `io-uring` crate; no ring code is written here.

mod fd_paths;
mod futex_paths;
pub mod handoff;
mod uring_paths;

use std::io;

use serde::{Deserialize, Serialize};

/// A wake path. serde: the `mechanism:` parameter's value (`futex`, `futex_waitv8`, `uring_msg_ring_defer`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mechanism {
    /// `FUTEX_WAIT_PRIVATE` on one word, woken by `FUTEX_WAKE_PRIVATE`.
    Futex,
    /// `futex_waitv` on one word (Linux 5.16).
    FutexWaitv1,
    /// `futex_waitv` on eight words, the last one woken (the kernel queues the waiter on all eight).
    FutexWaitv8,
    /// A blocking `read` of an eventfd, woken by a `write` of 1.
    Eventfd,
    /// `epoll_wait` on an eventfd (then a read to clear it): the waker of tokio's and mio's I/O driver.
    EventfdEpoll,
    /// `epoll_wait` on a pipe's read end, woken by a one-byte write (the self-pipe of older event loops).
    PipeEpoll,
    /// The waker's ring sends `IORING_OP_MSG_RING` into the waiter's ring (default flags); the waiter waits
    /// in `io_uring_enter` for the completion.
    UringMsgRing,
    /// As [`Mechanism::UringMsgRing`] into a waiter ring set up `SINGLE_ISSUER | DEFER_TASKRUN`: the message
    /// becomes the waiter's own task work, run when it enters the kernel to wait.
    UringMsgRingDefer,
    /// The waiter's ring reads an eventfd (`IORING_OP_READ`); the waker writes the eventfd.
    UringEventfd,
    /// The waiter's ring waits on a futex word (`IORING_OP_FUTEX_WAIT`, Linux 6.7); the waker stores and calls
    /// a plain `FUTEX_WAKE_PRIVATE`.
    UringFutex,
    /// As [`Mechanism::UringMsgRing`], the waker's ring set up with `IORING_SETUP_SQPOLL`: a kernel thread polls
    /// its submissions, so the waker's call is a store to the ring and no system call while that thread is
    /// awake (its CPU time is not the waker's).
    UringSqpoll,
}

impl Mechanism {
    /// Every mechanism, in the order of the report.
    pub const ALL: [Mechanism; 11] = [
        Mechanism::Futex,
        Mechanism::FutexWaitv1,
        Mechanism::FutexWaitv8,
        Mechanism::Eventfd,
        Mechanism::EventfdEpoll,
        Mechanism::PipeEpoll,
        Mechanism::UringMsgRing,
        Mechanism::UringMsgRingDefer,
        Mechanism::UringEventfd,
        Mechanism::UringFutex,
        Mechanism::UringSqpoll,
    ];

    /// Its parameter value.
    pub fn name(self) -> &'static str {
        match self {
            Mechanism::Futex => "futex",
            Mechanism::FutexWaitv1 => "futex_waitv1",
            Mechanism::FutexWaitv8 => "futex_waitv8",
            Mechanism::Eventfd => "eventfd",
            Mechanism::EventfdEpoll => "eventfd_epoll",
            Mechanism::PipeEpoll => "pipe_epoll",
            Mechanism::UringMsgRing => "uring_msg_ring",
            Mechanism::UringMsgRingDefer => "uring_msg_ring_defer",
            Mechanism::UringEventfd => "uring_eventfd",
            Mechanism::UringFutex => "uring_futex",
            Mechanism::UringSqpoll => "uring_sqpoll",
        }
    }

    /// Whether a waiter of this mechanism can poll for a wake without blocking as runtimes do before they
    /// park (a futex word, `epoll_wait` with no timeout, a ring's completion queue). The eventfd read and the
    /// ring's armed read or futex wait have no such poll that is not another mechanism, so they are measured
    /// blocked only.
    pub fn can_spin(self) -> bool {
        matches!(
            self,
            Mechanism::Futex
                | Mechanism::FutexWaitv1
                | Mechanism::FutexWaitv8
                | Mechanism::EventfdEpoll
                | Mechanism::PipeEpoll
                | Mechanism::UringMsgRing
                | Mechanism::UringMsgRingDefer
        )
    }

    /// The mechanism of the waiter's answer in a timed round trip (`handoff`): the same, but a plain MSG_RING
    /// answers an SQPOLL one, so that one polling kernel thread, the waker's, is all the round has.
    pub fn answer(self) -> Mechanism {
        match self {
            Mechanism::UringSqpoll => Mechanism::UringMsgRing,
            other => other,
        }
    }

    /// Whether it needs io_uring.
    pub fn uses_io_uring(self) -> bool {
        self.name().starts_with("uring_")
    }

    /// The ring's setup flags, as the record names them (empty for a mechanism without a ring).
    pub fn ring_flags(self) -> &'static str {
        match self {
            Mechanism::UringMsgRing | Mechanism::UringEventfd | Mechanism::UringFutex => "waiter ring: default flags",
            Mechanism::UringMsgRingDefer => "waiter ring: IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN",
            Mechanism::UringSqpoll => "waiter ring: default flags; waker ring: IORING_SETUP_SQPOLL",
            _ => "",
        }
    }

    /// A waiting end and a waking end of one channel of this mechanism.
    ///
    /// Errors: the kernel lacks it or refuses it, with its own reason (`ENOSYS`, `EINVAL`, `EPERM` under
    /// `kernel.io_uring_disabled` or a seccomp filter), as [`Unavailable`].
    pub fn open(self) -> Result<Ends, Unavailable> {
        match self {
            Mechanism::Futex => Ok(futex_paths::futex()),
            Mechanism::FutexWaitv1 => futex_paths::futex_waitv(1),
            Mechanism::FutexWaitv8 => futex_paths::futex_waitv(8),
            Mechanism::Eventfd => fd_paths::eventfd(),
            Mechanism::EventfdEpoll => fd_paths::eventfd_epoll(),
            Mechanism::PipeEpoll => fd_paths::pipe_epoll(),
            Mechanism::UringMsgRing => uring_paths::msg_ring(false, false),
            Mechanism::UringMsgRingDefer => uring_paths::msg_ring(true, false),
            Mechanism::UringSqpoll => uring_paths::msg_ring(false, true),
            Mechanism::UringEventfd => uring_paths::eventfd_read(),
            Mechanism::UringFutex => uring_paths::futex_wait(),
        }
    }
}

/// The two ends of one channel of a mechanism: the waiting end and the waking end.
pub type Ends = (Box<dyn WaitEnd>, Box<dyn WakeEnd>);

/// Why a mechanism cannot run here: the call that failed and the kernel's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unavailable(pub String);

impl Unavailable {
    /// `what` failed with `error`, said with the errno's name and what it usually means here.
    pub fn from_io(what: &str, error: &io::Error) -> Unavailable {
        let why = match error.raw_os_error() {
            Some(libc::ENOSYS) => "ENOSYS: this kernel has no such call, or a seccomp filter hides it",
            Some(libc::EPERM) => "EPERM: refused (kernel.io_uring_disabled, a missing capability or a seccomp filter)",
            Some(libc::EINVAL) => "EINVAL: this kernel does not know the flags or the operation",
            Some(libc::EOPNOTSUPP) => "EOPNOTSUPP: not supported here",
            _ => "",
        };
        Unavailable(if why.is_empty() { format!("{what}: {error}") } else { format!("{what}: {why} ({error})") })
    }
}

impl std::fmt::Display for Unavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The end of a wake path that waits. It lives on the waiting thread from [`WaitEnd::attach`] on.
pub trait WaitEnd: Send {
    /// Called once on the waiting thread before its first wait (a `SINGLE_ISSUER` ring is enabled here, so
    /// that this thread is its submitter).
    fn attach(&mut self) -> io::Result<()> {
        Ok(())
    }
    /// Blocks until woken and consumes the wake (returns at once when a wake is already there).
    fn wait(&mut self) -> io::Result<()>;
    /// Consumes a wake that is there without blocking; `Ok(false)` when none is. Only for mechanisms that
    /// [`Mechanism::can_spin`]; the others answer `Ok(false)` always.
    fn poll(&mut self) -> io::Result<bool>;
}

/// The end of a wake path that wakes. It lives on the waking thread from [`WakeEnd::attach`] on.
pub trait WakeEnd: Send {
    /// Called once on the waking thread before its first wake (its own sending ring is made here).
    fn attach(&mut self) -> io::Result<()> {
        Ok(())
    }
    /// Wakes the waiter once.
    fn wake(&mut self) -> io::Result<()>;
}

/// The last OS error when `ret` is negative (its errno kept, so callers can tell EAGAIN from the rest).
fn check(ret: libc::c_long) -> io::Result<libc::c_long> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}
