//! monoio's own sockets in `msg.ipc` (`crate::socket_round_trips`): `monoio::net`'s UNIX stream and TCP sockets on
//! its io_uring driver: every write and read is a submission to the thread's ring, and a read that cannot
//! complete yet parks the thread in `io_uring_enter` until its completion (the echo's reply) arrives.

use std::io;
use std::os::fd::OwnedFd;

use monoio::io::{AsyncReadRentExt, AsyncWriteRentExt};
use monoio::net::{TcpStream, UnixStream};

use super::local::MonoioLocal;
use super::Monoio;
use crate::local_runtime::LocalRuntime;
use crate::socket_round_trips::{echo_sockets, ipc_round_trips, Buffers};

/// One round trip through `socket` with monoio's owned buffers: each buffer moves into its call and back out,
/// so nothing is allocated.
async fn round_trip<S: AsyncReadRentExt + AsyncWriteRentExt>(socket: &mut S, buffers: &mut Buffers) -> io::Result<()> {
    let (sent, msg) = socket.write_all(std::mem::take(&mut buffers.msg)).await;
    buffers.msg = msg;
    sent?;
    let (read, reply) = socket.read_exact(std::mem::take(&mut buffers.reply)).await;
    buffers.reply = reply;
    read.map(drop)
}

echo_sockets!(round_trip;
    UnixStream => |socket: OwnedFd| UnixStream::from_std(std::os::unix::net::UnixStream::from(socket)),
    TcpStream => |socket: OwnedFd| TcpStream::from_std(std::net::TcpStream::from(socket)),
);

ipc_round_trips!(
    /// On a new io_uring runtime of the calling thread ([`MonoioLocal`]), the timed loop a task of it.
    Monoio, "monoio", on: MonoioLocal::start()?, unix: UnixStream, tcp: TcpStream
);
