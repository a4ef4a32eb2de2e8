//! The file-descriptor wake paths: an eventfd read, and an eventfd or a pipe under `epoll_wait`.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::Arc;

use super::{check, Ends, Unavailable, WaitEnd, WakeEnd};

/// Reads 8 bytes (an eventfd's counter) or up to 8 (a pipe's bytes) from `fd`; `Ok(false)` on EAGAIN.
fn read_some(fd: &OwnedFd) -> io::Result<bool> {
    let mut buf = [0u8; 8];
    // SAFETY: `buf` is 8 writable bytes for the call; `fd` is open.
    let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
    match check(n as libc::c_long) {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(false),
        Err(e) => Err(e),
    }
}

/// Writes an eventfd's increment of 1 (8 bytes) or a pipe's one byte to `fd`.
fn write_one(fd: &OwnedFd, eventfd: bool) -> io::Result<()> {
    let one = 1u64.to_ne_bytes();
    let len = if eventfd { 8 } else { 1 };
    // SAFETY: `one` holds 8 readable bytes, `len` ≤ 8; `fd` is open.
    let n = unsafe { libc::write(fd.as_raw_fd(), one.as_ptr().cast(), len) };
    check(n as libc::c_long).map(drop)
}

/// A new eventfd, `nonblocking` or not.
fn new_eventfd(nonblocking: bool) -> Result<OwnedFd, Unavailable> {
    let flags = libc::EFD_CLOEXEC | if nonblocking { libc::EFD_NONBLOCK } else { 0 };
    // SAFETY: eventfd takes no pointers.
    let fd = unsafe { libc::eventfd(0, flags) };
    if fd < 0 {
        return Err(Unavailable::from_io("eventfd", &io::Error::last_os_error()));
    }
    // SAFETY: `fd` was just opened and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// The eventfd read: the waiter's read blocks while the counter is 0.
struct EventfdWait(Arc<OwnedFd>);
struct FdWake {
    fd: Arc<OwnedFd>,
    eventfd: bool,
}

pub(super) fn eventfd() -> Result<Ends, Unavailable> {
    let fd = Arc::new(new_eventfd(false)?);
    Ok((Box::new(EventfdWait(fd.clone())), Box::new(FdWake { fd, eventfd: true })))
}

impl WaitEnd for EventfdWait {
    fn wait(&mut self) -> io::Result<()> {
        while !read_some(&self.0)? {}
        Ok(())
    }
    fn poll(&mut self) -> io::Result<bool> {
        Ok(false)
    }
}

impl WakeEnd for FdWake {
    fn wake(&mut self) -> io::Result<()> {
        write_one(&self.fd, self.eventfd)
    }
}

/// A non-blocking fd under an epoll instance (level-triggered `EPOLLIN`): wait in `epoll_wait`, then read the
/// fd empty.
struct EpollWait {
    epoll: OwnedFd,
    fd: Arc<OwnedFd>,
}

impl EpollWait {
    /// An epoll instance watching `fd` for input.
    fn new(fd: Arc<OwnedFd>) -> Result<EpollWait, Unavailable> {
        // SAFETY: epoll_create1 takes no pointers.
        let epoll = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
        if epoll < 0 {
            return Err(Unavailable::from_io("epoll_create1", &io::Error::last_os_error()));
        }
        // SAFETY: `epoll` was just opened and is owned by nobody else.
        let epoll = unsafe { OwnedFd::from_raw_fd(epoll) };
        let mut event = libc::epoll_event { events: libc::EPOLLIN as u32, u64: 0 };
        // SAFETY: `event` is a valid epoll_event for the call; both fds are open.
        let ret = unsafe { libc::epoll_ctl(epoll.as_raw_fd(), libc::EPOLL_CTL_ADD, fd.as_raw_fd(), &mut event) };
        if ret < 0 {
            return Err(Unavailable::from_io("epoll_ctl", &io::Error::last_os_error()));
        }
        Ok(EpollWait { epoll, fd })
    }

    /// One `epoll_wait` of `timeout_ms` (-1: until an event); whether it reported one.
    fn epoll_wait(&self, timeout_ms: i32) -> io::Result<bool> {
        let mut event = libc::epoll_event { events: 0, u64: 0 };
        // SAFETY: room for one event at `event`; the epoll fd is open.
        let n = unsafe { libc::epoll_wait(self.epoll.as_raw_fd(), &mut event, 1, timeout_ms) };
        match check(n as libc::c_long) {
            Ok(n) => Ok(n > 0),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(false),
            Err(e) => Err(e),
        }
    }
}

impl WaitEnd for EpollWait {
    fn wait(&mut self) -> io::Result<()> {
        loop {
            if self.epoll_wait(-1)? && read_some(&self.fd)? {
                return Ok(());
            }
        }
    }
    fn poll(&mut self) -> io::Result<bool> {
        Ok(self.epoll_wait(0)? && read_some(&self.fd)?)
    }
}

pub(super) fn eventfd_epoll() -> Result<Ends, Unavailable> {
    let fd = Arc::new(new_eventfd(true)?);
    Ok((Box::new(EpollWait::new(fd.clone())?), Box::new(FdWake { fd, eventfd: true })))
}

pub(super) fn pipe_epoll() -> Result<Ends, Unavailable> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) } < 0 {
        return Err(Unavailable::from_io("pipe2", &io::Error::last_os_error()));
    }
    // SAFETY: both were just opened and are owned by nobody else.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    let wait = EpollWait::new(Arc::new(read))?;
    Ok((Box::new(wait), Box::new(FdWake { fd: Arc::new(write), eventfd: false })))
}
