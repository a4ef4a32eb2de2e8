//! Pipes and a forked echo process for IPC round trips (lmbench's `lat_pipe`).

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// A pipe: `(read end, write end)`, close-on-exec.
pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` is a valid array of two ints for pipe2 to fill.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: pipe2 succeeded, so both descriptors are open and owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Writes all of `buf` with raw write(2) (no allocation, no locking: usable in a forked child).
#[inline]
pub fn write_all(fd: &impl AsRawFd, buf: &[u8]) -> io::Result<()> {
    let mut done = 0;
    while done < buf.len() {
        // SAFETY: the pointer and length describe the unwritten tail of `buf`.
        let n = unsafe { libc::write(fd.as_raw_fd(), buf[done..].as_ptr().cast(), buf.len() - done) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        done += n as usize;
    }
    Ok(())
}

/// Reads exactly `buf.len()` bytes; `Ok(false)` on end of file before any byte.
#[inline]
pub fn read_exact(fd: &impl AsRawFd, buf: &mut [u8]) -> io::Result<bool> {
    let mut done = 0;
    while done < buf.len() {
        // SAFETY: the pointer and length describe the unfilled tail of `buf`.
        let n = unsafe { libc::read(fd.as_raw_fd(), buf[done..].as_mut_ptr().cast(), buf.len() - done) };
        match n {
            0 if done == 0 => return Ok(false),
            0 => return Err(io::ErrorKind::UnexpectedEof.into()),
            n if n < 0 => {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
            n => done += n as usize,
        }
    }
    Ok(true)
}

/// A child process that echoes fixed-size messages from one pipe to another until end of file.
pub struct EchoChild {
    pid: libc::pid_t,
    to_child: Option<OwnedFd>,
    from_child: OwnedFd,
}

impl EchoChild {
    /// Forks the echo child, pinned to `cpu`, echoing messages of `size` bytes (at most 4096).
    ///
    /// Call only while the process has a single thread: the child runs nothing but system calls.
    /// Errors: pipe or fork failure.
    pub fn spawn(cpu: usize, size: usize) -> io::Result<EchoChild> {
        assert!(size <= 4096, "echo messages are at most one page");
        let (child_read, parent_write) = pipe()?;
        let (parent_read, child_write) = pipe()?;
        // SAFETY: fork in a single-threaded process; the child only pins itself, reads, writes and exits.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if pid == 0 {
            drop(parent_write);
            drop(parent_read);
            let _ = crate::machine::pin_current_thread(cpu);
            let mut buf = [0u8; 4096];
            let code = loop {
                match read_exact(&child_read, &mut buf[..size]) {
                    Ok(true) => {
                        if write_all(&child_write, &buf[..size]).is_err() {
                            break 1;
                        }
                    }
                    Ok(false) => break 0,
                    Err(_) => break 1,
                }
            };
            // SAFETY: _exit ends the child without running the parent's atexit handlers or destructors.
            unsafe { libc::_exit(code) };
        }
        Ok(EchoChild { pid, to_child: Some(parent_write), from_child: parent_read })
    }

    /// One round trip: send `msg`, read the echo into `reply` (same length).
    #[inline]
    pub fn round_trip(&self, msg: &[u8], reply: &mut [u8]) -> io::Result<()> {
        let to_child = self.to_child.as_ref().expect("the child's pipe is open until wait");
        write_all(to_child, msg)?;
        if read_exact(&self.from_child, reply)? {
            Ok(())
        } else {
            Err(io::ErrorKind::UnexpectedEof.into())
        }
    }

    /// Closes the child's input and reaps it; returns its exit status (0 on a clean end).
    pub fn wait(mut self) -> io::Result<i32> {
        self.to_child = None;
        let mut status = 0;
        // SAFETY: `pid` is our own unreaped child; `status` is a valid int.
        if unsafe { libc::waitpid(self.pid, &mut status, 0) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(libc::WEXITSTATUS(status))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echo_child_returns_what_it_was_sent() {
        let child = EchoChild::spawn(crate::machine::allowed_cpus()[0], 8).unwrap();
        let mut reply = [0u8; 8];
        for i in 0..100u64 {
            child.round_trip(&i.to_le_bytes(), &mut reply).unwrap();
            assert_eq!(u64::from_le_bytes(reply), i);
        }
        assert_eq!(child.wait().unwrap(), 0);
    }
}
