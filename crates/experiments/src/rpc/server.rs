//! The server process of an `rpc` point: forked from the probe, pinned to the point's second CPU, serving one
//! connection and gone before the probe is (docs/ARCHITECTURE.md "The rpc family (Walfield 2008)").
//!
//! Forked rather than started as a new program (`overhead` with a hidden subcommand): the child inherits the
//! listening socket already bound (no address to hand over, no race for a port), the calibrated clock and the
//! eviction size, and runs this build's code with no argument protocol and no second hidden command; the probe
//! reaps it as `msg.ipc` reaps its echo process. That is sound only while the probe has one thread, which it
//! has when an experiment starts (docs/ARCHITECTURE.md "The data flow": one probe process per point), and only
//! before the probe starts a tokio runtime of its own: [`ServerChild::fork`] checks the thread count and
//! refuses otherwise. The child then starts its own current-thread runtime.
//!
//! It stops by itself: it serves one connection and exits when the client closes it; it is killed if the
//! probe dies first (`PR_SET_PDEATHSIG`) and by `SIGALRM` after [`SERVER_LIFETIME`] whatever happens; and a
//! child not reaped by [`ServerChild::finish`] is killed and reaped when its handle is dropped (a point that
//! fails half-way). The client reads the server's tallies over the connection itself (`TakeTally`).

use std::io;
use std::time::Duration;

use anyhow::Context as _;

use super::RpcTransport;
use overhead_clock::Clock;
use overhead_grpc::bare::serve_echo;
use overhead_grpc::evict::Evictor;
use overhead_grpc::service::{serve_one, Handler};
use overhead_grpc::transport::{Address, Listener, SocketDir};

/// The longest a server process lives, whatever its client does: a point's calls take well under a second.
pub const SERVER_LIFETIME: Duration = Duration::from_secs(60);

/// Threads of this process, from `/proc/self/status`; `None` when it cannot be read.
pub(super) fn threads() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find_map(|l| l.strip_prefix("Threads:")).and_then(|n| n.trim().parse().ok())
}

/// A forked server process, watched while it runs so the kernel counts of a measurement hold its side
/// (docs/METHOD.md §18).
#[derive(Debug)]
pub struct ServerChild {
    /// The child, until it is reaped.
    child: Option<overhead_machine::WatchedChild>,
}

impl ServerChild {
    /// Forks a child that pins itself to `cpu`, dies with the probe, lives at most [`SERVER_LIFETIME`], and runs
    /// `body`; `body`'s return is the child's exit status (101 if it panics). In this process `body` is dropped
    /// unrun, and with it whatever it owns (this process's copy of the listener: a server that dies then
    /// leaves no socket open, and the client's next read fails instead of waiting).
    ///
    /// Errors: this process has more than one thread (a fork would copy only the calling one, and the child's
    /// allocator or runtime could wait forever on a lock another thread held), or fork failed.
    pub fn fork(cpu: usize, body: impl FnOnce() -> i32) -> io::Result<ServerChild> {
        if let Some(n) = threads().filter(|&n| n > 1) {
            return Err(io::Error::other(format!(
                "the server process is forked, which needs a single-threaded probe; this one has {n} threads"
            )));
        }
        // SAFETY: getpid has no preconditions.
        let parent = unsafe { libc::getpid() };
        // SAFETY: the process has one thread (checked above), so the child is a complete copy of it and may run
        // any code, its allocator and a tokio runtime included.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if pid == 0 {
            // A refused pinning leaves the server unpinned; the probe's own pinning notes say whether pinning
            // works here.
            let _ = overhead_machine::pin_current_thread(cpu);
            // SAFETY: prctl with PR_SET_PDEATHSIG and a signal number; getppid and alarm have no preconditions.
            // If the probe died before the prctl, the parent is no longer `parent`, and the child leaves.
            unsafe {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                if libc::getppid() != parent {
                    libc::_exit(3);
                }
                libc::alarm(SERVER_LIFETIME.as_secs() as libc::c_uint);
            }
            let code = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
            // SAFETY: _exit ends the child without running the probe's atexit handlers or flushing its stdout,
            // which belongs to the probe's protocol.
            unsafe { libc::_exit(code.unwrap_or(101)) };
        }
        Ok(ServerChild { child: Some(overhead_machine::WatchedChild::watch(pid)) })
    }

    /// Waits for the child to exit (at most [`SERVER_LIFETIME`] from its start) and reaps it.
    ///
    /// Errors: waiting failed, or the child did not exit with status 0 (its exit status or the signal that
    /// ended it is in the message).
    pub fn finish(mut self) -> io::Result<()> {
        let child = self.child.take().ok_or_else(|| io::Error::other("the server process was reaped already"))?;
        let status = child.reap()?;
        if libc::WIFSIGNALED(status) {
            let signal = libc::WTERMSIG(status);
            let why = if signal == libc::SIGALRM { " (its lifetime ran out)" } else { "" };
            return Err(io::Error::other(format!("the server process was killed by signal {signal}{why}")));
        }
        match libc::WEXITSTATUS(status) {
            0 => Ok(()),
            code => Err(io::Error::other(format!("the server process exited with status {code}"))),
        }
    }
}

impl Drop for ServerChild {
    /// Kills and reaps a child that [`ServerChild::finish`] did not reap.
    fn drop(&mut self) {
        if let Some(child) = self.child.take() {
            // SAFETY: `pid` is our own child, not yet reaped, so the pid still names it.
            unsafe { libc::kill(child.pid(), libc::SIGKILL) };
            let _ = child.reap();
        }
    }
}

/// A forked gRPC server ([`Handler`] on one connection) and where it listens.
#[derive(Debug)]
pub struct GrpcServer {
    child: ServerChild,
    address: Address,
    _dir: SocketDir,
}

impl GrpcServer {
    /// Binds a listener of `transport` and forks the server onto `cpu`: a current-thread tokio runtime, the
    /// handler timing with `clock`, and, when `evictor` is given, its buffer (shared with this process,
    /// [`Evictor`]) for `Evict`.
    ///
    /// Errors: binding or forking failed.
    pub fn start(
        transport: RpcTransport,
        cpu: usize,
        clock: Clock,
        evictor: Option<Evictor>,
    ) -> anyhow::Result<GrpcServer> {
        let (listener, dir) = Listener::bind(transport).context("binding the server's socket")?;
        let address = listener.address()?;
        let child = ServerChild::fork(cpu, move || {
            let handler = Handler::new(clock, evictor);
            let served = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .and_then(|rt| rt.block_on(serve_one(listener, handler)));
            match served {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("rpc server: {e}");
                    2
                }
            }
        })
        .context("forking the gRPC server")?;
        Ok(GrpcServer { child, address, _dir: dir })
    }

    /// Where the server listens.
    pub fn address(&self) -> &Address {
        &self.address
    }

    /// Waits for the server to end: close the client's connection first (drop the client and its runtime).
    ///
    /// Errors: the server failed.
    pub fn finish(self) -> anyhow::Result<()> {
        self.child.finish().context("the gRPC server")
    }
}

/// A forked bare echo server ([`serve_echo`]) and where it listens.
#[derive(Debug)]
pub struct EchoServer {
    child: ServerChild,
    address: Address,
    _dir: SocketDir,
}

impl EchoServer {
    /// Binds a listener of `transport` and forks the echo onto `cpu`: requests of `request_len` bytes, replies
    /// of `reply_len`, and `evictor`'s buffer (shared with this process, [`Evictor`]) for evict requests.
    ///
    /// Errors: binding or forking failed.
    pub fn start(
        transport: RpcTransport,
        cpu: usize,
        request_len: usize,
        reply_len: usize,
        evictor: Evictor,
    ) -> anyhow::Result<EchoServer> {
        let (listener, dir) = Listener::bind(transport).context("binding the echo's socket")?;
        let address = listener.address()?;
        let child = ServerChild::fork(cpu, move || {
            match listener.accept().and_then(|mut s| serve_echo(&mut s, request_len, reply_len, Some(&evictor))) {
                Ok(_) => 0,
                Err(e) => {
                    eprintln!("rpc echo: {e}");
                    2
                }
            }
        })
        .context("forking the echo server")?;
        Ok(EchoServer { child, address, _dir: dir })
    }

    /// Where the echo listens.
    pub fn address(&self) -> &Address {
        &self.address
    }

    /// Waits for the echo to end: close the client's stream first.
    ///
    /// Errors: the echo failed.
    pub fn finish(self) -> anyhow::Result<()> {
        self.child.finish().context("the echo server")
    }
}

/// Rank 1 of an `rpc` point across hosts (`placement:other_host`, transport tcp): listens on TCP and tells
/// rank 0 the port through MPI ([`crate::across_hosts::listen_for_rank0`]), then serves the gRPC
/// service on the one connection rank 0 makes, in this process (a rank is not forked: MPI's own threads run in
/// it), on a current-thread runtime, until rank 0 closes the connection. The handler times with
/// `CLOCK_MONOTONIC_RAW` (ticks are ns), since this host's counter may run at another rate than rank 0's; rank
/// 0 converts the server's tallies with that clock. No eviction buffer (`rpc.methods` does not evict). Stops
/// by itself after [`SERVER_LIFETIME`] whatever rank 0 does.
///
/// Errors: listening or the runtime failed, rank 0 did not connect and finish within [`SERVER_LIFETIME`], or
/// the connection failed.
pub fn serve_across_hosts() -> anyhow::Result<()> {
    let (listener, port) = crate::across_hosts::listen_for_rank0()?;
    let handler = Handler::new(Clock::MONOTONIC_RAW, None);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    // The timeout is made inside the runtime: its timer needs the runtime's time driver.
    rt.block_on(async { tokio::time::timeout(SERVER_LIFETIME, serve_one(Listener::Tcp(listener), handler)).await })
        .map_err(|_| anyhow::anyhow!("rank 0 did not finish within {} s", SERVER_LIFETIME.as_secs()))?
        .with_context(|| format!("serving gRPC on TCP port {port}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tests run on many threads, where a fork could copy a held lock: the fork is refused with the reason.
    #[test]
    fn fork_is_refused_in_a_threaded_process() {
        // The other thread lives until the asserts are done, however slow the host.
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let other = std::thread::spawn(move || wait.recv().ok());
        let err = ServerChild::fork(0, || 0).unwrap_err().to_string();
        assert!(err.contains("single-threaded probe"), "{err}");
        assert!(threads().is_some_and(|n| n > 1));
        release.send(()).unwrap();
        other.join().unwrap();
    }
}
