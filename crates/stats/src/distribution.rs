//! A latency distribution's summary: the shape the histograms produce (`stats::histogram`) and the record
//! keeps (`record::Details`).

use serde::{Deserialize, Serialize};

/// A distribution of single-event latencies (ns), summarised from a histogram: what `cyclictest` and
/// HdrHistogram users read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Distribution {
    /// Events recorded.
    pub count: u64,
    pub min_ns: f64,
    pub p50_ns: f64,
    pub p90_ns: f64,
    pub p99_ns: f64,
    pub p999_ns: f64,
    pub max_ns: f64,
    pub mean_ns: f64,
    /// `(upper bound ns, events)` per histogram bucket with events, ascending.
    pub buckets: Vec<(f64, u64)>,
}
