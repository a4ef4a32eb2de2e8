//! Ben-Asher & Feitelson 1991 §2's race, the reference-activity method (docs/METHOD.md §10): two parties run the same
//! local loop at once, each counting in its own cache line; each, on reaching fixed counts, snapshots how
//! far the other got. The partner's progress over a known number of one's own iterations is the
//! partner's processing rate relative to one's own.
//!
//! The study read the partner once, at 10 000 000 of 12 000 000 iterations, and relied on a run of
//! seconds to make the start-up skew negligible. Our runs last milliseconds, so each party snapshots
//! twice, at an `early` and a `late` count, and uses the difference: whatever the parties' start skew,
//! it cancels. Each snapshot is still one read of the partner's line, so the partner is disturbed twice
//! per run, never polled.

use crossbeam_utils::CachePadded;
use std::sync::atomic::{fence, AtomicBool, AtomicU64, Ordering};

/// Iterations a party runs between looks at its partner's done flag, once its own snapshots are taken
/// (Ben-Asher & Feitelson 1991 §3.2's double loop: the inner loop keeps the check off the counting path).
const TAIL_CHUNK: u64 = 1024;

/// A value alone in a 128-byte block on x86-64 and aarch64 (crossbeam's `CachePadded`; two cache lines, so the adjacent-line prefetcher cannot make
/// neighbours share).
pub type Line<T> = CachePadded<T>;

/// One party's shared state, each field in its own line: the progress counter its owner writes every
/// iteration (read by the partner only at its two snapshots), and the flag it raises once its own late
/// snapshot is taken.
#[derive(Debug, Default)]
pub struct Lane {
    progress: Line<AtomicU64>,
    done: Line<AtomicBool>,
}

impl Lane {
    /// Ready for another run: count 0, not done. Only between runs, when neither party races.
    pub fn reset(&self) {
        self.progress.store(0, Ordering::Relaxed);
        self.done.store(false, Ordering::Relaxed);
    }
}

/// The own counts at which a party snapshots its partner: `early < late`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Marks {
    pub early: u64,
    pub late: u64,
}

impl Marks {
    /// Marks for a window of about `window_ns` at `ns_per_iteration`: the late mark `window` iterations
    /// (at least 1 000) after the early one, and the early one an eighth of that after the start, so
    /// both parties are counting steadily by then.
    pub fn for_window(window_ns: f64, ns_per_iteration: f64) -> Marks {
        let window = ((window_ns / ns_per_iteration.max(1e-3)) as u64).max(1_000);
        let early = window / 8;
        Marks { early, late: early + window }
    }
}

/// How far the partner had counted at this party's two marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Snapshot {
    pub early: u64,
    pub late: u64,
}

/// The local loop: counts from `from` to `to`, storing every count into `progress`. One store per
/// iteration to a line only this party writes; atomic, so the compiler keeps every store.
#[inline(never)]
pub fn count(progress: &AtomicU64, from: u64, to: u64) {
    let mut c = from;
    while c < to {
        c += 1;
        progress.store(c, Ordering::Relaxed);
    }
}

/// One party's run: count to `marks.early`, snapshot the partner, count to `marks.late`, snapshot it
/// again, then keep counting until the partner has taken its own late snapshot, so that the partner's
/// snapshots always see this party still running.
pub fn race(mine: &Lane, partner: &Lane, marks: Marks) -> Snapshot {
    let progress = &mine.progress;
    count(progress, 0, marks.early);
    let early = snapshot(partner);
    count(progress, marks.early, marks.late);
    let late = snapshot(partner);
    mine.done.store(true, Ordering::Release);
    let mut c = marks.late;
    while !partner.done.load(Ordering::Acquire) {
        count(progress, c, c + TAIL_CHUNK);
        c += TAIL_CHUNK;
    }
    Snapshot { early, late }
}

/// The partner's count now. The full fence first drains this party's store buffer, so the read is taken
/// after this party's own count is visible and not ahead of it.
#[inline(always)]
fn snapshot(partner: &Lane) -> u64 {
    fence(Ordering::SeqCst);
    partner.progress.load(Ordering::Relaxed)
}

/// The partner's rate relative to this party's in ppm: its progress between this party's two marks
/// over this party's own iterations in that time, minus one. Positive: the partner is faster (Ben-Asher & Feitelson 1991
/// Table 1: a row of positive numbers is a slow processor). `None` when the partner had not started by
/// the early mark or did not move, so the window does not hold its steady loop.
pub fn relative_rate_ppm(marks: Marks, seen: Snapshot) -> Option<f64> {
    if seen.early == 0 || seen.late <= seen.early || marks.late <= marks.early {
        return None;
    }
    let own = (marks.late - marks.early) as f64;
    let theirs = (seen.late - seen.early) as f64;
    Some((theirs / own - 1.0) * 1e6)
}

/// Mean of `values` and its standard error (sample standard deviation / √n; `None` for one value).
/// `None` when there are no values.
pub fn mean_and_standard_error(values: &[f64]) -> Option<(f64, Option<f64>)> {
    if values.is_empty() {
        return None;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let se =
        (values.len() > 1).then(|| (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0) / n).sqrt());
    Some((mean, se))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_from_synthetic_snapshots() {
        let marks = Marks { early: 125_000, late: 1_125_000 };
        // Ben-Asher & Feitelson 1991 Table 1, row 3 column 7: the partner got 80 iterations further per million.
        let seen = Snapshot { early: 130_000, late: 1_130_080 };
        assert!((relative_rate_ppm(marks, seen).unwrap() - 80.0).abs() < 1e-6);
        let slower = Snapshot { early: 120_000, late: 1_119_946 };
        assert!((relative_rate_ppm(marks, slower).unwrap() + 54.0).abs() < 1e-6);
        // The start skew (where the partner was at the early mark) does not enter.
        let skewed = Snapshot { early: 600_000, late: 1_600_080 };
        assert_eq!(relative_rate_ppm(marks, skewed), relative_rate_ppm(marks, seen));
    }

    #[test]
    fn a_partner_that_had_not_started_gives_no_rate() {
        let marks = Marks { early: 100, late: 1_100 };
        assert_eq!(relative_rate_ppm(marks, Snapshot { early: 0, late: 900 }), None);
        assert_eq!(relative_rate_ppm(marks, Snapshot { early: 50, late: 50 }), None);
    }

    #[test]
    fn mean_and_standard_error_of_repetitions() {
        let (mean, se) = mean_and_standard_error(&[10.0, 12.0, 14.0, 16.0, 18.0]).unwrap();
        assert_eq!(mean, 14.0);
        // sample sd = √10, se = √10 / √5 = √2
        assert!((se.unwrap() - 2f64.sqrt()).abs() < 1e-12);
        assert_eq!(mean_and_standard_error(&[3.0]), Some((3.0, None)));
        assert_eq!(mean_and_standard_error(&[]), None);
    }

    #[test]
    fn marks_leave_a_lead_in_and_a_window() {
        let m = Marks::for_window(1e6, 0.5);
        assert_eq!(m.late - m.early, 2_000_000);
        assert_eq!(m.early, 250_000);
        assert_eq!(Marks::for_window(10.0, 1.0).late - Marks::for_window(10.0, 1.0).early, 1_000);
    }

    /// Two parties on one thread in turn (no hardware timing involved): every snapshot sees the other's
    /// count where it stood, and both end done.
    #[test]
    fn snapshots_see_the_partner_count() {
        let (a, b) = (Lane::default(), Lane::default());
        b.progress.store(7, Ordering::Relaxed);
        b.done.store(true, Ordering::Relaxed);
        let seen = race(&a, &b, Marks { early: 10, late: 20 });
        assert_eq!(seen, Snapshot { early: 7, late: 7 });
        assert_eq!(a.progress.load(Ordering::Relaxed), 20);
        assert!(a.done.load(Ordering::Relaxed));
        a.reset();
        assert_eq!(a.progress.load(Ordering::Relaxed), 0);
        assert!(!a.done.load(Ordering::Relaxed));
    }
}
