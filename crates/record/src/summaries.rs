//! Every point of a results file as a name and a summary (ns), for `overhead compare`: from an `overhead`
//! record, or from a plain Google Benchmark file (its repetitions summarised as ours are, so its CI is the
//! order-statistic CI of their median).

use std::collections::BTreeMap;
use std::path::Path;

use super::{load, RecordError};
use overhead_stats::Summary;

/// Point name → summary in ns, in name order.
pub type Summaries = BTreeMap<String, Summary>;

/// The points of the file at `path`.
///
/// Errors: as [`load`], except that a plain Google Benchmark file is read; one whose entries carry no time
/// is malformed.
pub fn load_summaries(path: &Path) -> Result<Summaries, RecordError> {
    match load(path) {
        Ok(record) => Ok(record.points.into_iter().map(|p| (p.name, p.summary)).collect()),
        Err(RecordError::PlainGoogleBenchmark { .. }) => plain_google_benchmark(path),
        Err(e) => Err(e),
    }
}

/// A plain Google Benchmark file: per `run_name` (or `name`), the `real_time` of its iteration entries
/// converted to ns; aggregates are left out (the repetitions they summarise are there).
fn plain_google_benchmark(path: &Path) -> Result<Summaries, RecordError> {
    let p = || path.to_owned();
    let text = std::fs::read_to_string(path).map_err(|source| RecordError::Read { path: p(), source })?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|source| RecordError::NotJson { path: p(), source })?;
    let mut runs: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for entry in value["benchmarks"].as_array().into_iter().flatten() {
        if entry["run_type"] == "aggregate" {
            continue;
        }
        let name = entry["run_name"].as_str().or(entry["name"].as_str());
        let (Some(name), Some(time)) = (name, entry["real_time"].as_f64()) else { continue };
        let unit = entry["time_unit"].as_str().unwrap_or("ns");
        let Some(scale) = ns_per(unit) else { continue };
        runs.entry(name.to_string()).or_default().push(time * scale);
    }
    if runs.is_empty() {
        return Err(RecordError::Foreign { path: p() });
    }
    Ok(runs.into_iter().filter_map(|(name, times)| Some((name, Summary::of(&times)?))).collect())
}

/// Nanoseconds per unit of Google Benchmark's `time_unit` (`ns`, `us`, `ms`, `s`).
fn ns_per(unit: &str) -> Option<f64> {
    match unit {
        "ns" => Some(1.0),
        "us" => Some(1e3),
        "ms" => Some(1e6),
        "s" => Some(1e9),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_google_benchmark_file_reads_its_repetitions_in_ns() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gb.json");
        let file = serde_json::json!({
            "context": { "date": "x" },
            "benchmarks": [
                { "name": "BM_a/rep", "run_name": "BM_a", "run_type": "iteration", "real_time": 1.0, "time_unit": "us" },
                { "name": "BM_a/rep", "run_name": "BM_a", "run_type": "iteration", "real_time": 3.0, "time_unit": "us" },
                { "name": "BM_a_median", "run_name": "BM_a", "run_type": "aggregate", "real_time": 99.0, "time_unit": "us" },
                { "name": "BM_b", "real_time": 5.0, "time_unit": "ns" }
            ]
        });
        std::fs::write(&path, file.to_string()).unwrap();
        let s = load_summaries(&path).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s["BM_a"].median, 2000.0, "aggregates left out, µs made ns");
        assert_eq!(s["BM_b"].median, 5.0);
        std::fs::write(&path, r#"{"context": {}, "benchmarks": []}"#).unwrap();
        assert!(matches!(load_summaries(&path), Err(RecordError::Foreign { .. })));
    }
}
