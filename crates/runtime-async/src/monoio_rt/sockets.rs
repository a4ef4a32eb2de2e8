//! monoio's own sockets in `msg.ipc` (`crate::socket_round_trips`): `monoio::net`'s UNIX stream and TCP sockets on
//! its io_uring driver: every write and read is a submission to the thread's ring, and a read that cannot
//! complete yet parks the thread in `io_uring_enter` until its completion (the echo's reply) arrives.

use std::io;
use std::os::fd::OwnedFd;

use monoio::io::{AsyncReadRentExt, AsyncWriteRentExt};

use super::local::MonoioLocal;
use super::Monoio;
use crate::local_runtime::LocalRuntime;
use crate::socket_round_trips::{measure, Buffers, EchoSocket};
use overhead_harness::{Harness, Measurement};
use overhead_runtime_api::ipc::IpcRoundTrips;
use overhead_runtime_api::offer::not_offered;
use overhead_schema::variants::ipc::IpcTransport;

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

impl EchoSocket for monoio::net::UnixStream {
    fn join(socket: OwnedFd) -> io::Result<Self> {
        monoio::net::UnixStream::from_std(std::os::unix::net::UnixStream::from(socket))
    }
    async fn round_trip(&mut self, buffers: &mut Buffers) -> io::Result<()> {
        round_trip(self, buffers).await
    }
}

impl EchoSocket for monoio::net::TcpStream {
    fn join(socket: OwnedFd) -> io::Result<Self> {
        monoio::net::TcpStream::from_std(std::net::TcpStream::from(socket))
    }
    async fn round_trip(&mut self, buffers: &mut Buffers) -> io::Result<()> {
        round_trip(self, buffers).await
    }
}

impl IpcRoundTrips for Monoio {
    /// On a new io_uring runtime of the calling thread ([`MonoioLocal`]), the timed loop a task of it.
    fn socket_round_trips(
        &self,
        socket: OwnedFd,
        transport: IpcTransport,
        payload: usize,
        h: &Harness,
    ) -> anyhow::Result<Measurement> {
        let on = MonoioLocal::start()?;
        match transport {
            IpcTransport::UnixStream => measure::<_, monoio::net::UnixStream>(&on, socket, payload, h),
            IpcTransport::Tcp => measure::<_, monoio::net::TcpStream>(&on, socket, payload, h),
            other => Err(not_offered("monoio", "transport", other)),
        }
    }
}
