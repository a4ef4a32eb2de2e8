//! Two eventfds, one each way: a message is the 8-byte counter alone (the payload is not carried).

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use super::End;

/// The counter value that asks for an echo; [`STOP`] ends the peer.
const PING: u64 = 1;
/// The counter value of the peer's finish.
const STOP: u64 = 2;

/// One end: the eventfd it waits on and the one it signals.
pub struct EventfdEnd {
    rx: OwnedFd,
    tx: OwnedFd,
}

impl EventfdEnd {
    fn write(&self, value: u64) -> io::Result<()> {
        // SAFETY: writes the 8 bytes of `value`, as eventfd requires.
        let n = super::retrying_interrupted(|| unsafe {
            libc::write(self.tx.as_raw_fd(), (&value as *const u64).cast(), 8)
        })?;
        eight_bytes(n)
    }
}

/// An eventfd reads and writes its counter whole: 8 bytes, else the kernel refused the call.
#[inline(always)]
fn eight_bytes(n: usize) -> io::Result<()> {
    if n == 8 {
        Ok(())
    } else {
        Err(io::Error::other(format!("an eventfd transfer of {n} bytes, not 8")))
    }
}

impl End for EventfdEnd {
    /// Signals the peer; `buf` is not carried (the counter is the message).
    #[inline]
    fn send(&mut self, _buf: &[u8]) -> io::Result<()> {
        self.write(PING)
    }
    /// Waits for the peer's signal; `buf` is left as it is.
    #[inline]
    fn recv(&mut self, _buf: &mut [u8]) -> io::Result<bool> {
        let mut value = 0u64;
        // SAFETY: reads the 8-byte counter into `value`.
        let n = super::retrying_interrupted(|| unsafe {
            libc::read(self.rx.as_raw_fd(), (&mut value as *mut u64).cast(), 8)
        })?;
        eight_bytes(n).map(|()| value != STOP)
    }
    fn finish(&mut self) {
        let _ = self.write(STOP);
    }
    fn fds(&self) -> [std::os::fd::RawFd; 2] {
        [self.rx.as_raw_fd(), self.tx.as_raw_fd()]
    }
}

fn eventfd() -> io::Result<OwnedFd> {
    // SAFETY: eventfd takes no pointers; a non-negative result is a new descriptor we own.
    let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just created and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Two eventfds: the parent signals the first and waits on the second, the child the other way round.
///
/// Errors: eventfd failed.
pub fn pair() -> io::Result<(EventfdEnd, EventfdEnd)> {
    let (to_child, to_parent) = (eventfd()?, eventfd()?);
    Ok((
        EventfdEnd { rx: to_parent.try_clone()?, tx: to_child.try_clone()? },
        EventfdEnd { rx: to_child, tx: to_parent },
    ))
}
