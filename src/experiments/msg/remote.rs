//! `msg.ipc` and `msg.bw` across hosts (`placement:other_host`, issue 24): the point runs as two MPI ranks,
//! rank 0 on this machine measuring, rank 1 on the other host serving. MPI only starts the two and carries
//! the server's port from rank 1 to rank 0 (once, before anything is timed); the messages themselves go over
//! one TCP connection with `TCP_NODELAY`, as the local `transport:tcp` points' loopback connection does, and
//! rank 1 plays the same [`Role`] the forked peer plays on one machine ([`serve`]).
//!
//! Rank 1 stops by itself: it waits at most [`ACCEPT_TIMEOUT`] for the connection, each read waits at most
//! [`READ_TIMEOUT`], and it returns when rank 0 closes the connection.

use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use anyhow::Context as _;

use crate::experiments::Point;
use crate::runtimes::mpi::shim::shim;
use crate::runtimes::os::ipc::{serve, tcp_end, Role, StreamEnd};

/// How long rank 1 waits for rank 0 to connect before it gives up (s): rank 0 connects right after it has
/// the port, so only a rank 0 that failed first makes it wait this long.
pub const ACCEPT_TIMEOUT: Duration = Duration::from_secs(60);

/// How long one read on either rank waits for the other before it fails the point (s): a message takes
/// microseconds to milliseconds, so only a vanished peer reaches it.
pub const READ_TIMEOUT: Duration = Duration::from_secs(60);

/// How long rank 0 tries to connect to one address of rank 1's host (s).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The port word rank 1 sends when it could not listen, so that rank 0 fails at once instead of waiting.
const NO_PORT: u32 = 0;

/// Rank 1: listens on an ephemeral TCP port of every IPv4 address of its host, sends the port to rank 0
/// (4 bytes, little endian, through MPI), accepts one connection within [`ACCEPT_TIMEOUT`] and plays `role`
/// on it with `payload`-byte messages until rank 0 closes it.
///
/// Errors: MPI could not be reached, the socket could not be bound or accepted in time, or the connection
/// failed (a read that waited [`READ_TIMEOUT`], a message cut short).
pub fn serve_rank(role: Role, payload: usize) -> anyhow::Result<()> {
    let mpi = shim().map_err(anyhow::Error::msg)?;
    let listening = TcpListener::bind((Ipv4Addr::UNSPECIFIED, 0))
        .and_then(|l| Ok((l.local_addr()?.port(), l)))
        .context("listening on TCP for rank 0");
    let (port, listener) = match listening {
        Ok(listening) => listening,
        Err(e) => {
            // Rank 0 waits for a port: tell it there is none.
            let _ = mpi.send_bytes(0, &NO_PORT.to_le_bytes());
            return Err(e);
        }
    };
    mpi.send_bytes(0, &u32::from(port).to_le_bytes()).context("sending the port to rank 0")?;
    let stream = accept_within(&listener, ACCEPT_TIMEOUT)?;
    drop(listener);
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    let mut buf = vec![0u8; payload.max(8)];
    serve(role, tcp_end(stream)?, &mut buf[..payload])
        .with_context(|| format!("serving rank 0 on port {port} ({})", role_name(role)))
}

/// Rank 0: receives rank 1's port through MPI and connects to it on `point`'s host of rank 1, with
/// `TCP_NODELAY` and a read timeout of [`READ_TIMEOUT`]. Returns the end to measure through and a note for
/// the record naming both addresses of the connection.
///
/// Errors: MPI could not be reached, rank 1 could not listen, the point names no host for rank 1, the name
/// does not resolve, or no address of it accepted the connection within 10 s.
pub fn connect_rank(point: &Point<'_>) -> anyhow::Result<(StreamEnd, String)> {
    let mpi = shim().map_err(anyhow::Error::msg)?;
    let mut word = [0u8; 4];
    mpi.recv_bytes(1, &mut word).context("receiving rank 1's port")?;
    let port = u32::from_le_bytes(word);
    anyhow::ensure!(port != NO_PORT, "rank 1 could not listen on TCP (its own error says why)");
    let port = u16::try_from(port).with_context(|| format!("rank 1 sent {port}, which is no TCP port"))?;
    let host = point.host_of(1).context("the point names no host for rank 1")?;
    let addresses: Vec<SocketAddr> =
        (host, port).to_socket_addrs().with_context(|| format!("resolving rank 1's host {host}"))?.collect();
    let mut last = None;
    let mut stream = None;
    for address in addresses.iter().filter(|a| a.is_ipv4()) {
        match TcpStream::connect_timeout(address, CONNECT_TIMEOUT) {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) => last = Some(format!("{address}: {e}")),
        }
    }
    let stream = stream.with_context(|| {
        format!("connecting to rank 1 at {host}:{port}: {}", last.unwrap_or_else(|| "no IPv4 address".into()))
    })?;
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    // Addresses without ports, so that the processes of one point note the same line once.
    let note = format!(
        "across hosts over TCP (TCP_NODELAY): rank 0 at {} to rank 1 at {}",
        stream.local_addr()?.ip(),
        stream.peer_addr()?.ip()
    );
    Ok((tcp_end(stream)?, note))
}

/// Accepts one connection on `listener`, waiting at most `timeout`.
///
/// Errors: nobody connected in time, or poll or accept failed.
fn accept_within(listener: &TcpListener, timeout: Duration) -> anyhow::Result<TcpStream> {
    let deadline = Instant::now() + timeout;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        anyhow::ensure!(!left.is_zero(), "rank 0 did not connect within {} s", timeout.as_secs());
        let mut fd = libc::pollfd { fd: listener.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        let ms = libc::c_int::try_from(left.as_millis().max(1)).unwrap_or(libc::c_int::MAX);
        // SAFETY: `fd` is one valid pollfd for the call's duration.
        let ready = unsafe { libc::poll(&mut fd, 1, ms) };
        if ready < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e).context("waiting for rank 0 to connect");
        }
        if ready > 0 {
            return Ok(listener.accept().context("accepting rank 0's connection")?.0);
        }
    }
}

/// What rank 1 does, for its error messages.
fn role_name(role: Role) -> &'static str {
    match role {
        Role::Echo => "echo",
        Role::Sink => "sink",
    }
}
