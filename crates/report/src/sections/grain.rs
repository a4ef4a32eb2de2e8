//! Ben-Asher & Feitelson 1991 Table 4 for today's runtimes: elapsed time and speed-up of a fixed amount of work split
//! into 1, 10, … tasks, one column pair per runtime, the best decade marked; the refined best count;
//! and Fig. 7, each CPU's share of the tasks.

use crate::sections::Section;
use comfy_table::{Cell, CellAlignment};
use overhead_render::new_table;

use overhead_humanize::format_ns;
use overhead_record::Catalog as _;
use overhead_record::{LabelledTable, PointRecord, RunRecord};
use overhead_render::Format;
use overhead_schema::experiments::grain::{tables, SweepResult};

/// The experiment this section reads.
const EXPERIMENT: &str = overhead_schema::experiments::grain::SWEEP;

/// The value of `column` in the row labelled `label` of `table`.
fn cell(table: &LabelledTable, label: &str, column: &str) -> Option<f64> {
    let col = table.columns.iter().position(|c| c == column)?;
    table.rows.iter().find(|(l, _)| l == label)?.1.get(col).copied().flatten()
}

/// The sweep's points, in runtime order.
fn sweep_points(record: &RunRecord) -> Vec<&PointRecord> {
    let mut points: Vec<&PointRecord> = record.points.iter().filter(|p| p.spec.experiment == EXPERIMENT).collect();
    points.sort_by_key(|p| (record.catalog.runtime_rank(&p.spec.runtime), p.name.clone()));
    points
}

/// The granularity table (rows: tasks; per runtime: fastest elapsed run, `*` on the best decade, and
/// speed-up over one task), a line per runtime with the refined best count, the per-CPU share tables,
/// and the skipped runtimes with their reasons. Empty when the record has no `grain.sweep` point.
pub fn grain_table(record: &RunRecord, format: Format) -> String {
    let points = sweep_points(record);
    let skipped: Vec<String> = record
        .skipped
        .iter()
        .filter(|s| s.spec.experiment == EXPERIMENT)
        .map(|s| format!("{}: no result — {}", s.spec.runtime, s.reason))
        .collect();
    if points.is_empty() && skipped.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    if !points.is_empty() {
        out += &elapsed_table(&points, format);
        out += "elapsed: fastest run of the whole work (median and p90 in the record); * the best decade; \
                speed-up: one task's time over n tasks'\n";
        for p in &points {
            out += &best_line(p);
        }
        for p in &points {
            if let Some(share) = p.details.tables.get(tables::SHARE) {
                out += &format!(
                    "\n{}: share of the tasks run on each CPU, % (Ben-Asher & Feitelson 1991 Fig. 7)\n",
                    p.spec.runtime
                );
                out += &share_table(share, format);
            }
        }
    }
    for line in skipped {
        out += &format!("{line}\n");
    }
    out
}

fn elapsed_table(points: &[&PointRecord], format: Format) -> String {
    let mut counts: Vec<u64> = points
        .iter()
        .filter_map(|p| p.details.tables.get(tables::SWEEP))
        .flat_map(|t| t.rows.iter().filter_map(|(label, _)| label.parse().ok()))
        .collect();
    counts.sort_unstable();
    counts.dedup();
    let mut table = new_table(format);
    let mut header = vec!["tasks".to_string()];
    for p in points {
        header.push(format!("{} elapsed", p.spec.runtime));
        header.push(format!("{} speed-up", p.spec.runtime));
    }
    table.set_header(header);
    let right = |text: String| Cell::new(text).set_alignment(CellAlignment::Right);
    for tasks in counts {
        let label = tasks.to_string();
        let mut row = vec![right(label.clone())];
        for p in points {
            let elapsed = p.details.tables.get(tables::SWEEP).and_then(|t| cell(t, &label, "min"));
            let speedup = p.details.tables.get(tables::SPEEDUP).and_then(|t| cell(t, &label, "speedup"));
            let best = p.result_as::<SweepResult>().ok().and_then(|r| r.best_decade_tasks) == Some(tasks as f64);
            row.push(right(match elapsed {
                Some(e) => format!("{}{}", format_ns(e), if best { " *" } else { "" }),
                None => "—".into(),
            }));
            row.push(right(speedup.map_or("—".into(), |s| format!("{s:.2}×"))));
        }
        table.add_row(row);
    }
    format!("{table}\n{}", blank_after_table(format))
}

/// Markdown needs an empty line to end a table before the next paragraph.
fn blank_after_table(format: Format) -> &'static str {
    if format == Format::Md {
        "\n"
    } else {
        ""
    }
}

/// "os: best 1900 tasks (refined: 13 counts tried) — 85.0 ms, 4.52× over one task (384 ms)".
fn best_line(p: &PointRecord) -> String {
    let r = p.result_as::<SweepResult>().ok();
    let get = |field: fn(&SweepResult) -> f64| r.as_ref().map_or(f64::NAN, field);
    let tried = p.details.tables.get(tables::REFINE).map_or(0, |t| t.rows.len());
    format!(
        "{}: best {} tasks (refined: {tried} counts tried around the best decade) — {}, {:.2}× over one task ({})\n",
        p.spec.runtime,
        get(|r| r.best_tasks),
        format_ns(get(|r| r.best_ns)),
        get(|r| r.speedup),
        format_ns(get(|r| r.serial_ns)),
    )
}

fn share_table(share: &LabelledTable, format: Format) -> String {
    // The "other CPUs" column only when some task ran outside the point's CPUs.
    let keep: Vec<usize> = (0..share.columns.len())
        .filter(|&c| share.columns[c] != "other" || share.rows.iter().any(|(_, v)| v[c].is_some_and(|x| x > 0.0)))
        .collect();
    let mut table = new_table(format);
    let mut header = vec!["tasks".to_string()];
    header.extend(keep.iter().map(|&c| share.columns[c].clone()));
    table.set_header(header);
    for (label, values) in &share.rows {
        let mut row = vec![Cell::new(label).set_alignment(CellAlignment::Right)];
        for &c in &keep {
            let text = values.get(c).copied().flatten().map_or("—".into(), |v| format!("{v:.1}"));
            row.push(Cell::new(text).set_alignment(CellAlignment::Right));
        }
        table.add_row(row);
    }
    format!("{table}\n{}", blank_after_table(format))
}

/// The report's `grain` section (docs/ARCHITECTURE.md "Renderers").
pub const SECTION: Section = Section {
    key: "grain",
    title: "Ben-Asher & Feitelson 1991 Table 4: granularity (grain.sweep)",
    about: "Ben-Asher & Feitelson's granularity table: elapsed time and speed-up per task count and runtime",
    position: 110,
    render: grain_table,
};

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};
    use overhead_record::{SkipKind, SkippedPoint};

    fn table(columns: &[&str], unit: &str, rows: &[(&str, &[f64])]) -> LabelledTable {
        LabelledTable {
            title: "t".into(),
            unit: unit.into(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: rows.iter().map(|(l, v)| (l.to_string(), v.iter().map(|&x| Some(x)).collect())).collect(),
        }
    }

    fn sweep_point(runtime: &str, elapsed: &[(&str, f64)], best_decade: f64) -> PointRecord {
        let mut p = point(EXPERIMENT, runtime, &[("threads", "2"), ("work", "1000")], 1.0);
        let rows: Vec<(&str, [f64; 3])> = elapsed.iter().map(|&(l, e)| (l, [e * 1.1, e, e * 1.5])).collect();
        let rows: Vec<(&str, &[f64])> = rows.iter().map(|(l, v)| (*l, &v[..])).collect();
        p.details.tables.insert(tables::SWEEP.into(), table(&["median", "min", "p90"], "ns", &rows));
        let serial = elapsed[0].1;
        let speed: Vec<(&str, [f64; 1])> = elapsed.iter().map(|&(l, e)| (l, [serial / e])).collect();
        let speed: Vec<(&str, &[f64])> = speed.iter().map(|(l, v)| (*l, &v[..])).collect();
        p.details.tables.insert(tables::SPEEDUP.into(), table(&["speedup"], "×", &speed));
        p.details.tables.insert(
            tables::SHARE.into(),
            table(&["cpu 0", "cpu 1", "other"], "%", &[("1", &[100.0, 0.0, 0.0]), ("10", &[40.0, 60.0, 0.0])]),
        );
        p.extra = [
            ("best_decade_tasks".to_string(), best_decade),
            ("best_tasks".into(), 1900.0),
            ("best_ns".into(), 85.005e9),
            ("speedup".into(), 4.52),
            ("serial_ns".into(), serial),
            ("work_reads".into(), 1e6),
            ("refine_evaluations".into(), 13.0),
        ]
        .into();
        p
    }

    #[test]
    fn rows_per_task_count_columns_per_runtime_best_marked() {
        let mut record = sample_record();
        record.points = vec![
            sweep_point("tokio", &[("1", 4e6), ("10", 2e6)], 10.0),
            sweep_point("os", &[("1", 384.35e9), ("10", 100.23e9), ("100", 100.21e9)], 100.0),
        ];
        let spec = point(EXPERIMENT, "fiber-asm", &[], 1.0).spec;
        record.skipped = vec![SkippedPoint::new(spec, SkipKind::Skipped, "one CPU")];
        let text = grain_table(&record, Format::Md);
        let header = text.lines().next().unwrap();
        assert!(header.find("os elapsed").unwrap() < header.find("tokio elapsed").unwrap(), "{header}");
        let row = |tasks: &str| {
            let first_cell = |l: &str| l.split('|').nth(1).map(str::trim).map(str::to_owned);
            text.lines().find(|l| first_cell(l).as_deref() == Some(tasks)).unwrap_or_else(|| panic!("{text}"))
        };
        let row100 = row("100");
        assert!(row100.contains("100 s *") && row100.contains("3.84×") && row100.contains("—"), "{row100}");
        let row10 = row("10");
        assert!(row10.contains("2.00 ms *"), "tokio's best decade is 10: {row10}");
        assert!(text.contains("os: best 1900 tasks"), "{text}");
        assert!(text.contains("85.0 s, 4.52× over one task (384 s)"), "{text}");
        assert!(text.contains("fiber-asm: no result — one CPU"), "{text}");
        assert!(text.contains("cpu 1") && !text.contains("other"), "the empty other column is dropped: {text}");
    }

    #[test]
    fn empty_without_sweep_points() {
        assert!(grain_table(&sample_record(), Format::Table).is_empty());
    }
}
