//! smol's own sockets in `msg.ipc` (`crate::socket_round_trips`): async-io's `Async` around a UNIX stream or TCP
//! socket, on the `LocalExecutor` of Souvatzis's rows: a read that would block parks the thread in async-io's
//! reactor (epoll, through the polling crate) until the echo's reply arrives.

use std::io;
use std::os::fd::OwnedFd;

use ::smol::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use ::smol::Async;

use super::local::SmolLocal;
use super::Smol;
use crate::local_runtime::LocalRuntime;
use crate::socket_round_trips::{echo_sockets, ipc_round_trips, Buffers};

type UnixStream = Async<std::os::unix::net::UnixStream>;
type TcpStream = Async<std::net::TcpStream>;

/// One round trip through an async-io socket: the whole message out, the whole echo in.
async fn round_trip<S: AsyncRead + AsyncWrite + Unpin>(socket: &mut S, buffers: &mut Buffers) -> io::Result<()> {
    socket.write_all(&buffers.msg).await?;
    socket.read_exact(&mut buffers.reply).await
}

echo_sockets!(round_trip;
    UnixStream => |socket: OwnedFd| Async::new(std::os::unix::net::UnixStream::from(socket)),
    TcpStream => |socket: OwnedFd| Async::new(std::net::TcpStream::from(socket)),
);

ipc_round_trips!(
    /// On a new `LocalExecutor`, the timed loop a task of it ([`SmolLocal`]).
    Smol, "smol", on: SmolLocal::start()?, unix: UnixStream, tcp: TcpStream
);
