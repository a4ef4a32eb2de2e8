//! Round trips with another process through a runtime's own sockets: `msg.ipc`'s rows of an async runtime
//! (docs/METHOD.md §9, "A runtime's own sockets").

use std::os::fd::OwnedFd;

use overhead_harness::{Harness, Measurement};
use overhead_schema::variants::ipc::IpcTransport;

/// The socket transports an async runtime's own socket types carry: a UNIX stream socket and TCP over
/// loopback (the byte streams of `msg.ipc`; a pipe, a datagram socket or a message queue has no socket
/// type in these runtimes).
pub const RUNTIME_SOCKETS: &[IpcTransport] = &[IpcTransport::UnixStream, IpcTransport::Tcp];

/// A runtime's round trips with another process through its own socket type ([`crate::Capability::Ipc`]).
/// `os` has the capability through the kernel's own calls (`msg.ipc` measures them itself) and implements
/// no object for it; an async runtime implements this trait.
pub trait IpcRoundTrips: Sync {
    /// Times round trips of `payload`-byte messages through `socket`, a connected stream socket of
    /// `transport` ([`RUNTIME_SOCKETS`]) whose other end echoes every message (a forked process pinned to
    /// another CPU). The socket joins a new executor of the runtime on the calling thread as the runtime's
    /// own socket type; one round trip is made untimed, then each operation of a batch writes the whole
    /// message and reads the whole echo through it, a batch one entry into the executor, against the same
    /// entry with the empty loop. The timed loop allocates nothing.
    ///
    /// Errors: the runtime did not start; the socket could not join it (another transport, a runtime whose
    /// driver refuses it); a round trip failed (the first error).
    fn socket_round_trips(
        &self,
        socket: OwnedFd,
        transport: IpcTransport,
        payload: usize,
        h: &Harness,
    ) -> anyhow::Result<Measurement>;
}
