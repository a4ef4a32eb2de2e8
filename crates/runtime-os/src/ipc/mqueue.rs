//! POSIX message queues, one each way: one message per `mq_send`, bounded by `fs.mqueue.msgsize_max`.
//! The queues are unlinked as soon as both ends are open, so nothing is left behind if a process dies.

use std::ffi::CString;
use std::io;
use std::sync::atomic::{AtomicU32, Ordering};

use super::End;

/// One end: the queue it receives from and the one it sends to.
pub struct MqEnd {
    rx: libc::mqd_t,
    tx: libc::mqd_t,
    /// Whether this end closes the descriptors on drop (the parent's copy of the child's end does not
    /// own them separately: both ends hold the same two descriptors).
    owner: bool,
}

impl End for MqEnd {
    #[inline]
    fn send(&mut self, buf: &[u8]) -> io::Result<()> {
        // SAFETY: the pointer and length describe `buf`; `tx` is an open queue descriptor.
        super::retrying_interrupted(|| unsafe { libc::mq_send(self.tx, buf.as_ptr().cast(), buf.len(), 0) } as isize)
            .map(drop)
    }
    #[inline]
    fn recv(&mut self, buf: &mut [u8]) -> io::Result<bool> {
        loop {
            // SAFETY: the pointer and length describe `buf`, which is the queue's message size; a null
            // priority pointer is allowed.
            let n = unsafe { libc::mq_receive(self.rx, buf.as_mut_ptr().cast(), buf.len(), std::ptr::null_mut()) };
            if let Some(received) = super::message_received(n, buf.len(), "queue message") {
                return received;
            }
        }
    }
    fn finish(&mut self) {
        // SAFETY: an empty message; nothing is read from the pointer.
        unsafe { libc::mq_send(self.tx, [0u8; 0].as_ptr().cast(), 0, 0) };
    }
    fn fds(&self) -> [std::os::fd::RawFd; 2] {
        [self.rx, self.tx]
    }
}

impl Drop for MqEnd {
    fn drop(&mut self) {
        if self.owner {
            // SAFETY: both descriptors were opened by `pair` and are closed once, by the owning end.
            unsafe {
                libc::mq_close(self.rx);
                libc::mq_close(self.tx);
            }
        }
    }
}

// SAFETY: a queue descriptor is a plain file descriptor; an end is used by one thread at a time.
unsafe impl Send for MqEnd {}

/// Opens a fresh queue for one message of `payload` bytes and unlinks its name at once.
fn queue(payload: usize) -> io::Result<libc::mqd_t> {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let name = format!("/overhead-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
    let name = CString::new(name).expect("no NUL in the name");
    // SAFETY: an all-zero mq_attr is valid; the fields that matter are set below.
    let mut attr: libc::mq_attr = unsafe { std::mem::zeroed() };
    attr.mq_maxmsg = 1;
    attr.mq_msgsize = payload as libc::c_long;
    // SAFETY: `name` is a NUL-terminated string and `attr` a valid mq_attr for O_CREAT.
    let q = unsafe {
        libc::mq_open(
            name.as_ptr(),
            libc::O_RDWR | libc::O_CREAT | libc::O_EXCL | libc::O_CLOEXEC,
            0o600 as libc::mode_t,
            &mut attr as *mut libc::mq_attr,
        )
    };
    if q < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `name` is the queue just created; the open descriptor keeps it alive.
    unsafe { libc::mq_unlink(name.as_ptr()) };
    Ok(q)
}

/// Two queues holding one `payload`-byte message each: the parent sends into the first, the child into
/// the second.
///
/// Errors: mq_open failed (EINVAL above the system's message size limit, EMFILE, ENOSYS).
pub fn pair(payload: usize) -> io::Result<(MqEnd, MqEnd)> {
    let to_child = queue(payload)?;
    let to_parent = queue(payload).inspect_err(|_| {
        // SAFETY: `to_child` was opened above and is closed once here.
        unsafe { libc::mq_close(to_child) };
    })?;
    Ok((MqEnd { rx: to_parent, tx: to_child, owner: true }, MqEnd { rx: to_child, tx: to_parent, owner: false }))
}
