//! The io_uring wake paths, through the `io-uring` crate: MSG_RING into the waiter's ring (default flags,
//! `SINGLE_ISSUER | DEFER_TASKRUN`, or sent from an `SQPOLL` ring), the ring reading an eventfd, and the ring
//! waiting on a futex.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use io_uring::{cqueue, opcode, squeue, types, IoUring, Probe};

use super::{Ends, Unavailable, WaitEnd, WakeEnd};
use crate::futex;

/// Entries of every ring: one operation is in flight at a time.
const ENTRIES: u32 = 8;

/// The `user_data` of a wake's completion in the waiter's ring.
const WAKE_TOKEN: u64 = 0x77616b65;

/// How long an SQPOLL thread keeps polling after the last submission (ms): longer than any gap between two
/// wakes of a process, so every wake finds it awake; it sleeps after the process's last one.
const SQPOLL_IDLE_MS: u32 = 1_000;

/// A ring of default flags, or as `builder` sets it up.
fn ring(what: &str, setup: impl FnOnce(&mut io_uring::Builder)) -> Result<IoUring, Unavailable> {
    let mut builder = IoUring::builder();
    setup(&mut builder);
    builder.build(ENTRIES).map_err(|e| Unavailable::from_io(&format!("io_uring_setup ({what})"), &e))
}

/// Errors unless `ring`'s kernel knows every one of `opcodes` (`IORING_REGISTER_PROBE`).
fn require(ring: &IoUring, opcodes: &[(u8, &str)]) -> Result<(), Unavailable> {
    let mut probe = Probe::new();
    ring.submitter().register_probe(&mut probe).map_err(|e| Unavailable::from_io("IORING_REGISTER_PROBE", &e))?;
    match opcodes.iter().find(|(code, _)| !probe.is_supported(*code)) {
        Some((_, name)) => Err(Unavailable(format!("this kernel's io_uring has no {name}"))),
        None => Ok(()),
    }
}

/// Takes the next completion of `ring`, if any; a negative result is the operation's error.
fn reap(ring: &mut IoUring) -> io::Result<Option<cqueue::Entry>> {
    match ring.completion().next() {
        Some(cqe) if cqe.result() < 0 && cqe.result() != -libc::EAGAIN => {
            Err(io::Error::from_raw_os_error(-cqe.result()))
        }
        other => Ok(other),
    }
}

/// Waits in `io_uring_enter` for one completion (an interrupted wait is retried), and takes it.
fn wait_for_completion(ring: &mut IoUring) -> io::Result<cqueue::Entry> {
    loop {
        if let Some(cqe) = reap(ring)? {
            return Ok(cqe);
        }
        match ring.submit_and_wait(1) {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Queues `entry` in `ring`, submitting what is queued first when the submission queue is full.
fn push(ring: &mut IoUring, entry: &squeue::Entry) -> io::Result<()> {
    loop {
        // SAFETY: every entry pushed here points at memory its owner keeps alive until its completion is
        // reaped (a ring fd, a buffer or a futex word held by the same end), or at none.
        if unsafe { ring.submission().push(entry) }.is_ok() {
            return Ok(());
        }
        ring.submit()?;
    }
}

/// A ring set up with `IORING_SETUP_SQPOLL`, made on a thread that may run on every CPU this process may
/// use: the kernel's polling thread takes its creator's CPUs, and made on a pinned thread it would poll on the
/// waker's own CPU. It floats, as a user's SQPOLL thread does unless pinned, and shares the CPUs with the
/// two threads measured.
fn sqpoll_ring() -> Result<IoUring, Unavailable> {
    std::thread::spawn(|| {
        let everywhere = overhead_machine::cpu_mask(&overhead_machine::allowed_cpus())
            .and_then(|mask| overhead_machine::set_affinity_mask(&mask));
        everywhere.map_err(|e| Unavailable::from_io("sched_setaffinity for the SQPOLL thread", &e))?;
        ring("SQPOLL", |b| {
            b.setup_sqpoll(SQPOLL_IDLE_MS);
        })
    })
    .join()
    .map_err(|_| Unavailable("the thread that makes the SQPOLL ring panicked".into()))?
}

/// The waiter's ring, waiting for messages.
struct MsgRingWait {
    ring: IoUring,
    defer: bool,
}

/// The waker's own ring, sending messages into the waiter's (a duplicate of its fd).
struct MsgRingWake {
    ring: IoUring,
    target: OwnedFd,
}

/// A MSG_RING pair: the waiter's ring `defer`red (`SINGLE_ISSUER | DEFER_TASKRUN | TASKRUN_FLAG`, made
/// disabled so that the waiting thread enables it and becomes its submitter) or not, the waker's ring
/// `sqpoll` or not.
pub(super) fn msg_ring(defer: bool, sqpoll: bool) -> Result<Ends, Unavailable> {
    let waiter = ring(if defer { "SINGLE_ISSUER | DEFER_TASKRUN" } else { "default flags" }, |b| {
        if defer {
            b.setup_single_issuer().setup_defer_taskrun().setup_taskrun_flag().setup_r_disabled();
        }
    })?;
    let waker = if sqpoll { sqpoll_ring()? } else { ring("default flags", |_| {})? };
    require(&waker, &[(opcode::MsgRingData::CODE, "IORING_OP_MSG_RING")])?;
    // SAFETY: dup of the waiter ring's open fd; the new fd is owned by the waking end only.
    let dup = unsafe { libc::fcntl(waiter.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 0) };
    if dup < 0 {
        return Err(Unavailable::from_io("dup of the ring", &io::Error::last_os_error()));
    }
    // SAFETY: `dup` was just opened and is owned by nobody else.
    let target = unsafe { OwnedFd::from_raw_fd(dup) };
    Ok((Box::new(MsgRingWait { ring: waiter, defer }), Box::new(MsgRingWake { ring: waker, target })))
}

impl WaitEnd for MsgRingWait {
    fn attach(&mut self) -> io::Result<()> {
        if self.defer {
            // Enabling it here makes this thread the ring's single issuer (IORING_SETUP_R_DISABLED).
            self.ring.submitter().register_enable_rings()?;
        }
        Ok(())
    }
    fn wait(&mut self) -> io::Result<()> {
        wait_for_completion(&mut self.ring).map(drop)
    }
    fn poll(&mut self) -> io::Result<bool> {
        if self.defer && self.ring.submission().taskrun() {
            // A deferred message is task work until this thread enters the kernel to run it.
            self.ring.submit()?;
        }
        Ok(reap(&mut self.ring)?.is_some())
    }
}

impl WakeEnd for MsgRingWake {
    fn wake(&mut self) -> io::Result<()> {
        let message = opcode::MsgRingData::new(types::Fd(self.target.as_raw_fd()), 0, WAKE_TOKEN, None)
            .build()
            .flags(squeue::Flags::SKIP_SUCCESS);
        push(&mut self.ring, &message)?;
        self.ring.submit()?;
        // A message the kernel refused posts its error here (success posts nothing: SKIP_SUCCESS).
        reap(&mut self.ring).map(drop)
    }
}

/// The waiter's ring reading an eventfd: one 8-byte read armed per wait.
struct EventfdReadWait {
    ring: IoUring,
    fd: Arc<OwnedFd>,
    buf: Box<[u8; 8]>,
}

/// The waker writes the eventfd.
struct EventfdWrite(Arc<OwnedFd>);

pub(super) fn eventfd_read() -> Result<Ends, Unavailable> {
    let ring = ring("default flags", |_| {})?;
    require(&ring, &[(opcode::Read::CODE, "IORING_OP_READ")])?;
    // SAFETY: eventfd takes no pointers.
    let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC) };
    if fd < 0 {
        return Err(Unavailable::from_io("eventfd", &io::Error::last_os_error()));
    }
    // SAFETY: `fd` was just opened and is owned by nobody else.
    let fd = Arc::new(unsafe { OwnedFd::from_raw_fd(fd) });
    Ok((Box::new(EventfdReadWait { ring, fd: fd.clone(), buf: Box::new([0; 8]) }), Box::new(EventfdWrite(fd))))
}

impl WaitEnd for EventfdReadWait {
    fn wait(&mut self) -> io::Result<()> {
        let read = opcode::Read::new(types::Fd(self.fd.as_raw_fd()), self.buf.as_mut_ptr(), 8).build();
        push(&mut self.ring, &read.user_data(WAKE_TOKEN))?;
        // The read completes before this returns, so `buf` outlives it.
        wait_for_completion(&mut self.ring).map(drop)
    }
    fn poll(&mut self) -> io::Result<bool> {
        Ok(false)
    }
}

impl WakeEnd for EventfdWrite {
    fn wake(&mut self) -> io::Result<()> {
        let one = 1u64.to_ne_bytes();
        // SAFETY: 8 readable bytes; the eventfd is open.
        let n = unsafe { libc::write(self.0.as_raw_fd(), one.as_ptr().cast(), 8) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

/// The waiter's ring waiting on a futex word (`IORING_OP_FUTEX_WAIT`), 0 while no wake is pending.
struct FutexRingWait {
    ring: IoUring,
    word: Arc<AtomicU32>,
}

/// The waker stores 1 and calls a plain `FUTEX_WAKE_PRIVATE`.
struct FutexRingWake(Arc<AtomicU32>);

/// `FUTEX2_SIZE_U32 | FUTEX2_PRIVATE`, the key a plain private `FUTEX_WAKE` matches.
const FUTEX2_U32_PRIVATE: u32 = 0x02 | 128;

/// `FUTEX_BITSET_MATCH_ANY`: the mask a plain `FUTEX_WAKE` wakes.
const MATCH_ANY: u64 = 0xffff_ffff;

pub(super) fn futex_wait() -> Result<Ends, Unavailable> {
    let ring = ring("default flags", |_| {})?;
    require(&ring, &[(opcode::FutexWait::CODE, "IORING_OP_FUTEX_WAIT (Linux 6.7)")])?;
    let word = Arc::new(AtomicU32::new(0));
    Ok((Box::new(FutexRingWait { ring, word: word.clone() }), Box::new(FutexRingWake(word))))
}

impl WaitEnd for FutexRingWait {
    fn wait(&mut self) -> io::Result<()> {
        loop {
            let wait = opcode::FutexWait::new(self.word.as_ptr(), 0, MATCH_ANY, FUTEX2_U32_PRIVATE).build();
            push(&mut self.ring, &wait.user_data(WAKE_TOKEN))?;
            // Completes with 0 when woken, -EAGAIN when the word was 1 already; reaped before the word is
            // read, so no wait is left in flight when this returns.
            wait_for_completion(&mut self.ring)?;
            if self.word.swap(0, Ordering::Acquire) == 1 {
                return Ok(());
            }
        }
    }
    fn poll(&mut self) -> io::Result<bool> {
        Ok(false)
    }
}

impl WakeEnd for FutexRingWake {
    fn wake(&mut self) -> io::Result<()> {
        self.0.store(1, Ordering::Release);
        futex::wake(&self.0, 1);
        Ok(())
    }
}
