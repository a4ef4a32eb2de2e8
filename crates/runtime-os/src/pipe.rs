//! Pipes and whole-buffer reads and writes on a descriptor, with raw system calls (usable in a forked
//! child: no allocation, no locking).

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
