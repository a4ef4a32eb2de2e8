//! Where the server listens and how the client reaches it: a UNIX domain socket in a fresh temporary directory,
//! or TCP on 127.0.0.1 (a port the kernel picks) with `TCP_NODELAY`. Loopback only; no privileges needed.

use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::time::Duration;

use crate::RpcTransport;

/// How long a blocking read of the bare client waits before it gives up on a server that died (a call takes
/// microseconds; the server's whole life is bounded by `overhead_experiments::rpc`'s server lifetime).
const READ_TIMEOUT: Duration = Duration::from_secs(20);

/// A listening socket, bound before the server is forked so that the child inherits it and the client knows
/// where to connect.
#[derive(Debug)]
pub enum Listener {
    /// A UNIX socket.
    Unix {
        /// The bound socket.
        listener: UnixListener,
        /// Its path, inside the directory [`Listener::bind`] returned.
        path: PathBuf,
    },
    /// A TCP socket on 127.0.0.1.
    Tcp(TcpListener),
}

/// Where a [`Listener`] listens: what the client connects to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Address {
    /// The socket's path.
    Unix(PathBuf),
    /// 127.0.0.1 and the port the kernel gave.
    Tcp(SocketAddr),
}

/// The directory that holds a UNIX socket: removed, with the socket, when dropped. Kept by the client's side
/// for as long as the point runs.
pub type SocketDir = Option<tempfile::TempDir>;

impl Listener {
    /// Binds a listener of `transport`: a UNIX socket `rpc.sock` in a new temporary directory (returned, to be
    /// kept until the end of the point), or 127.0.0.1 on port 0.
    ///
    /// Errors: the directory or the socket could not be made.
    pub fn bind(transport: RpcTransport) -> io::Result<(Listener, SocketDir)> {
        match transport {
            RpcTransport::Unix => {
                let dir = tempfile::Builder::new().prefix("overhead-rpc-").tempdir()?;
                let path = dir.path().join("rpc.sock");
                let listener = UnixListener::bind(&path)?;
                Ok((Listener::Unix { listener, path }, Some(dir)))
            }
            RpcTransport::Tcp => Ok((Listener::Tcp(TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?), None)),
        }
    }

    /// Where it listens.
    ///
    /// Errors: the TCP socket's address could not be read.
    pub fn address(&self) -> io::Result<Address> {
        match self {
            Listener::Unix { path, .. } => Ok(Address::Unix(path.clone())),
            Listener::Tcp(l) => Ok(Address::Tcp(l.local_addr()?)),
        }
    }

    /// Waits for one connection (blocking) and returns it, with `TCP_NODELAY` on a TCP one.
    ///
    /// Errors: accept failed.
    pub fn accept(&self) -> io::Result<Stream> {
        match self {
            Listener::Unix { listener, .. } => Ok(Stream::Unix(listener.accept()?.0)),
            Listener::Tcp(l) => {
                let (s, _) = l.accept()?;
                s.set_nodelay(true)?;
                Ok(Stream::Tcp(s))
            }
        }
    }
}

impl Address {
    /// Connects a blocking stream (the bare client): `TCP_NODELAY` on TCP, and a read timeout so that a dead
    /// server fails the point instead of hanging it.
    ///
    /// Errors: connect failed.
    pub fn connect(&self) -> io::Result<Stream> {
        let stream = match self {
            Address::Unix(path) => Stream::Unix(UnixStream::connect(path)?),
            Address::Tcp(addr) => {
                let s = TcpStream::connect(addr)?;
                s.set_nodelay(true)?;
                Stream::Tcp(s)
            }
        };
        match &stream {
            Stream::Unix(s) => s.set_read_timeout(Some(READ_TIMEOUT))?,
            Stream::Tcp(s) => s.set_read_timeout(Some(READ_TIMEOUT))?,
        }
        Ok(stream)
    }
}

/// A connected blocking stream of either transport; reads and writes are plain read(2) and write(2) calls.
#[derive(Debug)]
pub enum Stream {
    /// A UNIX domain stream socket.
    Unix(UnixStream),
    /// A TCP socket with `TCP_NODELAY`.
    Tcp(TcpStream),
}

impl Read for Stream {
    #[inline]
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Unix(s) => s.read(buf),
            Stream::Tcp(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Unix(s) => s.write(buf),
            Stream::Tcp(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
