//! The latency table: one row per point that recorded a latency distribution (`timer.wakeup`), with
//! the percentiles cyclictest and HdrHistogram users read — p50, p99, p99.9, max — and the count.

use super::table::new_table;
use comfy_table::{Cell, CellAlignment};

use super::{format_ns, Format};
use overhead_record::RunRecord;

/// The table of every point with a `details.distribution`, in record order: point, count, min, p50, p90,
/// p99, p99.9, max, mean (times in ns, formatted with their unit). Empty when no point has one.
pub fn latency_table(record: &RunRecord, format: Format) -> String {
    let points: Vec<_> = record.points.iter().filter_map(|p| p.details.distribution.as_ref().map(|d| (p, d))).collect();
    if points.is_empty() {
        return String::new();
    }
    let mut table = new_table(format);
    table.set_header(["point", "count", "min", "p50", "p90", "p99", "p99.9", "max", "mean"]);
    for (p, d) in points {
        let right = |text: String| Cell::new(text).set_alignment(CellAlignment::Right);
        let mut row = vec![Cell::new(&p.name), right(d.count.to_string())];
        for ns in [d.min_ns, d.p50_ns, d.p90_ns, d.p99_ns, d.p999_ns, d.max_ns, d.mean_ns] {
            row.push(right(format_ns(ns)));
        }
        table.add_row(row);
    }
    // Markdown needs a blank line, or the note would be read as one more table row.
    let gap = if format == Format::Md { "\n" } else { "" };
    format!(
        "{table}\n{gap}latency: actual − intended wake time of each event (CLOCK_MONOTONIC); percentiles within \
         0.1% (HdrHistogram, 3 significant digits)\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};
    use overhead_record::Distribution;

    fn distribution(p50_ns: f64) -> Distribution {
        Distribution {
            count: 1000,
            min_ns: 1_000.0,
            p50_ns,
            p90_ns: 2.0 * p50_ns,
            p99_ns: 3.0 * p50_ns,
            p999_ns: 4.0 * p50_ns,
            max_ns: 5.0 * p50_ns,
            mean_ns: p50_ns,
            buckets: vec![(p50_ns, 1000)],
        }
    }

    #[test]
    fn one_row_per_point_with_a_distribution() {
        let mut record = sample_record();
        let mut wakeup = point("timer.wakeup", "os", &[("mechanism", "futex_timeout")], 60e3);
        wakeup.details.distribution = Some(distribution(55_000.0));
        record.points.push(wakeup);
        for format in [Format::Table, Format::Md] {
            let text = latency_table(&record, format);
            let rows: Vec<&str> = text.lines().filter(|l| l.contains("timer.wakeup")).collect();
            assert_eq!(rows.len(), 1, "{text}");
            for cell in ["1000", "55.0 µs", "165 µs", "220 µs", "275 µs"] {
                assert!(rows[0].contains(cell), "{cell} missing from {}", rows[0]);
            }
            assert!(!text.contains("sync.faa"), "a point without a distribution got a row: {text}");
        }
        let md = latency_table(&record, Format::Md);
        assert!(md.lines().next().unwrap().starts_with("| point"));
        assert!(md.contains("|\n\nlatency:"), "the note must not join the Markdown table: {md}");
    }

    #[test]
    fn empty_without_distributions() {
        assert!(latency_table(&sample_record(), Format::Table).is_empty());
    }
}
