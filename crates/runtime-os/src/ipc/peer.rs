//! The forked peer process at the other end of a channel: an echo for round trips (`msg.ipc`) or a sink
//! that drains streamed messages and acknowledges each batch (`msg.bw`).

use std::io;

use super::End;

/// What the forked child does with the messages it receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Sends every message straight back (lmbench `lat_*`).
    Echo,
    /// Reads an 8-byte count, then that many messages, then sends one 8-byte acknowledgement (lmbench
    /// `bw_*`, OSU `osu_bw`: many messages in flight, one answer per batch).
    Sink,
}

impl Role {
    /// The peer's name in errors: `echo`, `sink`.
    pub fn name(self) -> &'static str {
        match self {
            Role::Echo => "echo",
            Role::Sink => "sink",
        }
    }
}

/// The parent's side of a channel to a forked child pinned to its own CPU. The child is watched while it runs,
/// so the kernel counts of a measurement hold its side (docs/METHOD.md §18).
pub struct Peer<E: End> {
    end: Option<E>,
    /// The child, until it is reaped.
    child: Option<overhead_machine::WatchedChild>,
}

impl<E: End> Peer<E> {
    /// Forks the child, pinned to `cpu`, playing `role` on `child` for messages of `size` bytes; the
    /// parent keeps `parent`. The child's buffer is allocated before the fork, so the child only makes
    /// system calls and copies (safe after fork in a multi-threaded process); it exits with 0 when the
    /// parent ends the channel, 1 on an error.
    ///
    /// Errors: fork failed.
    pub fn spawn(parent: E, child: E, cpu: usize, size: usize, role: Role) -> io::Result<Peer<E>> {
        let mut buf = vec![0u8; size.max(8)];
        // Built before the fork: the child only sets it (a refused mask leaves the child where it is).
        let mask = overhead_machine::cpu_mask(&[cpu]);
        // SAFETY: the child uses only `child`, `buf` and `mask` (allocated above) and async-signal-safe calls, then
        // `_exit`s; it never returns into the parent's code.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if pid == 0 {
            std::mem::forget(parent);
            close_all_but(child.fds());
            if let Ok(mask) = &mask {
                let _ = overhead_machine::set_affinity_mask(mask);
            }
            let code = match serve(role, child, &mut buf[..size]) {
                Ok(()) => 0,
                Err(_) => 1,
            };
            // SAFETY: ends the child without running the parent's atexit handlers or destructors.
            unsafe { libc::_exit(code) };
        }
        drop(child);
        drop(buf);
        Ok(Peer { end: Some(parent), child: Some(overhead_machine::WatchedChild::watch(pid)) })
    }

    /// Forks a `role` peer pinned to `cpu` ([`Peer::spawn`]), runs `measure` on the parent's end, then ends the
    /// channel and reaps the peer, whatever `measure` returned: the one shape of every measurement against a
    /// forked peer (`msg.ipc`'s round trips, `msg.bw`'s streams).
    ///
    /// Errors: the fork or the reaping failed; `measure` failed; the peer exited with a non-zero status.
    pub fn measure_against<T>(
        parent: E,
        child: E,
        cpu: usize,
        size: usize,
        role: Role,
        measure: impl FnOnce(&mut E) -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        use anyhow::Context as _;
        let name = role.name();
        let mut peer =
            Peer::spawn(parent, child, cpu, size, role).with_context(|| format!("forking the {name} process"))?;
        let measured = measure(peer.end());
        let status = peer.wait().with_context(|| format!("reaping the {name} process"))?;
        let measured = measured?;
        anyhow::ensure!(status == 0, "the {name} process exited with status {status}");
        Ok(measured)
    }

    /// The parent's end, to send and receive through.
    #[inline]
    pub fn end(&mut self) -> &mut E {
        self.end.as_mut().expect("the end is open until wait")
    }

    /// One round trip with an [`Role::Echo`] child: sends `msg`, receives the echo into `reply`
    /// ([`round_trip`] on the parent's end).
    ///
    /// Errors: a send or receive failed, or the child ended the channel.
    #[inline]
    pub fn round_trip(&mut self, msg: &[u8], reply: &mut [u8]) -> io::Result<()> {
        round_trip(self.end(), msg, reply)
    }

    /// One batch with a [`Role::Sink`] child: `count` messages of `msg`, then waits for the child's
    /// acknowledgement (read into `ack`, which must be 8 bytes; [`stream`] on the parent's end).
    ///
    /// Errors: as [`Peer::round_trip`].
    #[inline]
    pub fn stream(&mut self, msg: &[u8], count: u64, ack: &mut [u8]) -> io::Result<()> {
        stream(self.end(), msg, count, ack)
    }

    /// Ends the channel and reaps the child; returns its exit status (0 on a clean end).
    ///
    /// Errors: waitpid failed.
    pub fn wait(mut self) -> io::Result<i32> {
        if let Some(mut end) = self.end.take() {
            end.finish();
        }
        let child = self.child.take().ok_or_else(|| io::Error::other("the peer was reaped already"))?;
        Ok(libc::WEXITSTATUS(child.reap()?))
    }
}

impl<E: End> Drop for Peer<E> {
    /// A peer dropped without [`Peer::wait`] (an error on the way) is ended and reaped all the same.
    fn drop(&mut self) {
        if let Some(mut end) = self.end.take() {
            end.finish();
            drop(end);
            if let Some(child) = self.child.take() {
                let _ = child.reap();
            }
        }
    }
}

/// Closes every descriptor from 3 up except `keep`: a child forked while another thread of the parent
/// holds a channel of its own would otherwise keep that channel's write end open, and its reader would
/// never see the end of file it waits for. Uses `close_range` (Linux 5.9), and does nothing where it is
/// missing (the probe forks from a single thread).
fn close_all_but(keep: [std::os::fd::RawFd; 2]) {
    let mut keep = keep.map(|fd| libc::c_uint::try_from(fd).ok());
    keep.sort_unstable();
    let mut from: libc::c_uint = 3;
    for fd in keep.into_iter().flatten() {
        if fd >= from {
            if fd > from {
                close_range(from, fd - 1);
            }
            from = fd + 1;
        }
    }
    close_range(from, libc::c_uint::MAX);
}

/// `close_range(first, last)`, ignoring errors.
fn close_range(first: libc::c_uint, last: libc::c_uint) {
    if first <= last {
        // SAFETY: closes descriptors of this (forked, about to exit) process only; none of them is used
        // again except those kept outside the range.
        unsafe { libc::syscall(libc::SYS_close_range, first, last, 0) };
    }
}

/// One round trip with whatever plays [`Role::Echo`] at the other end of `end` (a forked [`Peer`], or a
/// server on another host): sends `msg`, receives the echo into `reply` (as long as `msg`). No allocation.
///
/// Errors: a send or receive failed, or the other end ended the channel (`UnexpectedEof`).
#[inline]
pub fn round_trip<E: End>(end: &mut E, msg: &[u8], reply: &mut [u8]) -> io::Result<()> {
    end.send(msg)?;
    if end.recv(reply)? {
        Ok(())
    } else {
        Err(io::ErrorKind::UnexpectedEof.into())
    }
}

/// One batch with whatever plays [`Role::Sink`] at the other end of `end`: the count (8 bytes, little
/// endian), `count` messages of `msg`, then the sink's 8-byte acknowledgement read into `ack`. No
/// allocation.
///
/// Errors: as [`round_trip`].
#[inline]
pub fn stream<E: End>(end: &mut E, msg: &[u8], count: u64, ack: &mut [u8]) -> io::Result<()> {
    end.send(&count.to_le_bytes())?;
    for _ in 0..count {
        end.send(msg)?;
    }
    if end.recv(ack)? {
        Ok(())
    } else {
        Err(io::ErrorKind::UnexpectedEof.into())
    }
}

/// The far side of a channel: plays `role` on `end` with messages of `buf.len()` bytes until the other
/// side ends the channel (`Ok`). The forked [`Peer`] runs it, and so does a server on another host over a
/// TCP connection (`msg.ipc`/`msg.bw` with `placement:other_host`). Makes system calls and copies only
/// (no allocation), so a forked child may run it.
///
/// Errors: a send or receive failed (a read timeout set on the socket shows here), a message ended
/// half-way, or a sink's count was not followed by that many messages.
pub fn serve<E: End>(role: Role, mut end: E, buf: &mut [u8]) -> io::Result<()> {
    match role {
        Role::Echo => echo(&mut end, buf),
        Role::Sink => sink(&mut end, buf),
    }
}

/// The echo loop: every message straight back; `Ok` when the other side ended the channel.
fn echo<E: End>(end: &mut E, buf: &mut [u8]) -> io::Result<()> {
    while end.recv(buf)? {
        end.send(buf)?;
    }
    Ok(())
}

/// The sink loop: count, messages, acknowledgement; `Ok` when the other side ended the channel.
fn sink<E: End>(end: &mut E, buf: &mut [u8]) -> io::Result<()> {
    let mut count = [0u8; 8];
    while end.recv(&mut count)? {
        for _ in 0..u64::from_le_bytes(count) {
            if !end.recv(buf)? {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the channel ended inside a batch"));
            }
        }
        end.send(&count)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::net::{TcpListener, TcpStream};
    use std::time::Duration;

    use super::*;
    use crate::ipc::tcp_end;

    /// A loopback TCP connection: the client's end, and a thread serving `role` on the accepted one with
    /// `size`-byte messages and `read_timeout`.
    fn served(
        role: Role,
        size: usize,
        read_timeout: Duration,
    ) -> (super::super::StreamEnd, std::thread::JoinHandle<io::Result<()>>) {
        let listener = TcpListener::bind(("127.0.0.1", 0)).unwrap();
        let address = listener.local_addr().unwrap();
        let server = std::thread::spawn(move || {
            let (socket, _) = listener.accept()?;
            socket.set_nodelay(true)?;
            socket.set_read_timeout(Some(read_timeout))?;
            let mut buf = vec![0u8; size];
            serve(role, tcp_end(socket)?, &mut buf)
        });
        let client = TcpStream::connect(address).unwrap();
        client.set_nodelay(true).unwrap();
        (tcp_end(client).unwrap(), server)
    }

    /// A forked echo peer is watched while it runs: 200 round trips count at least 100 switches on the
    /// children's side (its blocking reads, about one a round trip), with their CPU time, before the peer is
    /// reaped. (Other tests of
    /// this binary may fork meanwhile: lower bounds only.)
    #[test]
    fn a_forked_peers_switches_count_on_the_childrens_side() {
        let Ok(mut counters) = overhead_machine::ThreadCounters::open() else { return };
        let (parent, child) = super::super::stream::pipes().unwrap();
        let cpu = overhead_machine::allowed_cpus().first().copied().unwrap_or(0);
        let mut peer = Peer::spawn(parent, child, cpu, 8, Role::Echo).unwrap();
        let (msg, mut reply) = ([7u8; 8], [0u8; 8]);
        peer.round_trip(&msg, &mut reply).unwrap();
        let before = counters.read().unwrap();
        for _ in 0..200 {
            peer.round_trip(&msg, &mut reply).unwrap();
        }
        let counted = counters.read().unwrap().since(before);
        assert_eq!(peer.wait().unwrap(), 0);
        use overhead_machine::CounterKind;
        // The echo blocks in nearly every round trip; one whose next message arrives before it reads again
        // (a preempted vCPU) counts none. Unwatched, the peer would count nothing until its reaping.
        let switches = counted.of(CounterKind::ChildSwitches).expect("counted");
        assert!(switches >= 100, "{switches} switches of the echo peer in 200 round trips");
        assert!(counted.of(CounterKind::ChildCpuNs).is_some_and(|ns| ns > 0), "{counted:?}");
    }

    /// The echo and the sink that a host serves across hosts are the forked peer's loops, generic over the
    /// end: over a TCP connection the echo returns every byte (65536-byte messages arrive in pieces), the
    /// sink answers each batch with its count, and both end cleanly when the client closes.
    #[test]
    fn echo_and_sink_serve_a_tcp_connection_until_it_closes() {
        let (mut end, server) = served(Role::Echo, 65536, Duration::from_secs(20));
        for round in 0..3u8 {
            let msg: Vec<u8> = (0..65536u32).map(|i| (i as u8).wrapping_mul(7).wrapping_add(round)).collect();
            let mut reply = vec![0u8; msg.len()];
            round_trip(&mut end, &msg, &mut reply).unwrap();
            assert!(reply == msg, "round {round}: the echo differs");
        }
        drop(end);
        server.join().unwrap().unwrap();

        let (mut end, server) = served(Role::Sink, 4096, Duration::from_secs(20));
        let msg = vec![3u8; 4096];
        for count in [1u64, 0, 9, 100] {
            let mut ack = [0u8; 8];
            stream(&mut end, &msg, count, &mut ack).unwrap();
            assert_eq!(u64::from_le_bytes(ack), count);
        }
        drop(end);
        server.join().unwrap().unwrap();
    }

    /// A client that stays connected but stops sending does not keep the server forever: its read timeout
    /// ends it with an error. A client that vanishes inside a batch is an error too, not a clean end.
    #[test]
    fn a_silent_or_vanished_client_ends_the_server_with_an_error() {
        let (end, server) = served(Role::Echo, 8, Duration::from_millis(200));
        let err = server.join().unwrap().unwrap_err();
        assert!(matches!(err.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut), "{err}");
        drop(end);

        let (mut end, server) = served(Role::Sink, 8, Duration::from_secs(20));
        end.send(&5u64.to_le_bytes()).unwrap();
        end.send(&[1u8; 8]).unwrap();
        drop(end);
        assert_eq!(server.join().unwrap().unwrap_err().kind(), io::ErrorKind::UnexpectedEof);
    }
}
