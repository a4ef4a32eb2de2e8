//! Two-party points across hosts over TCP (`placement:other_host`): the point runs as two MPI
//! ranks, rank 0 on this machine measuring, rank 1 on the other host serving. MPI only starts the two and
//! carries the server's port from rank 1 to rank 0 (once, before anything is timed); the traffic goes over
//! one TCP connection with `TCP_NODELAY`, the transport under test. `msg.ipc` and `msg.bw` serve the forked
//! peer's echo and sink on it ([`serve_msg_rank`], [`connect_msg_rank`]); `rpc.methods` serves its gRPC
//! service ([`listen_for_rank0`], [`rank1_address`]).
//!
//! Rank 1 stops by itself: it waits at most [`ACCEPT_TIMEOUT`] for the connection, each read of the echo
//! and the sink waits at most [`READ_TIMEOUT`] (the gRPC server's whole life is bounded by its caller), and
//! it returns when rank 0 closes the connection.

use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use anyhow::Context as _;

use crate::Point;
use overhead_runtime_external::mpi::shim::shim;
use overhead_runtime_os::ipc::{serve, tcp_end, Role, StreamEnd};

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

/// Rank 1 of a `msg.ipc`/`msg.bw` point: listens and tells rank 0 where ([`listen_for_rank0`]), accepts one
/// connection within [`ACCEPT_TIMEOUT`] and plays `role` on it (the forked peer's echo or sink, [`serve`])
/// with `payload`-byte messages until rank 0 closes it.
///
/// Errors: MPI could not be reached, the socket could not be bound or accepted in time, or the connection
/// failed (a read that waited [`READ_TIMEOUT`], a message cut short).
pub fn serve_msg_rank(role: Role, payload: usize) -> anyhow::Result<()> {
    let (listener, port) = listen_for_rank0()?;
    let stream = accept_within(&listener, ACCEPT_TIMEOUT)?;
    drop(listener);
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    let mut buf = vec![0u8; payload.max(8)];
    serve(role, tcp_end(stream)?, &mut buf[..payload])
        .with_context(|| format!("serving rank 0 on port {port} ({})", role_name(role)))
}

/// Rank 1: listens on an ephemeral TCP port of every IPv4 address of its host and sends the port to rank 0
/// (4 bytes, little endian, through MPI; 0 when it could not listen, so that rank 0 fails at once). Returns
/// the listener and its port.
///
/// Errors: MPI could not be reached, the socket could not be bound, or the send failed.
pub fn listen_for_rank0() -> anyhow::Result<(TcpListener, u16)> {
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
    Ok((listener, port))
}

/// Rank 0: receives rank 1's port through MPI ([`listen_for_rank0`]) and resolves `point`'s host of rank 1;
/// returns its IPv4 addresses with that port, in the resolver's order (an address, or a name that resolves).
///
/// Errors: MPI could not be reached, rank 1 could not listen, the point names no host for rank 1, or the
/// name has no IPv4 address.
pub fn rank1_addresses(point: &Point<'_>) -> anyhow::Result<Vec<SocketAddr>> {
    let mpi = shim().map_err(anyhow::Error::msg)?;
    let mut word = [0u8; 4];
    mpi.recv_bytes(1, &mut word).context("receiving rank 1's port")?;
    let port = u32::from_le_bytes(word);
    anyhow::ensure!(port != NO_PORT, "rank 1 could not listen on TCP (its own error says why)");
    let port = u16::try_from(port).with_context(|| format!("rank 1 sent {port}, which is no TCP port"))?;
    let host = point.host_of(1).context("the point names no host for rank 1")?;
    let addresses: Vec<SocketAddr> = (host, port)
        .to_socket_addrs()
        .with_context(|| format!("resolving rank 1's host {host}"))?
        .filter(SocketAddr::is_ipv4)
        .collect();
    anyhow::ensure!(!addresses.is_empty(), "rank 1's host {host} has no IPv4 address");
    Ok(addresses)
}

/// Rank 0: connects to rank 1 ([`rank1_addresses`], each address tried for 10 s) with `TCP_NODELAY` and a
/// read timeout of [`READ_TIMEOUT`]. Returns the stream and a note for the record naming both ends'
/// addresses.
///
/// Errors: as [`rank1_addresses`], or no address accepted the connection.
pub fn connect_rank1(point: &Point<'_>) -> anyhow::Result<(TcpStream, String)> {
    let addresses = rank1_addresses(point)?;
    let mut last = None;
    let mut stream = None;
    for address in &addresses {
        match TcpStream::connect_timeout(address, CONNECT_TIMEOUT) {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) => last = Some(format!("{address}: {e}")),
        }
    }
    let stream = stream.with_context(|| format!("connecting to rank 1: {}", last.unwrap_or_default()))?;
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    // Addresses without ports, so that the processes of one point note the same line once.
    let note = format!(
        "across hosts over TCP (TCP_NODELAY): rank 0 at {} to rank 1 at {}",
        stream.local_addr()?.ip(),
        stream.peer_addr()?.ip()
    );
    Ok((stream, note))
}

/// Rank 0 of a `msg.ipc`/`msg.bw` point: [`connect_rank1`] as a channel end to measure through, with the
/// note.
///
/// Errors: as [`connect_rank1`].
pub fn connect_msg_rank(point: &Point<'_>) -> anyhow::Result<(StreamEnd, String)> {
    let (stream, note) = connect_rank1(point)?;
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
