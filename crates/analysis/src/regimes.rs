//! Regimes inside a process (docs/METHOD.md §19): each process's series of batches classified as flat,
//! changed or no steady state (`overhead_stats::classify`: PELT changepoints after a windowed outlier rule,
//! as Barrett et al. classify in-process iterations), counted per point. A point whose processes disagree in
//! class, or whose processes changed regime, says so in the section on host states.

use overhead_record::{PointRecord, PointRegimes, RunRecord};
use overhead_stats::{classify, SeriesClass};

/// Sets every point's `regimes` (its side points' too) from its processes' batches. Idempotent.
pub fn apply(record: &mut RunRecord) {
    let sides = record.sides.iter_mut().flat_map(|s| s.sides.iter_mut().skip(1)).flat_map(|s| s.points.iter_mut());
    for point in record.points.iter_mut().chain(sides) {
        point.regimes = regimes(point);
    }
}

/// The classes of the point's processes' series; `None` where none is long enough to classify.
pub fn regimes(point: &PointRecord) -> Option<PointRegimes> {
    let mut counts = PointRegimes::default();
    let mut any = false;
    for series in point.process_batches() {
        match classify(series) {
            Some(SeriesClass::Flat) => counts.flat += 1,
            Some(SeriesClass::Changed) => counts.changed += 1,
            Some(SeriesClass::NoSteadyState) => counts.no_steady_state += 1,
            None => continue,
        }
        any = true;
    }
    any.then_some(counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::point;
    use overhead_record::ProcessRecord;

    fn process(round: usize, batches: usize) -> ProcessRecord {
        ProcessRecord {
            round,
            batch_ops: 1,
            batches,
            median_ns: 50.0,
            wall_ms: 1.0,
            started_s: None,
            state: None,
            extra: Default::default(),
        }
    }

    #[test]
    fn processes_are_classified_by_their_own_batches_and_disagreement_is_seen() {
        let mut p = point("mem.c2c", "os", &[], 50.0);
        let flat = [53.0, 54.0, 52.5, 53.5, 53.0, 52.8, 53.9, 53.1, 53.4];
        let moved = [53.0, 54.0, 52.5, 53.5, 380.0, 385.0, 378.0, 382.0, 381.0];
        p.samples_ns = flat.iter().chain(&moved).chain(&[1.0, 2.0, 3.0]).copied().collect();
        p.processes = vec![process(1, 9), process(2, 9), process(3, 3)];
        let r = regimes(&p).unwrap();
        assert_eq!((r.flat, r.changed, r.no_steady_state), (1, 1, 0), "the three-batch process is not classified");
        assert!(r.disagree() && r.any_change());
        // Three batches a process, the default: nothing to classify.
        p.processes = vec![process(1, 3)];
        assert_eq!(regimes(&p), None);
    }
}
