//! Rate arithmetic: an activity's progress between two snapshots of the reference, over the reference's own
//! (Ben-Asher & Feitelson 1991 §4's relative rate), or against its own solo window when the clock is the reference.

use super::*;

/// Two readings of a count: at the early and at the late snapshot.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub early: u64,
    pub late: u64,
}

impl Snapshot {
    /// The progress between the two readings; `None` when the activity had not started by the early one
    /// or did not move, so the interval does not hold its steady loop.
    pub fn progress(self) -> Option<u64> {
        (self.early > 0 && self.late > self.early).then(|| self.late - self.early)
    }
}

/// The study's relative rate: X's progress between the reference's snapshots over the reference's own
/// progress in that time. Where each stood at the early snapshot (the start skew) does not enter.
pub fn relative_rate(reference: Snapshot, seen: Snapshot) -> Option<f64> {
    Some(seen.progress()? as f64 / reference.progress()? as f64)
}

/// The clock's relative rate: X's increments per ns with the others running (`joint` over `joint_ns`)
/// over its increments per ns alone (`solo` over `solo_ns`).
pub fn clock_relative_rate(joint: Snapshot, joint_ns: f64, solo: Snapshot, solo_ns: f64) -> Option<f64> {
    let (j, s) = (joint.progress()? as f64, solo.progress()? as f64);
    (joint_ns > 0.0 && solo_ns > 0.0).then(|| (j / joint_ns) / (s / solo_ns))
}

/// 250 increments of `*p` in line, each a plain load and a plain store (Ben-Asher & Feitelson 1991 §4's `(*p)++`, not an
/// atomic read-modify-write): relaxed atomic accesses, which compile to the same two `mov`s on x86-64 and
/// aarch64 but stay defined when remote activities race on the word (`remote_heavy`, `local_many_remote`),
/// where volatile accesses would be a data race. A lost update costs nothing here: each activity counts its
/// own loop, not the word.
///
/// # Safety
/// `p` must be valid for reads and writes of a `u64`, 8-byte aligned, and accessed only atomically while any
/// activity runs.
#[inline(always)]
pub(super) unsafe fn increments(p: *mut u64) {
    // SAFETY: valid and aligned for the whole call, accessed only atomically (the caller's promise).
    let word = unsafe { AtomicU64::from_ptr(p) };
    macro_rules! rep5 {
        ($($t:tt)*) => { $($t)* $($t)* $($t)* $($t)* $($t)* };
    }
    macro_rules! rep10 {
        ($($t:tt)*) => { rep5!{$($t)*} rep5!{$($t)*} };
    }
    // 5 × 5 × 10 = INLINE.
    rep5! { rep5! { rep10! { word.store(word.load(Ordering::Relaxed).wrapping_add(1), Ordering::Relaxed); } } }
}
