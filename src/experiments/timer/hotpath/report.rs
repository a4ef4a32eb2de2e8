//! Seed 002's summary tables (§1.3–§5.3) for this machine: for each timer scenario, one row per time
//! base and start mode with the tick↔ns conversions its hot path needs and, beside them, the time that
//! hot path took here. Read from `timer.hotpath` points only.

use crate::experiments::Section;
use crate::render::new_table;
use comfy_table::{Cell, CellAlignment};

use crate::experiments::timer::{HotPathParams, HotPathResult};
use crate::record::{PointRecord, PointSpec, RunRecord};
use crate::render::Format;
use crate::runtimes::timerq::{Scenario, StartMode, TimeBaseKind, COUNT_COLUMNS};
use crate::units::format_ns;

const EXPERIMENT: &str = crate::experiments::timer::HotPath::ID;

/// 002's row label: `TSC-based`, `ns-based+ABS`, …
fn row_label(base: TimeBaseKind, start: StartMode) -> String {
    match start {
        StartMode::Relative => base.label().to_string(),
        StartMode::Absolute => format!("{}+ABS", base.label()),
    }
}

fn is_row(spec: &PointSpec, scenario: Scenario, base: TimeBaseKind, start: StartMode) -> bool {
    spec.experiment == EXPERIMENT
        && spec
            .params_as::<HotPathParams>()
            .is_ok_and(|p| (p.scenario, p.time_base, p.start) == (scenario, base, start))
}

/// A count as 002 prints it: whole numbers bare, fractions (a coarse counter) with two decimals.
fn count_text(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// The count cells of a measured row: ours, and 002's in brackets where they differ.
fn count_cells(point: &PointRecord, seed: Option<[u64; COUNT_COLUMNS.len()]>) -> Vec<String> {
    let counts = point.result_as::<HotPathResult>().ok().map(|r| r.counts());
    (0..COUNT_COLUMNS.len())
        .map(|i| match counts.map(|c| c[i]) {
            Some(v) => match seed {
                Some(s) if s[i] as f64 != v => format!("{} (002: {})", count_text(v), s[i]),
                _ => count_text(v),
            },
            None => "?".into(),
        })
        .collect()
}

/// The tables, one per scenario with `timer.hotpath` points (measured or not), each followed by the
/// rows with the fewest conversions and the fastest row here; then what the time follows, footnotes
/// for rows without a result, and a legend. Empty when the record has no `timer.hotpath` point.
pub fn timers_table(record: &RunRecord, format: Format) -> String {
    let has_any = |s: &PointSpec| s.experiment == EXPERIMENT;
    if !record.points.iter().any(|p| has_any(&p.spec)) && !record.skipped.iter().any(|s| has_any(&s.spec)) {
        return String::new();
    }
    let mut out = String::new();
    let mut footnotes: Vec<String> = Vec::new();
    for scenario in Scenario::ALL {
        out += &scenario_table(record, scenario, format, &mut footnotes);
    }
    if let Some(line) = what_the_time_follows(record) {
        out += &format!("{line}\n");
    }
    for (i, note) in footnotes.iter().enumerate() {
        out += &format!("[{}] {note}\n", i + 1);
    }
    out += "counts: per hot-path operation, from a counting run of the same workload (002's value in \
            brackets where it differs); program_timer, counter reads: hardware-timer programmings and get_tsc() \
            reads (002's from its pseudo-code); time: median per operation ± half-width of its 95% CI, empty \
            loop subtracted\n";
    out
}

/// One scenario's heading, table and "fewest conversions; fastest here" line; empty when the record
/// has no row of it. Rows without a result get a footnote in `footnotes`.
fn scenario_table(record: &RunRecord, scenario: Scenario, format: Format, footnotes: &mut Vec<String>) -> String {
    let mut table = new_table(format);
    let mut header = vec!["time base (seed 002)".to_string()];
    header.extend(COUNT_COLUMNS.iter().map(|c| c.to_string()));
    header.push("time per op".into());
    table.set_header(header);
    let (mut fewest, mut fastest) = (Vec::new(), Vec::new());
    for base in TimeBaseKind::ALL {
        for &start in scenario.starts() {
            let label = row_label(base, start);
            let mut cells = vec![Cell::new(&label)];
            if let Some(p) = record.points.iter().find(|p| is_row(&p.spec, scenario, base, start)) {
                let seed = scenario.seed_002(base, start).map(|c| c.columns());
                cells.extend(count_cells(p, seed).into_iter().map(right));
                let s = &p.summary;
                cells.push(right(format!("{} ±{}", format_ns(s.median), format_ns(s.ci_half_width()))));
                if let Ok(result) = p.result_as::<HotPathResult>() {
                    fewest.push((label.clone(), result.conversions_per_op));
                }
                fastest.push((label, s.median));
            } else if let Some(s) = record.skipped.iter().find(|s| is_row(&s.spec, scenario, base, start)) {
                footnotes.push(format!("§{} {label}: {}", scenario.section(), s.reason));
                let mark = format!("— [{}]", footnotes.len());
                cells.extend(std::iter::repeat_n(right(mark), COUNT_COLUMNS.len() + 1));
            } else {
                continue;
            }
            table.add_row(cells);
        }
    }
    if table.row_count() == 0 {
        return String::new();
    }
    let heading = format!("§{}.3 {} — hot path: {}", scenario.section(), scenario.title(), scenario.hot_path());
    let mut out = match format {
        Format::Table => format!("{heading}\n{table}\n"),
        // A blank line ends a Markdown table; without it the next line would read as a row.
        Format::Md => format!("### {heading}\n\n{table}\n\n"),
    };
    if let (Some(few), Some(fast)) = (least(&fewest, count_text), least(&fastest, format_ns)) {
        out += &format!("fewest conversions: {few}; fastest here: {fast}\n");
    }
    out + "\n"
}

/// "time per op against the counts, least squares over 3 rows: +0.4 ns per conversion (r² 0.02); +9.4 ns
/// per counter read (r² 0.97)", from the analysis's count fits (`crate::analysis::timer_counts`).
fn what_the_time_follows(record: &RunRecord) -> Option<String> {
    let [conversions, reads] = record.count_fits.as_slice() else { return None };
    Some(format!(
        "time per op against the counts, least squares over {} rows: {:+.1} ns per conversion (r² {:.2}); \
         {:+.1} ns per counter read (r² {:.2})",
        conversions.rows, conversions.ns_per_count, conversions.r2, reads.ns_per_count, reads.r2
    ))
}

/// "A, B (value)": the rows sharing the smallest value.
fn least(rows: &[(String, f64)], show: fn(f64) -> String) -> Option<String> {
    let min = rows.iter().map(|r| r.1).min_by(f64::total_cmp)?;
    let names: Vec<&str> = rows.iter().filter(|r| r.1 == min).map(|r| r.0.as_str()).collect();
    Some(format!("{} ({})", names.join(", "), show(min)))
}

fn right(text: String) -> Cell {
    Cell::new(text).set_alignment(CellAlignment::Right)
}

/// The report's `timers` section (docs/ARCHITECTURE.md "Renderers").
pub const SECTION: Section = Section {
    key: "timers",
    title: "Seed 002 timer tables: conversions and time per hot-path operation",
    about: "seed 002's timer tables: conversions per hot-path operation and the time measured",
    position: 40,
    render: timers_table,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::fixture::{point, sample_record};
    use crate::record::{SkipKind, SkippedPoint};

    fn hotpath(scenario: &str, base: &str, start: &str, median: f64, counts: [f64; 6]) -> PointRecord {
        let mut p = point(EXPERIMENT, "os", &[("scenario", scenario), ("time_base", base), ("start", start)], median);
        p.extra = crate::runtimes::timerq::COUNT_EXTRA_KEYS.iter().map(|k| k.to_string()).zip(counts).collect();
        p.extra.insert("fired_per_op".into(), 1.0);
        p
    }

    #[test]
    fn rows_in_002s_order_with_time_and_differences_marked() {
        let mut record = sample_record();
        record.points = vec![
            hotpath("periodic_timer", "ns", "relative", 30.0, [2.0, 1.0, 1.0, 0.0, 1.0, 2.0]),
            hotpath("periodic_timer", "tsc", "relative", 20.0, [0.0, 0.0, 0.0, 0.0, 1.0, 2.0]),
            hotpath("absolute_timeout", "ns", "absolute", 15.0, [2.0, 2.0, 0.0, 0.0, 0.0, 1.0]),
        ];
        let spec = hotpath("periodic_timer", "tsc", "absolute", 1.0, [0.0; 6]).spec;
        record.skipped = vec![SkippedPoint::new(spec, SkipKind::Failed, "it broke")];
        let text = timers_table(&record, Format::Md);
        let periodic = &text[text.find("§1.3 Periodic timers").unwrap()..text.find("§5.3").unwrap()];
        let (tsc, abs, ns) = (
            periodic.find("| TSC-based ").unwrap(),
            periodic.find("TSC-based+ABS").unwrap(),
            periodic.find("| ns-based ").unwrap(),
        );
        assert!(tsc < abs && abs < ns, "002's row order: {periodic}");
        assert!(periodic.contains("20.0 ns ±"), "{periodic}");
        assert!(periodic.contains("fewest conversions: TSC-based (0); fastest here: TSC-based (20.0 ns)"));
        assert!(!text.contains("§2.3"), "scenarios without points are left out");
        let timeout = text.lines().find(|l| l.contains("ns-based+ABS")).unwrap();
        assert!(timeout.contains("2 (002: 1)"), "a count unlike 002's shows 002's: {timeout}");
        assert!(text.contains("[1] §1 TSC-based+ABS: it broke"), "{text}");
        let tsc = periodic.lines().find(|l| l.starts_with("| TSC-based ")).unwrap();
        assert!(tsc.contains("2 (002: 3)"), "the counter reads of §1 TSC-based differ from 002's: {tsc}");
    }

    /// Times that follow the counter reads exactly, not the conversions.
    #[test]
    fn fits_say_what_the_time_follows() {
        let mut record = sample_record();
        record.points = vec![
            hotpath("periodic_timer", "tsc", "relative", 20.0, [0.0, 0.0, 0.0, 0.0, 1.0, 2.0]),
            hotpath("relative_timer", "ns", "relative", 30.0, [3.0, 2.0, 1.0, 0.0, 1.0, 3.0]),
            hotpath("absolute_timeout", "ns", "absolute", 10.0, [1.0, 1.0, 0.0, 0.0, 0.0, 1.0]),
        ];
        crate::analysis::analyze(&mut record);
        let text = timers_table(&record, Format::Table);
        assert!(
            text.contains("over 3 rows: +4.3 ns per conversion (r² 0.43); +10.0 ns per counter read (r² 1.00)"),
            "{text}"
        );
    }

    #[test]
    fn empty_without_timer_points() {
        assert!(timers_table(&sample_record(), Format::Table).is_empty());
    }
}
