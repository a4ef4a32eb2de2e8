//! Two processes talking through one IPC mechanism (Walfield's ping-pong, lmbench's `lat_*` and `bw_*`):
//! the mechanisms ([`IpcTransport`]), the two ends of a channel created before `fork` ([`End`]), and the
//! forked peer that echoes or drains messages ([`Peer`]). `msg.ipc` and `msg.bw` are written against them.

pub use overhead_schema::variants::ipc::IpcTransport;

mod dgram;
mod eventfd;
mod limits;
mod mqueue;
mod peer;
mod shm;
mod stream;

use std::io;

pub use limits::{payload_limit, PayloadLimit};
pub use peer::{round_trip, serve, stream, Peer, Role};
pub use stream::{tcp_end, StreamEnd};

/// One end of a two-process channel, made in the parent before `fork` (both ends are inherited; each
/// process uses its own). Sending and receiving use raw system calls or shared memory only: no
/// allocation, no locks, so a forked child of a multi-threaded process may use them.
pub trait End {
    /// Sends one message: all of `buf`, whatever partial writes the kernel makes.
    ///
    /// Errors: the system call failed (the peer is gone: EPIPE, ECONNRESET).
    fn send(&mut self, buf: &[u8]) -> io::Result<()>;
    /// Receives one message of exactly `buf.len()` bytes; `Ok(false)` when the peer ended the channel
    /// (end of file, or its [`End::finish`]) before a message began.
    ///
    /// Errors: the system call failed; a message of another size arrived; the stream ended mid-message.
    fn recv(&mut self, buf: &mut [u8]) -> io::Result<bool>;
    /// Tells the peer that no message follows (for channels where closing the end does not say so).
    fn finish(&mut self) {}
    /// The descriptors this end uses (up to two; -1 for none), which a forked child keeps open while it
    /// closes every other descriptor it inherited (see [`Peer::spawn`]).
    fn fds(&self) -> [std::os::fd::RawFd; 2] {
        [-1, -1]
    }
}

/// The outcome of one receive of a whole message (a datagram, a queue message) whose system call
/// returned `n`: `Ok(false)` for an empty message (the peer's finish), `Ok(true)` for one of `expected`
/// bytes, an error naming `what` for another size or a failed call; `None` when a signal interrupted the
/// call and it should be made again.
fn message_received(n: isize, expected: usize, what: &str) -> Option<io::Result<bool>> {
    match n {
        0 => Some(Ok(false)),
        n if n > 0 && n as usize == expected => Some(Ok(true)),
        n if n > 0 => Some(Err(io::Error::other(format!("a {n}-byte {what} where {expected} bytes were expected")))),
        _ => {
            let e = io::Error::last_os_error();
            (e.kind() != io::ErrorKind::Interrupted).then_some(Err(e))
        }
    }
}

/// The result of `call`, a system call that returns a count or -1 with `errno`, made again while a signal
/// interrupts it (`EINTR`): the count, or the error. Inlined, so the timed path is the call and one compare.
#[inline(always)]
fn retrying_interrupted(mut call: impl FnMut() -> isize) -> io::Result<usize> {
    loop {
        let n = call();
        if n >= 0 {
            return Ok(n as usize);
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// What to do with the two ends of a channel, generic over the end's type so that the timed loop is
/// compiled for one transport, with no dispatch inside it ([`open`] picks the type once).
pub trait WithEnds {
    /// What the work gives back.
    type Output;
    /// Does the work with the parent's end and the child's end.
    fn with<E: End>(self, parent: E, child: E) -> Self::Output;
}

/// The two ends (parent's, child's) of a connected pair of stream sockets of `transport`: a UNIX stream socket
/// pair or a TCP connection over loopback (`TCP_NODELAY` on both), for a runtime's own socket type on the
/// parent's side ([`StreamEnd::socket`]) against a forked [`Peer`] on the child's.
///
/// Errors: `transport` is not a stream socket; the system refused the sockets.
pub fn socket_pair(transport: IpcTransport) -> io::Result<(StreamEnd, StreamEnd)> {
    match transport {
        IpcTransport::UnixStream => stream::unix_pair(),
        IpcTransport::Tcp => stream::tcp_pair(),
        other => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a stream socket; a runtime's sockets are unix_stream and tcp", other.name()),
        )),
    }
}

/// Makes the two ends of a channel of `transport` for messages of `payload` bytes and hands them to
/// `work` (`(parent's, child's)`).
///
/// Errors: `payload` is above the transport's limit here ([`payload_limit`]); the system refused the
/// resource (descriptors, a message queue, a mapping).
pub fn open<W: WithEnds>(transport: IpcTransport, payload: usize, work: W) -> io::Result<W::Output> {
    if let Some(limit) = payload_limit(transport).filter(|l| payload > l.bytes) {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{payload}-byte messages: {}", limit.why)));
    }
    Ok(match transport {
        IpcTransport::Pipe => {
            let (a, b) = stream::pipes()?;
            work.with(a, b)
        }
        IpcTransport::UnixStream => {
            let (a, b) = stream::unix_pair()?;
            work.with(a, b)
        }
        IpcTransport::Tcp => {
            let (a, b) = stream::tcp_pair()?;
            work.with(a, b)
        }
        IpcTransport::UnixDgram => {
            let (a, b) = dgram::pair(payload)?;
            work.with(a, b)
        }
        IpcTransport::Eventfd => {
            let (a, b) = eventfd::pair()?;
            work.with(a, b)
        }
        IpcTransport::FutexShm => {
            let (a, b) = shm::pair(payload, shm::Wait::Futex)?;
            work.with(a, b)
        }
        IpcTransport::SpinShm => {
            let (a, b) = shm::pair(payload, shm::Wait::Spin)?;
            work.with(a, b)
        }
        IpcTransport::Mqueue => {
            let (a, b) = mqueue::pair(payload)?;
            work.with(a, b)
        }
    })
}
