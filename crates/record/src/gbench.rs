//! The Google Benchmark JSON shape (`json_schema_version` 1) that `compare.py`, Bencher and
//! github-action-benchmark read, derived from a [`RunRecord`].
//!
//! Follows what Google Benchmark's own `JSONReporter` writes: one `iteration` entry per repetition
//! (`repetition_index`), then `mean`, `median`, `stddev` and `cv` aggregates (`cv` with
//! `aggregate_unit: "percentage"`, as a fraction), all with `time_unit: "ns"`.

use serde::{Deserialize, Serialize};

use super::{PointRecord, RunRecord};
use overhead_machine::CacheInfo;
use overhead_stats::Summary;

/// The whole file: Google Benchmark's two keys plus ours.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct File {
    pub context: Context,
    pub benchmarks: Vec<Entry>,
    /// Absent in a plain Google Benchmark file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead: Option<RunRecord>,
}

/// Google Benchmark's `context` object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Context {
    /// Local time the run started, RFC 3339.
    pub date: String,
    pub host_name: String,
    pub executable: String,
    pub num_cpus: usize,
    pub mhz_per_cpu: u64,
    pub cpu_scaling_enabled: bool,
    /// Always present (compare.py and Bencher expect the key), possibly empty.
    pub caches: Vec<CacheInfo>,
    pub load_avg: Vec<f64>,
    pub library_build_type: String,
    pub json_schema_version: u32,
}

/// One entry of `benchmarks`: a repetition (`run_type: "iteration"`) or an aggregate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub name: String,
    pub family_index: usize,
    pub per_family_instance_index: usize,
    pub run_name: String,
    pub run_type: String,
    pub repetitions: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repetition_index: Option<usize>,
    pub threads: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregate_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregate_unit: Option<String>,
    pub iterations: u64,
    pub real_time: f64,
    pub cpu_time: f64,
    pub time_unit: String,
}

impl File {
    /// The file for `record`: context and entries derived, record kept whole under `"overhead"`.
    pub fn from_record(record: &RunRecord) -> File {
        File {
            context: context(record),
            benchmarks: record.every_point().enumerate().flat_map(|(i, p)| entries(i, p)).collect(),
            overhead: Some(record.clone()),
        }
    }
}

fn context(record: &RunRecord) -> Context {
    let m = &record.machine;
    let date = chrono::DateTime::parse_from_rfc3339(&record.started_utc)
        .map(|t| t.with_timezone(&chrono::Local).to_rfc3339())
        .unwrap_or_else(|_| record.started_utc.clone());
    Context {
        date,
        host_name: m.host_name.clone(),
        executable: std::env::current_exe().map(|p| p.display().to_string()).unwrap_or_default(),
        num_cpus: m.logical_cpus,
        mhz_per_cpu: m.mhz_per_cpu.unwrap_or(0.0).round() as u64,
        cpu_scaling_enabled: m.governor.as_deref().is_some_and(|g| g != "performance"),
        caches: m.topology.caches.clone(),
        load_avg: m.load_avg.to_vec(),
        library_build_type: if cfg!(debug_assertions) { "debug" } else { "release" }.into(),
        json_schema_version: 1,
    }
}

/// The repetitions of point `family` followed by its four aggregates.
fn entries(family: usize, point: &PointRecord) -> Vec<Entry> {
    let reps = point.samples_ns.len();
    let entry =
        |name: String, run_type: &str, repetition_index, aggregate: Option<(&str, &str)>, iterations, t| Entry {
            name,
            family_index: family,
            per_family_instance_index: 0,
            run_name: point.name.clone(),
            run_type: run_type.into(),
            repetitions: reps,
            repetition_index,
            threads: point.threads,
            aggregate_name: aggregate.map(|a| a.0.to_owned()),
            aggregate_unit: aggregate.map(|a| a.1.to_owned()),
            iterations,
            real_time: t,
            cpu_time: t,
            time_unit: "ns".into(),
        };
    let mut out: Vec<Entry> = point
        .samples_ns
        .iter()
        .enumerate()
        .map(|(r, &t)| entry(point.name.clone(), "iteration", Some(r), None, point.batch_ops, t))
        .collect();
    let s: &Summary = &point.summary;
    for (aggregate, unit, value) in [
        ("mean", "time", s.mean),
        ("median", "time", s.median),
        ("stddev", "time", s.stddev),
        ("cv", "percentage", s.cv()),
    ] {
        let value = if value.is_finite() { value } else { 0.0 };
        out.push(entry(
            format!("{}_{aggregate}", point.name),
            "aggregate",
            None,
            Some((aggregate, unit)),
            reps as u64,
            value,
        ));
    }
    out
}
