//! Kiszka's summary tables (§1.3–§5.3) for this machine: for each timer scenario, one row per time
//! base and start mode with the tick↔ns conversions its hot path needs and, beside them, the time that
//! hot path took here. Read from `timer.hotpath` points only.

use crate::sections::Section;
use comfy_table::{Cell, CellAlignment};
use overhead_render::new_table;

use overhead_humanize::format_ns;
use overhead_record::HotPathResult;
use overhead_record::{PointRecord, PointSpec, RunRecord};
use overhead_render::Format;
use overhead_schema::experiments::timer::HotPathParams;
use overhead_schema::variants::timer_scenario::{Scenario, StartMode, TimeBaseKind, COUNT_COLUMNS};

const EXPERIMENT: &str = overhead_schema::experiments::timer::HOTPATH;

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
    let mut header = vec!["time base (Kiszka 2006)".to_string()];
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
/// per counter read (r² 0.97)", from the analysis's count fits (`overhead_analysis::timer_counts`).
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
    title: "Kiszka 2006 timer tables: conversions and time per hot-path operation",
    about: "Kiszka's timer tables: conversions per hot-path operation and the time measured",
    position: 40,
    render: timers_table,
};
