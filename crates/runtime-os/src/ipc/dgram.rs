//! UNIX datagram sockets: one datagram per message, so a message is bounded by the socket buffer.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use super::End;

/// One end of a connected pair of UNIX datagram sockets.
pub struct DgramEnd {
    fd: OwnedFd,
}

impl End for DgramEnd {
    #[inline]
    fn send(&mut self, buf: &[u8]) -> io::Result<()> {
        // SAFETY: the pointer and length describe `buf`; the socket is connected to its peer.
        let sent = super::retrying_interrupted(|| unsafe {
            libc::send(self.fd.as_raw_fd(), buf.as_ptr().cast(), buf.len(), 0)
        })?;
        if sent == buf.len() {
            Ok(())
        } else {
            Err(io::Error::other("a datagram was sent short"))
        }
    }
    #[inline]
    fn recv(&mut self, buf: &mut [u8]) -> io::Result<bool> {
        loop {
            // SAFETY: the pointer and length describe `buf`; MSG_TRUNC makes recv return the datagram's
            // real length, so a larger one is detected instead of silently cut.
            let n = unsafe { libc::recv(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), libc::MSG_TRUNC) };
            if let Some(received) = super::message_received(n, buf.len(), "datagram") {
                return received;
            }
        }
    }
    fn finish(&mut self) {
        // SAFETY: an empty datagram: no bytes are read from the (null-free) empty buffer.
        unsafe { libc::send(self.fd.as_raw_fd(), [0u8; 0].as_ptr().cast(), 0, 0) };
    }
    fn fds(&self) -> [std::os::fd::RawFd; 2] {
        [self.fd.as_raw_fd(), -1]
    }
}

/// A connected pair of UNIX datagram sockets whose send and receive buffers hold a `payload`-byte datagram.
///
/// Errors: socketpair or setsockopt failed.
pub fn pair(payload: usize) -> io::Result<(DgramEnd, DgramEnd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` is a valid array of two ints for socketpair to fill.
    if unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0, fds.as_mut_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: socketpair succeeded: both descriptors are open and owned by nobody else.
    let (a, b) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // The kernel doubles the value for its bookkeeping and caps it at wmem_max/rmem_max.
    let size = libc::c_int::try_from(payload + 64 * 1024).unwrap_or(libc::c_int::MAX);
    for fd in [&a, &b] {
        for opt in [libc::SO_SNDBUF, libc::SO_RCVBUF] {
            // SAFETY: `size` is a live c_int of the length given.
            let rc = unsafe {
                libc::setsockopt(
                    fd.as_raw_fd(),
                    libc::SOL_SOCKET,
                    opt,
                    (&size as *const libc::c_int).cast(),
                    std::mem::size_of::<libc::c_int>() as libc::socklen_t,
                )
            };
            if rc != 0 {
                return Err(io::Error::last_os_error());
            }
        }
    }
    Ok((DgramEnd { fd: a }, DgramEnd { fd: b }))
}
