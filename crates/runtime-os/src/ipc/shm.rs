//! Shared memory between the two processes: one buffer each way, the payload copied in by the sender and
//! out by the receiver, and a sequence word each way that the receiver waits on — with a futex
//! (`futex_shm`: the kernel wakes the receiver) or by polling (`spin_shm`: no system call at all).

use std::hint::spin_loop;
use std::io;
use std::sync::atomic::{AtomicU32, Ordering};

use super::End;
use crate::futex::{wait_shared, wake_shared};

/// How a receiver waits for the sequence word to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// FUTEX_WAIT on the shared word; the sender wakes it.
    Futex,
    /// Polls the word, giving the CPU away every [`SPINS_BEFORE_YIELD`] polls (the peer may share it).
    Spin,
}

/// Polls before a spinning receiver yields its CPU: on one CPU the sender cannot run while it spins.
const SPINS_BEFORE_YIELD: u32 = 256;

/// Bytes of the header: the two sequence words and the stop flag, each on its own 128-byte block
/// (adjacent-line prefetch pairs 64-byte lines).
const HEADER: usize = 3 * 128;

/// One end: the shared mapping, which buffer and word it sends through, and the last sequence it saw.
pub struct ShmEnd {
    base: *mut u8,
    len: usize,
    capacity: usize,
    /// 0 for the parent (sends through block 0, receives through block 1), 1 for the child.
    side: usize,
    wait: Wait,
    seen: u32,
}

impl ShmEnd {
    fn word(&self, block: usize) -> &AtomicU32 {
        // SAFETY: the header's blocks lie inside the live mapping, 128-byte aligned (the mapping is
        // page-aligned), and are only ever accessed atomically by both processes.
        unsafe { &*self.base.add(block * 128).cast::<AtomicU32>() }
    }
    fn buffer(&self, direction: usize) -> *mut u8 {
        // SAFETY: both buffers lie inside the mapping: HEADER + 2 × capacity ≤ len.
        unsafe { self.base.add(HEADER + direction * self.capacity) }
    }
    fn publish(&self) {
        let word = self.word(self.side);
        word.fetch_add(1, Ordering::Release);
        if self.wait == Wait::Futex {
            wake_shared(word, 1);
        }
    }
}

impl End for ShmEnd {
    #[inline]
    fn send(&mut self, buf: &[u8]) -> io::Result<()> {
        if buf.len() > self.capacity {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "message larger than the shared buffer"));
        }
        // SAFETY: the buffer of this side's direction holds `capacity` ≥ `buf.len()` bytes, and the
        // receiver reads it only after the Release increment in `publish`.
        unsafe { std::ptr::copy_nonoverlapping(buf.as_ptr(), self.buffer(self.side), buf.len()) };
        self.publish();
        Ok(())
    }
    #[inline]
    fn recv(&mut self, buf: &mut [u8]) -> io::Result<bool> {
        if buf.len() > self.capacity {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "message larger than the shared buffer"));
        }
        let incoming = 1 - self.side;
        let word = self.word(incoming);
        let mut spins = 0u32;
        loop {
            let now = word.load(Ordering::Acquire);
            if now != self.seen {
                self.seen = now;
                break;
            }
            match self.wait {
                Wait::Futex => wait_shared(word, now),
                Wait::Spin => {
                    spin_loop();
                    spins += 1;
                    if spins == SPINS_BEFORE_YIELD {
                        spins = 0;
                        std::thread::yield_now();
                    }
                }
            }
        }
        if self.word(2).load(Ordering::Acquire) != 0 {
            return Ok(false);
        }
        // SAFETY: the peer wrote the incoming buffer before its Release increment, which the Acquire
        // load above saw; it does not write again until we reply.
        unsafe { std::ptr::copy_nonoverlapping(self.buffer(incoming), buf.as_mut_ptr(), buf.len()) };
        Ok(true)
    }
    fn finish(&mut self) {
        self.word(2).store(1, Ordering::Release);
        self.publish();
    }
}

impl Drop for ShmEnd {
    fn drop(&mut self) {
        // SAFETY: `base`/`len` are this process's mapping from `pair`, unmapped once (each process drops
        // its own copy of the end it uses; the other end's copy is dropped by `Peer` before use).
        unsafe { libc::munmap(self.base.cast(), self.len) };
    }
}

/// A shared anonymous mapping with a header and two `payload`-byte buffers, and its two ends. The ends
/// share one mapping: each process must keep using only its own end.
///
/// Errors: mmap failed.
pub fn pair(payload: usize, wait: Wait) -> io::Result<(ShmEnd, ShmEnd)> {
    let capacity = payload.max(1).next_multiple_of(128);
    let len = HEADER + 2 * capacity;
    // SAFETY: a fresh anonymous shared mapping; no existing memory is touched.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if base == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    let base: *mut u8 = base.cast();
    // The second end needs its own mapping handle to unmap on drop; map the same pages twice by
    // duplicating the mapping with mremap(old_size 0), which for a shared mapping makes a second view.
    // SAFETY: mremap with old_size 0 on a MAP_SHARED mapping creates a new mapping of the same pages.
    let second = unsafe { libc::mremap(base.cast(), 0, len, libc::MREMAP_MAYMOVE) };
    if second == libc::MAP_FAILED {
        let e = io::Error::last_os_error();
        // SAFETY: `base` is the mapping made above.
        unsafe { libc::munmap(base.cast(), len) };
        return Err(e);
    }
    let end = |base: *mut u8, side: usize| ShmEnd { base, len, capacity, side, wait, seen: 0 };
    Ok((end(base, 0), end(second.cast(), 1)))
}

// SAFETY: an end is used by one thread at a time; the memory it points to is shared on purpose and
// accessed through atomics (the words) or after an Acquire that orders the copy (the buffers).
unsafe impl Send for ShmEnd {}
