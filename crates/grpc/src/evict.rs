//! Cold caches for `rpc.floor`'s cold variant: stream a buffer larger than the last-level cache through
//! every level, outside the timed region, so that the next call finds nothing it used before (Walfield's guess
//! that the application ran "with very cold caches" while ping-pong measured "the very hot case").

use std::hint::black_box;

/// Bytes between two reads of the stream: one cache line on x86-64 and most Arm cores (a 128-byte line is
/// read twice, which is harmless).
const LINE: usize = 64;

/// A buffer whose stream through the caches evicts them. Every page is written once when it is made, so that
/// streaming it later faults nothing in.
#[derive(Debug)]
pub struct Evictor {
    buf: Vec<u8>,
}

impl Evictor {
    /// A buffer of `bytes` (at least one line), filled now.
    pub fn new(bytes: usize) -> Evictor {
        Evictor { buf: vec![1u8; bytes.max(LINE)] }
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
}
