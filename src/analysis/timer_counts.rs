//! Seed 002's question for today's CPUs, derived into the record (docs/ARCHITECTURE.md "The data flow"):
//! 002 ranks time bases by the tick↔ns conversions their hot path needs, but a conversion may now cost
//! less than a counter read. Least-squares lines of every measured `timer.hotpath` row's median against
//! the conversion count and against the counter-read count say which the time follows.

use crate::record::{CountFit, PointRecord};
use crate::runtimes::timerq::COUNT_EXTRA_KEYS;
use crate::stats::least_squares;

/// The experiment whose rows are fitted.
pub const EXPERIMENT: &str = "timer.hotpath";

/// The counts fitted against, as `extra` keys: conversions and counter reads per operation.
pub const FITTED_COUNTS: [&str; 2] = [COUNT_EXTRA_KEYS[0], COUNT_EXTRA_KEYS[5]];

/// One line per count of [`FITTED_COUNTS`] through the `timer.hotpath` points (ns per op against the
/// count); none under 3 rows, or when a row lacks the count.
pub fn count_fits(points: &[PointRecord]) -> Vec<CountFit> {
    let rows: Vec<&PointRecord> = points.iter().filter(|p| p.spec.experiment == EXPERIMENT).collect();
    if rows.len() < 3 {
        return Vec::new();
    }
    let times: Vec<f64> = rows.iter().map(|p| p.summary.median).collect();
    let fit = |key: &str| -> Option<CountFit> {
        let counts: Vec<f64> = rows.iter().map(|p| p.extra.get(key).copied()).collect::<Option<_>>()?;
        let line = least_squares(&counts, &times)?;
        Some(CountFit {
            experiment: EXPERIMENT.into(),
            count: key.into(),
            ns_per_count: line.b,
            r2: line.r2,
            rows: rows.len(),
        })
    };
    // Both or neither: the report sets one against the other.
    FITTED_COUNTS.iter().map(|k| fit(k)).collect::<Option<Vec<_>>>().unwrap_or_default()
}
