//! The wake paths of `wake.handoff` and the waiter's state (docs/METHOD.md §9, "Waking another thread");
//! opening one is `overhead_runtime_os::wake::open`.

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
}

/// The waiter's state when the wake comes. serde: the `waiter:` parameter (`blocked`, `spinning`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WaiterState {
    /// Asleep in the mechanism's wait.
    Blocked,
    /// Polling the mechanism, up to `SPIN_NS` (`overhead_runtime_os::wake::handoff`), before it blocks.
    Spinning,
}
