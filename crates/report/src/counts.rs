//! Where the time goes: what each operation cost the kernel, beside its time (docs/METHOD.md §18). The
//! results table's compact columns (`cs/op`, `kernel`) and the section that lists every point whose counts
//! say something, with the counts and the statements `overhead_analysis::op_counts` derives from them.

use comfy_table::{Cell, CellAlignment};

use overhead_analysis::op_counts::findings;
use overhead_machine::CounterKind;
use overhead_record::{CountEstimate, PointRecord, RunRecord};

use super::{format_ns, new_table, Format};

/// The `cs/op` cell: context switches per operation of every thread of the point's processes, `—` where
/// not counted.
pub fn switches_cell(point: &PointRecord) -> String {
    point.process_switches_per_op().map_or("—".into(), count)
}

/// The `kernel` cell: the kernel's share of the processes' CPU time, `—` where not counted or too little was
/// sampled.
pub fn kernel_cell(point: &PointRecord) -> String {
    point.kernel_share().map_or("—".into(), |s| format!("{:.0}%", s.median * 100.0))
}

/// Every count of `point` with its interval, then what they say, one per line: a tooltip's text; empty
/// without counts.
pub fn detail_text(point: &PointRecord) -> String {
    if point.counts.is_empty() {
        return String::new();
    }
    let counts = point.counts.iter().map(|c| match c.key.as_str() {
        overhead_record::KERNEL_SHARE_KEY => {
            format!("kernel share {:.0}% ({:.0}–{:.0}%)", c.median * 100.0, c.ci_low * 100.0, c.ci_high * 100.0)
        }
        key => format!("{} {}", key.trim_end_matches("_per_op"), with_interval(c)),
    });
    let said = findings(point).into_iter().map(|f| f.to_string());
    let mut lines = vec![format!("per {}:", point.metric.time_per().trim_start_matches("per "))];
    lines.extend(counts);
    lines.extend(said);
    lines.join("\n")
}

/// A count per operation, as short as it stays readable: `0`, `0.004`, `0.25`, `2.0`, `12`.
pub fn count(v: f64) -> String {
    match v.abs() {
        0.0 => "0".into(),
        a if a < 0.01 => format!("{v:.3}"),
        a if a < 1.0 => format!("{v:.2}"),
        a if a < 10.0 => format!("{v:.1}"),
        _ => format!("{v:.0}"),
    }
}

/// A count with its interval over processes, `2.0 (1.9–2.1)`; the bare count where the interval is the value.
fn with_interval(c: &CountEstimate) -> String {
    if c.ci_low == c.ci_high {
        count(c.median)
    } else {
        format!("{} ({}–{})", count(c.median), count(c.ci_low), count(c.ci_high))
    }
}

/// What a point without a statement has: the thresholds of [`findings`], in words.
const QUIET: &str = "under half a context switch per operation (process and children), page faults and migrations \
                     in under 1 of 100 operations, kernel time under half or too little sampled";

/// The section: every point whose counts say something ([`findings`]), its counts per operation with their
/// intervals over processes, and what they say; one line for the points that counted nothing notable.
pub fn counts_section(record: &RunRecord, format: Format) -> String {
    let counted: Vec<&PointRecord> = record.points.iter().filter(|p| !p.counts.is_empty()).collect();
    if counted.is_empty() {
        return String::new();
    }
    let mut table = new_table(format);
    table.set_header(vec![
        "point",
        "time",
        "cs/op: thread",
        "cs/op: process (blocking + preempted)",
        "cs/op: children",
        "faults/op",
        "migrations/op",
        "CPU/op",
        "kernel",
    ]);
    let mut statements = String::new();
    let bullet = if format == Format::Md { "- " } else { "  " };
    let mut quiet = 0;
    for &p in &counted {
        let said = findings(p);
        if said.is_empty() {
            quiet += 1;
            continue;
        }
        let right = |text: String| Cell::new(text).set_alignment(CellAlignment::Right);
        let cell = |kind: CounterKind| p.count(kind).map_or("—".into(), with_interval);
        let process =
            match (p.count(CounterKind::ProcessVoluntarySwitches), p.count(CounterKind::ProcessInvoluntarySwitches)) {
                (Some(v), Some(i)) => {
                    format!("{} ({} + {})", count(v.median + i.median), count(v.median), count(i.median))
                }
                _ => "—".into(),
            };
        let kernel = p.kernel_share().map_or("—".into(), |s| {
            format!("{:.0}% ({:.0}–{:.0}%)", s.median * 100.0, s.ci_low * 100.0, s.ci_high * 100.0)
        });
        table.add_row(vec![
            Cell::new(&p.name),
            right(format_ns(p.summary.median)),
            right(cell(CounterKind::ContextSwitches)),
            right(process),
            right(cell(CounterKind::ChildSwitches)),
            right(cell(CounterKind::MinorFaults)),
            right(cell(CounterKind::CpuMigrations)),
            right(p.per_op(CounterKind::CpuTimeNs).map_or("—".into(), format_ns)),
            right(kernel),
        ]);
        let text: Vec<String> = said.iter().map(|f| f.to_string()).collect();
        statements += &format!("{bullet}{}: {}\n", p.name, text.join("; "));
    }
    if quiet == counted.len() {
        return format!("{bullet}all {} counted points: {QUIET}\n", counted.len());
    }
    if quiet > 0 {
        statements += &format!("{bullet}{quiet} other counted point(s): {QUIET}\n");
    }
    format!(
        "{table}\n{statements}{bullet}counts: in untimed batch pairs after the timed ones, control \
         subtracted (a small negative count is the control counting more: noise), per operation as the point's time is (per round trip for rtt points); median over processes \
         (order-statistic interval); thread = the measuring thread(s), a team's summed; process = every thread of \
         the probe process (partners, helpers, executors; not a child process), blocking = voluntary, preempted = \
         involuntary (sched_yield counts here); children = the child processes' own: a fork's child reaped in the \
         operation, a peer process it talks to; CPU/op = the measuring thread(s)' CPU time; kernel = the kernel's \
         share of the probe processes' CPU time over their whole life, start-up included, not control-subtracted, \
         as the kernel samples it at its tick, shown where 10 ticks sampled it and the measurement was ≥ 80% of it \
         (docs/METHOD.md §18)\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::sample_record;

    fn estimate(key: &str, median: f64) -> CountEstimate {
        overhead_record::fixture::count(key, median, median, median)
    }

    /// A record without counts has no section; a point that switches gets a row, its statement, and the
    /// compact cells; a quiet point is counted in the closing line only.
    #[test]
    fn the_section_lists_the_points_whose_counts_say_something() {
        let mut record = sample_record();
        assert_eq!(counts_section(&record, Format::Table), "");
        let quiet_without_counts = record.points[0].clone();
        let mut quiet = record.points[0].clone();
        quiet.name = "quiet/runtime:os".into();
        quiet.counts = vec![
            estimate("cs_per_op", 0.0),
            estimate("process_voluntary_cs_per_op", 0.0),
            estimate("process_involuntary_cs_per_op", 0.0),
        ];
        let switching = &mut record.points[0];
        switching.threads = 1;
        switching.counts = vec![
            estimate("cs_per_op", 1.0),
            estimate("process_voluntary_cs_per_op", 2.0),
            estimate("process_involuntary_cs_per_op", 0.0),
            overhead_record::fixture::count(overhead_record::KERNEL_SHARE_KEY, 0.8, 0.6, 0.9),
        ];
        assert_eq!(switches_cell(switching), "2.0");
        assert_eq!(kernel_cell(switching), "80%");
        assert_eq!(switches_cell(&quiet_without_counts), "—");
        record.points.push(quiet);
        let text = counts_section(&record, Format::Table);
        assert!(text.contains("2.0 (2.0 + 0)") && text.contains("80% (60–90%)"), "{text}");
        assert!(text.contains("1.0 on each side") && text.contains("kernel time 80%"), "{text}");
        assert!(text.contains("1 other counted point(s)") && !text.contains("quiet/runtime:os ┆"), "{text}");
        // Without a quiet point, no line counts the quiet ones ("0 other counted point(s)").
        record.points.pop();
        assert!(!counts_section(&record, Format::Table).contains("other counted point"));
        assert!(
            detail_text(&record.points[0]).contains("cs 1.0\nprocess_voluntary_cs 2.0"),
            "{}",
            detail_text(&record.points[0])
        );
    }
}
