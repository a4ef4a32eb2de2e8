//! Cold caches for `rpc.floor`'s cold variant: stream a buffer larger than the last-level cache through
//! every level, outside the timed region, so that the next call finds nothing it used before (Walfield's guess
//! that the application ran "with very cold caches" while ping-pong measured "the very hot case").

use std::hint::black_box;
use std::sync::Arc;

/// Bytes between two reads of the stream: one cache line on x86-64 and most Arm cores (a 128-byte line is
/// read twice, which is harmless).
const LINE: usize = 64;

/// A buffer whose stream through the caches evicts them. Every page is written once when it is made, so that
/// streaming it later faults nothing in. A clone shares the buffer: made before the servers are forked, one
/// buffer serves the probe and its servers, whose copies of its pages are shared copy-on-write and, being only
/// read, never copied (filling a buffer of twice the last-level cache per process cost a 256 MiB `rpc.floor`
/// process a tenth of its time). Sharing it changes no eviction: each process still reads every line of it
/// through its own caches, and the lines are clean.
#[derive(Debug, Clone)]
pub struct Evictor {
    buf: Arc<Vec<u8>>,
}

impl Evictor {
    /// A buffer of `bytes` (at least one line), filled now.
    pub fn new(bytes: usize) -> Evictor {
        Evictor { buf: Arc::new(vec![1u8; bytes.max(LINE)]) }
    }

    /// The buffer's size (bytes).
    pub fn bytes(&self) -> usize {
        self.buf.len()
    }

    /// Reads one byte of every line of the buffer, in order, and returns their sum (kept opaque to the
    /// compiler, so the reads happen). Reads only: the lines it leaves in the caches are clean, so the next
    /// call pays no write-back of the stream's own data.
    pub fn evict(&self) -> u64 {
        let mut sum = 0u64;
        for i in (0..self.buf.len()).step_by(LINE) {
            // black_box keeps each read from being folded away.
            sum = sum.wrapping_add(u64::from(black_box(self.buf[i])));
        }
        black_box(sum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_one_byte_of_every_line() {
        let e = Evictor::new(10 * LINE + 1);
        assert_eq!(e.evict(), 11, "lines 0..=10, the last one partial");
        assert_eq!(Evictor::new(0).evict(), 1);
    }

    #[test]
    fn a_clone_shares_the_buffer() {
        let e = Evictor::new(4 * LINE);
        let copy = e.clone();
        assert!(Arc::ptr_eq(&e.buf, &copy.buf));
        assert_eq!((copy.bytes(), copy.evict()), (4 * LINE, 4));
    }
}
