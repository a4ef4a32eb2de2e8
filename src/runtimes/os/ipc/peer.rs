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

/// The parent's side of a channel to a forked child pinned to its own CPU.
pub struct Peer<E: End> {
    pid: libc::pid_t,
    end: Option<E>,
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
        // SAFETY: the child uses only `child`, `buf` (allocated above) and async-signal-safe calls, then
        // `_exit`s; it never returns into the parent's code.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if pid == 0 {
            std::mem::forget(parent);
            close_all_but(child.fds());
            let _ = crate::machine::pin_current_thread(cpu);
            let code = match role {
                Role::Echo => echo(child, &mut buf[..size]),
                Role::Sink => sink(child, &mut buf[..size]),
            };
            // SAFETY: ends the child without running the parent's atexit handlers or destructors.
            unsafe { libc::_exit(code) };
        }
        drop(child);
        drop(buf);
        Ok(Peer { pid, end: Some(parent) })
    }

    /// The parent's end, to send and receive through.
    #[inline]
    pub fn end(&mut self) -> &mut E {
        self.end.as_mut().expect("the end is open until wait")
    }

    /// One round trip with an [`Role::Echo`] child: sends `msg`, receives the echo into `reply`.
    ///
    /// Errors: a send or receive failed, or the child ended the channel.
    #[inline]
    pub fn round_trip(&mut self, msg: &[u8], reply: &mut [u8]) -> io::Result<()> {
        let end = self.end();
        end.send(msg)?;
        if end.recv(reply)? {
            Ok(())
        } else {
            Err(io::ErrorKind::UnexpectedEof.into())
        }
    }

    /// One batch with a [`Role::Sink`] child: `count` messages of `msg`, then waits for the child's
    /// acknowledgement (read into `ack`, which must be 8 bytes).
    ///
    /// Errors: as [`Peer::round_trip`].
    #[inline]
    pub fn stream(&mut self, msg: &[u8], count: u64, ack: &mut [u8]) -> io::Result<()> {
        let end = self.end();
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

    /// Ends the channel and reaps the child; returns its exit status (0 on a clean end).
    ///
    /// Errors: waitpid failed.
    pub fn wait(mut self) -> io::Result<i32> {
        if let Some(mut end) = self.end.take() {
            end.finish();
        }
        let mut status = 0;
        // SAFETY: `pid` is our own unreaped child; `status` is a valid int.
        if unsafe { libc::waitpid(self.pid, &mut status, 0) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(libc::WEXITSTATUS(status))
    }
}

impl<E: End> Drop for Peer<E> {
    /// A peer dropped without [`Peer::wait`] (an error on the way) is ended and reaped all the same.
    fn drop(&mut self) {
        if let Some(mut end) = self.end.take() {
            end.finish();
            drop(end);
            let mut status = 0;
            // SAFETY: as in `wait`.
            unsafe { libc::waitpid(self.pid, &mut status, 0) };
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

/// The echo loop: 0 when the parent ended the channel, 1 on an error.
fn echo<E: End>(mut end: E, buf: &mut [u8]) -> i32 {
    loop {
        match end.recv(buf) {
            Ok(true) => {
                if end.send(buf).is_err() {
                    return 1;
                }
            }
            Ok(false) => return 0,
            Err(_) => return 1,
        }
    }
}

/// The sink loop: count, messages, acknowledgement; 0 when the parent ended the channel.
fn sink<E: End>(mut end: E, buf: &mut [u8]) -> i32 {
    let mut count = [0u8; 8];
    loop {
        match end.recv(&mut count) {
            Ok(true) => {}
            Ok(false) => return 0,
            Err(_) => return 1,
        }
        for _ in 0..u64::from_le_bytes(count) {
            if !matches!(end.recv(buf), Ok(true)) {
                return 1;
            }
        }
        if end.send(&count).is_err() {
            return 1;
        }
    }
}
