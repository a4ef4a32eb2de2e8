//! Byte-stream transports: pipes, UNIX stream sockets and TCP over loopback. A message is `len` bytes of
//! the stream, written and read in as many pieces as the kernel takes.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use super::End;
use crate::pipe::{pipe, read_exact, write_all};

/// One end of a byte stream: where it reads and where it writes (the same socket twice, or two pipes).
pub struct StreamEnd {
    rx: OwnedFd,
    tx: OwnedFd,
}

impl StreamEnd {
    /// Another descriptor of this end's socket, for another owner (an async runtime's socket type): a
    /// duplicate of its read side, which for a socket end ([`unix_pair`], [`tcp_pair`]) is its write side too.
    /// The other end sees the stream end only when both this end and the duplicate are closed.
    ///
    /// Errors: dup failed (descriptors exhausted).
    pub fn socket(&self) -> io::Result<OwnedFd> {
        self.rx.try_clone()
    }
}

impl End for StreamEnd {
    #[inline]
    fn send(&mut self, buf: &[u8]) -> io::Result<()> {
        write_all(&self.tx, buf)
    }
    #[inline]
    fn recv(&mut self, buf: &mut [u8]) -> io::Result<bool> {
        read_exact(&self.rx, buf)
    }
    fn fds(&self) -> [std::os::fd::RawFd; 2] {
        [self.rx.as_raw_fd(), self.tx.as_raw_fd()]
    }
}

/// Two pipes, one each way.
///
/// Errors: pipe2 failed (descriptors exhausted).
pub fn pipes() -> io::Result<(StreamEnd, StreamEnd)> {
    let (child_rx, parent_tx) = pipe()?;
    let (parent_rx, child_tx) = pipe()?;
    Ok((StreamEnd { rx: parent_rx, tx: parent_tx }, StreamEnd { rx: child_rx, tx: child_tx }))
}

/// A connected pair of UNIX stream sockets.
///
/// Errors: socketpair or dup failed.
pub fn unix_pair() -> io::Result<(StreamEnd, StreamEnd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` is a valid array of two ints for socketpair to fill.
    if unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0, fds.as_mut_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: socketpair succeeded: both descriptors are open and owned by nobody else.
    let (a, b) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    Ok((both_ways(a)?, both_ways(b)?))
}

/// A TCP connection over 127.0.0.1 (an ephemeral port, listening only until the connection is
/// accepted), `TCP_NODELAY` on both ends.
///
/// Errors: bind, connect, accept or setsockopt failed.
pub fn tcp_pair() -> io::Result<(StreamEnd, StreamEnd)> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
    let client = std::net::TcpStream::connect(listener.local_addr()?)?;
    let (server, _) = listener.accept()?;
    for s in [&client, &server] {
        s.set_nodelay(true)?;
    }
    Ok((both_ways(client.into())?, both_ways(server.into())?))
}

/// A connected TCP socket as an end (`msg.ipc`/`msg.bw` across hosts: the client's connection, or the one
/// the server on the other host accepted). Options set on `socket` before (`TCP_NODELAY`, a read timeout)
/// stay: the end reads and writes the same socket.
///
/// Errors: dup failed (descriptors exhausted).
pub fn tcp_end(socket: std::net::TcpStream) -> io::Result<StreamEnd> {
    both_ways(socket.into())
}

/// A socket as an end that reads and writes through it.
fn both_ways(socket: OwnedFd) -> io::Result<StreamEnd> {
    Ok(StreamEnd { rx: socket.try_clone()?, tx: socket })
}
