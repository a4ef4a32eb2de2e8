//! tokio's own sockets in `msg.ipc` (`crate::socket_round_trips`): `tokio::net`'s UNIX stream and TCP sockets on
//! a current-thread runtime with its I/O driver (mio over epoll): a read that would block parks the thread in
//! `epoll_wait` until the echo's reply arrives.

use std::io;
use std::os::fd::OwnedFd;

use ::tokio::io::{AsyncReadExt, AsyncWriteExt};
use anyhow::Context as _;

use super::Tokio;
use crate::socket_round_trips::{measure, Buffers, EchoSocket};
use overhead_harness::{Harness, Measurement};
use overhead_runtime_api::ipc::IpcRoundTrips;
use overhead_runtime_api::offer::not_offered;
use overhead_schema::variants::ipc::IpcTransport;

impl EchoSocket for ::tokio::net::UnixStream {
    fn join(socket: OwnedFd) -> io::Result<Self> {
        let socket = std::os::unix::net::UnixStream::from(socket);
        socket.set_nonblocking(true)?;
        ::tokio::net::UnixStream::from_std(socket)
    }
    async fn round_trip(&mut self, buffers: &mut Buffers) -> io::Result<()> {
        self.write_all(&buffers.msg).await?;
        self.read_exact(&mut buffers.reply).await.map(drop)
    }
}

impl EchoSocket for ::tokio::net::TcpStream {
    fn join(socket: OwnedFd) -> io::Result<Self> {
        let socket = std::net::TcpStream::from(socket);
        socket.set_nonblocking(true)?;
        ::tokio::net::TcpStream::from_std(socket)
    }
    async fn round_trip(&mut self, buffers: &mut Buffers) -> io::Result<()> {
        self.write_all(&buffers.msg).await?;
        self.read_exact(&mut buffers.reply).await.map(drop)
    }
}

impl IpcRoundTrips for Tokio {
    /// On a new current-thread runtime with its I/O driver, each batch one `block_on`.
    fn socket_round_trips(
        &self,
        socket: OwnedFd,
        transport: IpcTransport,
        payload: usize,
        h: &Harness,
    ) -> anyhow::Result<Measurement> {
        let rt = ::tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()
            .context("starting tokio's current-thread runtime with its I/O driver")?;
        match transport {
            IpcTransport::UnixStream => measure::<_, ::tokio::net::UnixStream>(&rt, socket, payload, h),
            IpcTransport::Tcp => measure::<_, ::tokio::net::TcpStream>(&rt, socket, payload, h),
            other => Err(not_offered("tokio", "transport", other)),
        }
    }
}
