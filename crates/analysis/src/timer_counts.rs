//! Kiszka's question for today's CPUs, derived into the record (docs/ARCHITECTURE.md "The data flow"):
//! 002 ranks time bases by the tick↔ns conversions their hot path needs, but a conversion may now cost
//! less than a counter read. Least-squares lines of every measured `timer.hotpath` row's median against
//! the conversion count and against the counter-read count say which the time follows.

use overhead_record::HotPathResult;
use overhead_record::{CountFit, PointRecord};
use overhead_stats::least_squares;

/// The experiment whose rows are fitted.
pub const EXPERIMENT: &str = overhead_schema::experiments::timer::HOTPATH;

/// A count of [`HotPathResult`] a line is fitted against.
type Count = fn(&HotPathResult) -> f64;

/// The counts fitted against, by the name the record's [`CountFit::count`] gives them (the result's field
/// name): conversions and counter reads per operation.
pub const FITTED_COUNTS: [(&str, Count); 2] =
    [("conversions_per_op", |r| r.conversions_per_op), ("counter_reads_per_op", |r| r.counter_reads_per_op)];

/// One line per count of [`FITTED_COUNTS`] through the `timer.hotpath` points (ns per op against the
/// count); none under 3 rows, or when a row lacks the count.
pub fn count_fits(points: &[PointRecord]) -> Vec<CountFit> {
    let rows: Vec<&PointRecord> = points.iter().filter(|p| p.spec.experiment == EXPERIMENT).collect();
    if rows.len() < 3 {
        return Vec::new();
    }
    let times: Vec<f64> = rows.iter().map(|p| p.summary.median).collect();
    let results: Option<Vec<HotPathResult>> = rows.iter().map(|p| p.result_as().ok()).collect();
    let Some(results) = results else { return Vec::new() };
    let fit = |&(key, count): &(&str, Count)| -> Option<CountFit> {
        let counts: Vec<f64> = results.iter().map(count).collect();
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
    FITTED_COUNTS.iter().map(fit).collect::<Option<Vec<_>>>().unwrap_or_default()
}
