//! Souvatzis's timing table for today's runtimes: one row per primitive, one column per runtime,
//! medians with the half-width of their 95% CI, and how each runtime compares with `fiber-asm` on the
//! rows whose cost is dominated by switching.

use crate::sections::Section;
use comfy_table::{Cell, CellAlignment};
use overhead_humanize::format_ratio;
use overhead_render::new_table;

use overhead_analysis::primitive_rows::{matches, ROWS};
use overhead_humanize::format_ns;
use overhead_record::Catalog as _;
use overhead_record::{RatioCi, RunRecord, RuntimeComparison};
use overhead_render::Format;

/// The runtimes the record has anything for, Souvatzis's columns first.
fn columns(record: &RunRecord) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    let specs = record.points.iter().map(|p| &p.spec).chain(record.skipped.iter().map(|s| &s.spec));
    for spec in specs {
        if ROWS.iter().any(|r| r.experiment == spec.experiment) && !seen.iter().any(|s| spec.runtime == *s) {
            seen.push(spec.runtime.to_string());
        }
    }
    seen.sort_by_key(|r| record.catalog.runtime_rank(r));
    seen
}

/// The table, its footnotes (why a cell is empty), and one line per runtime comparing it with
/// `fiber-asm` on the switch-bound rows (geometric mean of the per-row ratios). Empty when the record
/// has none of the table's experiments.
pub fn primitives_table(record: &RunRecord, format: Format) -> String {
    let runtimes = columns(record);
    if runtimes.is_empty() {
        return String::new();
    }
    let mut table = new_table(format);
    let mut header = vec!["primitive (Souvatzis)".to_string()];
    header.extend(runtimes.iter().cloned());
    table.set_header(header);
    let mut footnotes: Vec<String> = Vec::new();
    for row in ROWS {
        let mut cells = vec![Cell::new(row.label)];
        for runtime in &runtimes {
            let point = record.points.iter().find(|p| matches(row, &p.spec, runtime, &record.catalog));
            let text = match point {
                Some(p) => {
                    format!("{} ±{}{}", format_ns(p.summary.median), format_ns(p.summary.ci_half_width()), breakdown(p))
                }
                None => {
                    let skipped = record.skipped.iter().find(|s| matches(row, &s.spec, runtime, &record.catalog));
                    match skipped {
                        Some(s) => {
                            footnotes.push(format!("{} / {runtime}: {}", row.label, s.reason));
                            format!("— [{}]", footnotes.len())
                        }
                        None => "—".into(),
                    }
                }
            };
            cells.push(Cell::new(text).set_alignment(CellAlignment::Right));
        }
        table.add_row(cells);
    }
    let mut out = format!("{table}\n");
    for (i, note) in footnotes.iter().enumerate() {
        out += &format!("[{}] {note}\n", i + 1);
    }
    out += "cells: median per operation ± half-width of its 95% CI; · k cs: context switches per operation of every \
            thread of the process, · k pf: page faults per operation, where counted (docs/METHOD.md §18)\n";
    for c in &record.comparisons {
        out += &format!("{}\n", comparison_line(c));
    }
    out
}

/// What the kernel did per operation, as a cell's tail: ` · 2.0 cs`, ` · 2.2 pf` where the point counted
/// at least one switch or fault in a hundred operations; empty otherwise. Souvatzis splits its primitives by
/// whether they switch; this shows which do.
fn breakdown(p: &overhead_record::PointRecord) -> String {
    let mut tail = String::new();
    if let Some(cs) = p.process_switches_per_op().filter(|&cs| cs >= 0.01) {
        tail += &format!(" · {cs:.1} cs");
    }
    let faults = p.count(overhead_machine::CounterKind::MinorFaults).map_or(0.0, |c| c.median);
    if faults >= 0.01 {
        tail += &format!(" · {faults:.1} pf");
    }
    tail
}

/// "R is 3.2× slower than fiber-asm on switch-bound rows (geometric mean of 6 rows); raw switch round trip
/// R / fiber-asm = 1.31 (95% CI 1.22–1.40)", from the analysis's comparison. The second part is the
/// issue-3 criterion (asm no slower than corosensei), read off one ratio instead of two cells.
fn comparison_line(c: &RuntimeComparison) -> String {
    let (runtime, reference) = (&c.runtime, &c.reference);
    let geomean = c.switch_bound_geomean;
    let (factor, word) = if geomean >= 1.0 { (geomean, "slower") } else { (1.0 / geomean, "faster") };
    let mut line = format!(
        "{runtime} is {factor:.1}× {word} than {reference} on switch-bound rows (geometric mean of {} rows)",
        c.rows
    );
    if let Some(RatioCi { ratio, low, high }) = c.raw_switch {
        line += &format!(
            "; raw switch round trip {runtime} / {reference} = {} (95% CI {}–{})",
            format_ratio(ratio),
            format_ratio(low),
            format_ratio(high)
        );
    }
    line
}

/// The report's `primitives` section (docs/ARCHITECTURE.md "Renderers").
pub const PRIMITIVES: Section = Section {
    key: "primitives",
    title: "Souvatzis timing table: primitives by runtime",
    about: "Souvatzis's timing table: rows of primitives, one column per runtime",
    position: 10,
    render: primitives_table,
};
