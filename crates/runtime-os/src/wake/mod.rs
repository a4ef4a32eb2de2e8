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

pub use overhead_schema::variants::wake::Mechanism;

/// A waiting end and a waking end of one channel of `mechanism`.
///
/// Errors: the kernel lacks it or refuses it, with its own reason (`ENOSYS`, `EINVAL`, `EPERM` under
/// `kernel.io_uring_disabled` or a seccomp filter), as [`Unavailable`].
pub fn open(mechanism: Mechanism) -> Result<Ends, Unavailable> {
    match mechanism {
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
