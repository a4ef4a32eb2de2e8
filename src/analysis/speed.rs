//! The machine's speed across a run, from the reference loop timed around every point
//! ([`crate::harness::speed`]): which points ran while the CPU was slower than usual (the `slow` flag), and
//! by how much the run's speed varied (the record's `speed_warning`). Part of [`super::analyze`].

use crate::harness::speed::{every_probe, point_reference_ns, usual_reference_ns, SLOW_FACTOR};
use crate::record::PointRecord;

/// For each point, whether its reference loop ran at least [`SLOW_FACTOR`] times slower than the run's usual
/// speed (the `slow` flag). All `false` for records without reference times.
pub fn slow_points(points: &[PointRecord]) -> Vec<bool> {
    let usual = usual_reference_ns(&every_probe_of(points));
    points
        .iter()
        .map(|p| matches!((point_reference_ns(&p.extra), usual), (Some(r), Some(u)) if r >= SLOW_FACTOR * u))
        .collect()
}

/// Every reference time in the record (see [`every_probe`]).
fn every_probe_of(points: &[PointRecord]) -> Vec<f64> {
    every_probe(points.iter().map(|p| &p.extra))
}

/// One line for the report's header when any point ran slow: the range of reference times, the usual one,
/// and how many points are flagged. `None` when the run's speed held (or the record has no reference times).
pub fn speed_warning(points: &[PointRecord]) -> Option<String> {
    let references = every_probe_of(points);
    let usual = usual_reference_ns(&references)?;
    let slowest = references.iter().copied().fold(f64::MIN, f64::max);
    let slow = slow_points(points).iter().filter(|&&s| s).count();
    (slow > 0).then(|| {
        format!(
            "the machine's speed changed during the run: a reference loop iteration took {:.3}–{:.3} ns around the \
             points (usually {usual:.3} ns); {slow} point(s) ran at least {:.0}% slower and are flagged `slow`. \
             Cells measured at different speeds can differ by up to {:.1}× for that reason alone.",
            references.iter().copied().fold(f64::MAX, f64::min),
            slowest,
            (SLOW_FACTOR - 1.0) * 100.0,
            slowest / usual
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::speed::{AFTER, BEFORE};
    use crate::record::fixture::point;

    fn with_reference(before: f64, after: f64) -> PointRecord {
        let mut p = point("base.loop", "os", &[], 1.0);
        p.extra.insert(BEFORE.into(), before);
        p.extra.insert(AFTER.into(), after);
        p
    }

    #[test]
    fn a_point_slower_before_or_after_is_flagged_and_the_header_says_so() {
        let mut points: Vec<PointRecord> = (0..9).map(|_| with_reference(0.28, 0.28)).collect();
        points.push(with_reference(0.28, 0.52));
        points.push(point("base.call", "os", &[], 1.0)); // an older point without reference times
        let slow = slow_points(&points);
        assert_eq!(slow.iter().filter(|&&s| s).count(), 1);
        assert!(slow[9] && !slow[10]);
        let line = speed_warning(&points).unwrap();
        assert!(line.contains("0.280–0.520 ns") && line.contains("1 point(s)") && line.contains("1.9×"), "{line}");
    }

    #[test]
    fn a_run_mostly_slow_still_measures_against_its_fast_state() {
        // Every point caught the slow state on one side; the fast probes set the usual speed.
        let points: Vec<PointRecord> = (0..10).map(|_| with_reference(0.27, 0.53)).collect();
        assert!(slow_points(&points).iter().all(|&s| s));
        assert!(speed_warning(&points).unwrap().contains("usually 0.270 ns"));
    }

    #[test]
    fn a_steady_run_or_an_old_record_gives_no_warning() {
        let steady: Vec<PointRecord> = (0..5).map(|k| with_reference(0.28, 0.28 + 0.01 * k as f64)).collect();
        assert!(speed_warning(&steady).is_none());
        assert!(slow_points(&steady).iter().all(|s| !s));
        assert!(speed_warning(&[point("base.loop", "os", &[], 1.0)]).is_none());
    }
}
