//! smol's own sockets in `msg.ipc` (`crate::socket_round_trips`): async-io's `Async` around a UNIX stream or TCP
//! socket, on the `LocalExecutor` of Souvatzis's rows: a read that would block parks the thread in async-io's
//! reactor (epoll, through the polling crate) until the echo's reply arrives.

use std::io;
use std::os::fd::OwnedFd;

use ::smol::io::{AsyncReadExt, AsyncWriteExt};
use ::smol::Async;

use super::local::SmolLocal;
use super::Smol;
use crate::local_runtime::LocalRuntime;
use crate::socket_round_trips::{measure, Buffers, EchoSocket};
use overhead_harness::{Harness, Measurement};
use overhead_runtime_api::ipc::IpcRoundTrips;
use overhead_runtime_api::offer::not_offered;
use overhead_schema::variants::ipc::IpcTransport;

impl EchoSocket for Async<std::os::unix::net::UnixStream> {
    fn join(socket: OwnedFd) -> io::Result<Self> {
        Async::new(std::os::unix::net::UnixStream::from(socket))
    }
    async fn round_trip(&mut self, buffers: &mut Buffers) -> io::Result<()> {
        self.write_all(&buffers.msg).await?;
        self.read_exact(&mut buffers.reply).await
    }
}

impl EchoSocket for Async<std::net::TcpStream> {
    fn join(socket: OwnedFd) -> io::Result<Self> {
        Async::new(std::net::TcpStream::from(socket))
    }
    async fn round_trip(&mut self, buffers: &mut Buffers) -> io::Result<()> {
        self.write_all(&buffers.msg).await?;
        self.read_exact(&mut buffers.reply).await
    }
}

impl IpcRoundTrips for Smol {
    /// On a new `LocalExecutor`, the timed loop a task of it ([`SmolLocal`]).
    fn socket_round_trips(
        &self,
        socket: OwnedFd,
        transport: IpcTransport,
        payload: usize,
        h: &Harness,
    ) -> anyhow::Result<Measurement> {
        let on = SmolLocal::start()?;
        match transport {
            IpcTransport::UnixStream => measure::<_, Async<std::os::unix::net::UnixStream>>(&on, socket, payload, h),
            IpcTransport::Tcp => measure::<_, Async<std::net::TcpStream>>(&on, socket, payload, h),
            other => Err(not_offered("smol", "transport", other)),
        }
    }
}
