//! tokio's own sockets in `msg.ipc` (`crate::socket_round_trips`): `tokio::net`'s UNIX stream and TCP sockets on
//! a current-thread runtime with its I/O driver (mio over epoll): a read that would block parks the thread in
//! `epoll_wait` until the echo's reply arrives.

use std::io;
use std::os::fd::OwnedFd;

use ::tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use ::tokio::net::{TcpStream, UnixStream};
use anyhow::Context as _;

use super::TokioCurrentThread;
use crate::socket_round_trips::{echo_sockets, ipc_round_trips, Buffers};

/// One round trip through a tokio socket: the whole message out, the whole echo in.
async fn round_trip<S: AsyncRead + AsyncWrite + Unpin>(socket: &mut S, buffers: &mut Buffers) -> io::Result<()> {
    socket.write_all(&buffers.msg).await?;
    socket.read_exact(&mut buffers.reply).await.map(drop)
}

echo_sockets!(round_trip;
    UnixStream => |socket: OwnedFd| -> io::Result<UnixStream> {
        let socket = std::os::unix::net::UnixStream::from(socket);
        socket.set_nonblocking(true)?;
        UnixStream::from_std(socket)
    },
    TcpStream => |socket: OwnedFd| -> io::Result<TcpStream> {
        let socket = std::net::TcpStream::from(socket);
        socket.set_nonblocking(true)?;
        TcpStream::from_std(socket)
    },
);

ipc_round_trips!(
    /// On a new current-thread runtime with its I/O driver, each batch one `block_on`.
    TokioCurrentThread, "tokio",
    on: ::tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .context("starting tokio's current-thread runtime with its I/O driver")?,
    unix: UnixStream,
    tcp: TcpStream
);
