//! Fetch-and-add the way ParC on the Makbilan did it (Ben-Asher & Feitelson 1991 §8.1): the variable's address is hashed
//! to one of a fixed set of spin locks, the lock is taken with test-and-set (busy waiting while it is
//! held), and the add is done with plain loads and stores under the lock. Concurrent adds to one
//! variable serialise on its lock; adds to distinct variables take distinct locks.

use crossbeam_utils::CachePadded;
use std::hint::spin_loop;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Locks in the table (a power of two, so the hash is a mask).
pub const LOCKS: usize = 256;

/// Bytes per hash bucket of the address space: one lock per 128-byte block (two 64-byte lines, the
/// unit the adjacent-line prefetcher moves), so variables padded to their own block get their own lock.
const BLOCK_SHIFT: u32 = 7;

/// Spin iterations after which a waiter also yields: the study raised the holder's priority so it could
/// not be preempted; a user-space thread cannot, so a waiter gives its CPU back instead of spinning
/// through a preempted holder's time slice.
const SPINS_BEFORE_YIELD: u32 = 1 << 14;

/// One lock alone on its block of cache lines (crossbeam's `CachePadded`: 128 bytes on x86-64 and aarch64),
/// so that neighbouring locks do not share a line.
type PaddedLock = CachePadded<AtomicBool>;

/// The lock table of Ben-Asher & Feitelson 1991 §8.1's `faa`.
#[derive(Debug)]
pub struct HashedFaa {
    locks: Box<[PaddedLock]>,
}

impl Default for HashedFaa {
    fn default() -> Self {
        HashedFaa::new()
    }
}

impl HashedFaa {
    /// A table of [`LOCKS`] free locks.
    pub fn new() -> HashedFaa {
        HashedFaa { locks: (0..LOCKS).map(|_| PaddedLock::default()).collect() }
    }

    /// The index of the lock guarding `var`: its 128-byte block number modulo [`LOCKS`], so up to
    /// `LOCKS` consecutive padded variables never share a lock.
    pub fn lock_index(var: &AtomicU64) -> usize {
        ((var as *const AtomicU64 as usize) >> BLOCK_SHIFT) & (LOCKS - 1)
    }

    /// Adds `v` to `var` under its lock and returns the old value (wrapping on overflow).
    ///
    /// `var` is an `AtomicU64` only so that its plain loads and stores are data-race free in Rust's
    /// model; they are relaxed, and the lock's acquire/release orders them, as the study's simulated add.
    #[inline]
    pub fn fetch_add(&self, var: &AtomicU64, v: u64) -> u64 {
        let lock = &self.locks[Self::lock_index(var)];
        acquire(lock);
        let old = var.load(Ordering::Relaxed);
        var.store(old.wrapping_add(v), Ordering::Relaxed);
        lock.store(false, Ordering::Release);
        old
    }
}

/// Test-and-set until it succeeds; between attempts spin on a read, so waiting keeps the line shared.
#[inline]
fn acquire(lock: &AtomicBool) {
    let mut spins = 0u32;
    while lock.swap(true, Ordering::Acquire) {
        while lock.load(Ordering::Relaxed) {
            spin_loop();
            spins += 1;
            if spins >= SPINS_BEFORE_YIELD {
                spins = 0;
                std::thread::yield_now();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Padded = CachePadded<AtomicU64>;

    /// 2, 3 and 4 threads adding to one shared variable and each to its own: every count exact.
    #[test]
    fn concurrent_adds_are_exact() {
        const EACH: u64 = 20_000;
        let faa = HashedFaa::new();
        for threads in 2..=4u64 {
            let shared = AtomicU64::new(0);
            let own: Vec<Padded> = (0..threads).map(|_| Padded::default()).collect();
            std::thread::scope(|s| {
                for t in 0..threads as usize {
                    let (faa, shared, own) = (&faa, &shared, &own);
                    s.spawn(move || {
                        for _ in 0..EACH {
                            faa.fetch_add(shared, 1);
                            faa.fetch_add(&own[t], 2);
                        }
                    });
                }
            });
            assert_eq!(shared.load(Ordering::Relaxed), threads * EACH, "{threads} threads");
            assert!(own.iter().all(|p| p.load(Ordering::Relaxed) == 2 * EACH), "{threads} threads");
        }
    }

    #[test]
    fn returns_the_old_value_and_separates_padded_variables() {
        let faa = HashedFaa::new();
        let v = AtomicU64::new(5);
        assert_eq!(faa.fetch_add(&v, 3), 5);
        assert_eq!(v.load(Ordering::Relaxed), 8);
        let own: Vec<Padded> = (0..8).map(|_| Padded::default()).collect();
        let mut indices: Vec<usize> = own.iter().map(|p| HashedFaa::lock_index(p)).collect();
        indices.sort_unstable();
        indices.dedup();
        assert_eq!(indices.len(), 8, "padded neighbours must not share a lock: {indices:?}");
    }
}
