//! A point's 95% interval as every renderer writes it (docs/METHOD.md "Two levels"): the ends the analysis
//! made, and what they rest on when that is less than a point's minimum of processes. An interval over two
//! processes is honest but wide (Student's t at one degree of freedom is 12.7); one process gives no interval
//! over processes at all, only its own batches' scatter, which says nothing of the next process.

use overhead_humanize::format_ns;
use overhead_record::PointRecord;

/// The processes a point's interval is over: the two-level summary's, else its process list's (0 for a
/// point without one, a plain Google Benchmark file's).
pub fn interval_processes(p: &PointRecord) -> usize {
    p.two_level.as_ref().map_or(p.processes.len(), |t| t.processes)
}

/// The point's interval with its ends multiplied by `scale` (½ for a one-way time from a round trip):
/// `"48.6 µs – 136 µs"`; `"48.6 µs – 136 µs (2 processes)"` over two; `"— (1 process: no interval over
/// processes)"` for one. A point on the linear scale whose interval reaches zero (a process read zero or
/// less: a difference at its noise floor, flagged `<res`) shows its upper bound alone: `"≤ 97.1 µs (a
/// process read ≤ 0)"`, never a negative time.
pub fn point_interval(p: &PointRecord, scale: f64) -> String {
    let s = &p.summary;
    let ends = if s.ci_low > 0.0 {
        format!("{} – {}", format_ns(s.ci_low * scale), format_ns(s.ci_high * scale))
    } else {
        format!("≤ {} (a process read ≤ 0)", format_ns(s.ci_high * scale))
    };
    match interval_processes(p) {
        1 => "— (1 process: no interval over processes)".into(),
        2 => format!("{ends} (2 processes)"),
        _ => ends,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, processes};

    fn with_processes(k: usize) -> PointRecord {
        let mut p = point("base.call", "os", &[], 100.0);
        (p.summary.ci_low, p.summary.ci_high) = (90.0, 110.0);
        p.processes = processes(&vec![100.0; k]);
        p
    }

    #[test]
    fn an_interval_says_what_it_rests_on_below_three_processes() {
        assert_eq!(point_interval(&with_processes(3), 1.0), "90.0 ns – 110 ns");
        assert_eq!(point_interval(&with_processes(2), 0.5), "45.0 ns – 55.0 ns (2 processes)");
        assert!(point_interval(&with_processes(1), 1.0).starts_with("— (1 process"));
        assert_eq!(point_interval(&with_processes(0), 1.0), "90.0 ns – 110 ns", "a record without processes");
        let mut signed = with_processes(3);
        signed.summary.ci_low = -70_000.0;
        assert_eq!(point_interval(&signed, 1.0), "≤ 110 ns (a process read ≤ 0)");
    }
}
