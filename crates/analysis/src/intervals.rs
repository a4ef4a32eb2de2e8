//! A point's estimate and interval over processes, made again from its processes' medians when the record
//! was written on the linear scale (docs/METHOD.md "Two levels"): records written before intervals moved to
//! the log scale read like new ones, with no interval of a time below zero and the `<res` flag meaning what
//! it says. The process medians are what `overhead_stats::TwoLevel::of` summarised, so the interval is the
//! one the run would make today.

use overhead_record::{PointRecord, RunRecord};
use overhead_stats::{ProcessInterval, Scale};

/// Makes the estimate and interval of every point written on the linear scale again from its processes'
/// medians (each side's points too); a point whose medians include one at or below zero keeps its linear
/// interval. Idempotent. The headline (`summary`) follows in `host_states::apply`.
pub fn apply(record: &mut RunRecord) {
    for p in record.points.iter_mut() {
        remake(p);
    }
    if let Some(sides) = record.sides.as_mut() {
        for p in sides.sides.iter_mut().flat_map(|s| s.points.iter_mut()) {
            remake(p);
        }
    }
}

/// One point's interval from its processes' medians, when it has one made on the linear scale over the same
/// processes.
fn remake(point: &mut PointRecord) {
    let medians: Vec<f64> = point.processes.iter().map(|q| q.median_ns).collect();
    let Some(t) = point.two_level.as_mut() else { return };
    if t.scale == Scale::Log || t.processes != medians.len() {
        return;
    }
    if let Some(interval) = ProcessInterval::of(&medians) {
        (t.estimate, t.ci_low, t.ci_high, t.scale) = (interval.estimate, interval.low, interval.high, interval.scale);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, processes, sample_record};
    use overhead_stats::TwoLevel;

    /// The pipe round trip of a 2-vCPU record written on the linear scale: 141, 49 and 77 µs read
    /// "89.0 µs, −27.6 µs – 206 µs"; read again, its interval is positive and the estimate their geometric
    /// mean.
    fn linear_point(medians: &[f64]) -> PointRecord {
        let mut p = point("msg.ipc", "os", &[], 89_000.0);
        let batches: Vec<Vec<f64>> = medians.iter().map(|&m| vec![m, m, m]).collect();
        let mut t = TwoLevel::of(&batches).unwrap();
        let mean = medians.iter().sum::<f64>() / medians.len() as f64;
        (t.estimate, t.ci_low, t.ci_high, t.scale) = (mean, mean - 117_000.0, mean + 117_000.0, Scale::Linear);
        p.two_level = Some(t);
        p.processes = processes(medians);
        p
    }

    #[test]
    fn an_older_linear_interval_is_made_again_on_the_log_scale() {
        let mut record = sample_record();
        record.points = vec![linear_point(&[141_000.0, 49_000.0, 77_000.0]), linear_point(&[-25.0, 39.0, 23.0])];
        apply(&mut record);
        let t = record.points[0].two_level.clone().unwrap();
        assert_eq!(t.scale, Scale::Log);
        assert!(t.ci_low > 0.0 && (t.estimate - (141.0f64 * 49.0 * 77.0).cbrt() * 1000.0).abs() < 1e-6, "{t:?}");
        let signed = record.points[1].two_level.clone().unwrap();
        assert_eq!(signed.scale, Scale::Linear, "a median below zero keeps the linear interval");
        let once = serde_json::to_string(&record).unwrap();
        apply(&mut record);
        assert_eq!(serde_json::to_string(&record).unwrap(), once);
    }
}
