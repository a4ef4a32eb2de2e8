//! Where a run's time went: wall time per experiment, summed over every probe process of its points
//! (`PointRecord::wall_ms`), and how many points got more than the minimum rounds.

use std::collections::BTreeMap;

use overhead_record::RunRecord;

/// A few lines for the end of a run: the total probe time, then each experiment's share, largest first.
/// Empty for a record without wall times (older than rounds).
pub fn time_spent(record: &RunRecord) -> String {
    let mut by_experiment: BTreeMap<&str, (f64, usize)> = BTreeMap::new();
    for p in record.every_point() {
        let entry = by_experiment.entry(p.spec.experiment.as_str()).or_default();
        entry.0 += p.wall_ms;
        entry.1 += p.processes.len();
    }
    let total_ms: f64 = by_experiment.values().map(|(ms, _)| ms).sum();
    if total_ms <= 0.0 {
        return String::new();
    }
    let mut rows: Vec<(&str, (f64, usize))> = by_experiment.into_iter().collect();
    rows.sort_by(|a, b| b.1 .0.total_cmp(&a.1 .0));
    let target = record.rounds.map_or(0.03, |r| r.target_half_width);
    let reached = record.every_point().filter(|p| p.summary.ci_half_width() <= target * p.summary.median.abs()).count();
    let processes: usize = rows.iter().map(|(_, (_, n))| n).sum();
    let mut out = format!(
        "time: {:.1} s in {processes} probe processes; {reached} of {} points reached a CI within ±{:.0}% of \
         the median\n",
        total_ms / 1e3,
        record.every_point().count(),
        target * 100.0
    );
    if let Some(short) = short_of_minimum(record) {
        out += &short;
    }
    for (experiment, (ms, n)) in rows {
        out += &format!(
            "  {experiment:<18} {:>6.1} s  {:>3.0}%  {n:>4} processes, {:>5.0} ms each\n",
            ms / 1e3,
            100.0 * ms / total_ms,
            ms / n.max(1) as f64
        );
    }
    out
}

/// A line when the run's deadline left points with fewer processes than the minimum rounds (docs/METHOD.md
/// §4): how many, and the cost of their processes here.
fn short_of_minimum(record: &RunRecord) -> Option<String> {
    let minimum = record.rounds?.min_rounds;
    let short: Vec<_> =
        record.every_point().filter(|p| !p.processes.is_empty() && p.processes.len() < minimum).collect();
    if short.is_empty() {
        return None;
    }
    let per_process_ms: f64 =
        short.iter().map(|p| p.wall_ms / p.processes.len() as f64).sum::<f64>() / short.len() as f64;
    Some(format!(
        "  {} point(s) got fewer than {minimum} processes: the run's deadline came first (their processes take \
         {per_process_ms:.0} ms each on average; their notes say so)\n",
        short.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};
    use overhead_record::ProcessRecord;

    #[test]
    fn experiments_are_listed_by_time_spent() {
        let mut record = sample_record();
        let process = ProcessRecord {
            round: 1,
            batch_ops: 1,
            batches: 1,
            median_ns: 1.0,
            wall_ms: 100.0,
            started_s: None,
            state: None,
            extra: Default::default(),
        };
        record.points[0].wall_ms = 300.0;
        record.points[0].processes = vec![process.clone(); 3];
        let mut call = point("base.call", "os", &[], 1.0);
        call.wall_ms = 900.0;
        call.processes = vec![process; 3];
        record.points.push(call);
        let text = time_spent(&record);
        let call_at = text.find("base.call").unwrap();
        let faa_at = text.find("sync.faa").unwrap();
        assert!(call_at < faa_at, "{text}");
        assert!(text.starts_with("time: 1.2 s in 6 probe processes"), "{text}");
        assert!(text.contains("75%"), "{text}");
        assert!(time_spent(&sample_record()).is_empty());
        assert!(!text.contains("fewer than"), "{text}");
        record.rounds = Some(overhead_record::RoundPolicy::for_mode(overhead_schema::Mode::Default));
        record.points[1].processes.truncate(2);
        let short = time_spent(&record);
        assert!(short.contains("1 point(s) got fewer than 3 processes") && short.contains("450 ms each"), "{short}");
    }
}
