//! Ben-Asher & Feitelson 1991 §3.2, Table 2 ("number of accesses performed by different PEs, when all compete for the
//! bus"), from `mem.fairness`: per access kind, one row per thread — its serial number and CPU — with its
//! accesses per 1000 of the first thread's, the study's own column beside it, then a line with max/min,
//! Jain's index and how many consecutive accesses a core gets before the line moves.

use comfy_table::{Cell, CellAlignment};

use overhead_humanize::format_ns;
use overhead_record::{LabelledTable, PointRecord, RunRecord};
use overhead_render::new_table;
use overhead_render::Format;
use overhead_schema::experiments::mem::FairnessResult;

/// The experiment this part reads.
const EXPERIMENT: &str = overhead_schema::experiments::mem::FAIRNESS;

/// Ben-Asher & Feitelson 1991 Table 2: accesses of PEs 1–10 per 1000 of PE 1's.
pub const SEED_TABLE_2: [u32; 10] = [1000, 993, 893, 688, 671, 658, 501, 501, 501, 501];

/// One Table 2 per `mem.fairness` point (per access kind), each with its summary line; skipped points
/// with their reasons. Empty when the record has none.
pub fn render(record: &RunRecord, format: Format) -> String {
    let points: Vec<&PointRecord> = record.points.iter().filter(|p| p.spec.experiment == EXPERIMENT).collect();
    let skipped: Vec<String> = record
        .skipped
        .iter()
        .filter(|s| s.spec.experiment == EXPERIMENT)
        .map(|s| format!("{}: no result — {}", access_of(&s.spec.params), s.reason))
        .collect();
    if points.is_empty() && skipped.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    for p in &points {
        if !out.is_empty() {
            out += "\n";
        }
        let access = access_of(&p.spec.params);
        out += &heading(
            &format!("mem.fairness, {access}: accesses per thread when all compete for one line (Ben-Asher & Feitelson 1991 Table 2)"),
            format,
        );
        match p.details.tables.get("counts") {
            Some(counts) => {
                out += &format!("{}\n", counts_table(counts, format));
                out += &summary_line(p, format);
            }
            None => out += "no per-thread counts in the record\n",
        }
    }
    let bullet = if format == Format::Md { "- " } else { "  " };
    for line in skipped {
        out += &format!("{bullet}{line}\n");
    }
    out
}

fn heading(title: &str, format: Format) -> String {
    match format {
        Format::Table => format!("{title}\n"),
        Format::Md => format!("### {title}\n\n"),
    }
}

fn access_of(params: &[(String, String)]) -> &str {
    params.iter().find(|(k, _)| k == "access").map_or("?", |(_, v)| v.as_str())
}

/// Rows: serial number (1-based, with the thread's CPU); number of accesses per 1000 of the first; the
/// study's value for that serial number; mean consecutive accesses where measured.
fn counts_table(counts: &LabelledTable, format: Format) -> String {
    let column = |name: &str| counts.columns.iter().position(|c| c == name);
    let (per_1000, consecutive) = (column("per 1000 of thread 0"), column("mean consecutive accesses"));
    let has_consecutive =
        counts.rows.iter().any(|(_, r)| consecutive.and_then(|c| r.get(c).copied().flatten()).is_some());
    let mut table = new_table(format);
    let mut header = vec!["serial number", "number of accesses (per 1000 of the first)", "Ben-Asher & Feitelson 1991"];
    if has_consecutive {
        header.push("mean consecutive accesses");
    }
    table.set_header(header);
    let right = |text: String| Cell::new(text).set_alignment(CellAlignment::Right);
    for (i, (label, values)) in counts.rows.iter().enumerate() {
        let get = |c: Option<usize>| c.and_then(|c| values.get(c).copied().flatten());
        let cpu = label.find("(CPU").map_or(String::new(), |at| format!(" {}", &label[at..]));
        let mut row = vec![
            Cell::new(format!("{}{cpu}", i + 1)),
            right(get(per_1000).map_or("—".into(), |v| format!("{v:.0}"))),
            right(SEED_TABLE_2.get(i).map_or(String::new(), |v| v.to_string())),
        ];
        if has_consecutive {
            row.push(right(get(consecutive).map_or("—".into(), |v| format!("{v:.1}"))));
        }
        table.add_row(row);
    }
    table.to_string()
}

/// "max/min …, Jain's index …, mean consecutive accesses …, N accesses in W windows of … (… per access)".
fn summary_line(p: &PointRecord, format: Format) -> String {
    let r = p.result_as::<FairnessResult>().ok();
    let mut parts = Vec::new();
    if let Some(r) = r.and_then(|r| r.max_over_min) {
        parts.push(format!("max/min {r:.2}"));
    }
    if let Some(j) = r.and_then(|r| r.jain_index) {
        parts.push(format!("Jain's index {j:.3}"));
    }
    if let Some(c) = r.and_then(|r| r.mean_consecutive_accesses) {
        parts.push(format!("mean consecutive accesses {c:.1}"));
    }
    if let Some(FairnessResult { total_accesses: total, windows, window_ms: ms, .. }) = r {
        let window = format!(" of {ms:.1} ms");
        parts.push(format!(
            "{total:.0} accesses in {windows:.0} windows{window}, {} per access of a thread while all compete",
            format_ns(p.summary.median)
        ));
    }
    let bullet = if format == Format::Md { "- " } else { "  " };
    let mut out = format!("{bullet}{}\n", parts.join("; "));
    for note in &p.notes {
        out += &format!("{bullet}note: {note}\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};
    use overhead_record::{SkipKind, SkippedPoint};

    fn fairness_point(access: &str, counts: &[f64], consecutive: bool) -> PointRecord {
        let mut p = point("mem.fairness", "os", &[("access", access)], 12.5);
        let first = counts[0];
        p.details.tables.insert(
            "counts".into(),
            LabelledTable {
                title: "t".into(),
                unit: "count".into(),
                columns: vec!["accesses".into(), "per 1000 of thread 0".into(), "mean consecutive accesses".into()],
                rows: counts
                    .iter()
                    .enumerate()
                    .map(|(i, &c)| {
                        (
                            format!("thread {i} (CPU {})", 2 * i),
                            vec![Some(c), Some(1000.0 * c / first), consecutive.then_some(3.5)],
                        )
                    })
                    .collect(),
            },
        );
        p.extra = [
            ("jain_index".to_string(), 0.9876),
            ("max_over_min".to_string(), 2.0),
            ("total_accesses".to_string(), counts.iter().sum()),
            ("windows".to_string(), 5.0),
            ("window_ms".to_string(), 5.0),
        ]
        .into();
        if consecutive {
            p.extra.insert("mean_consecutive_accesses".into(), 3.5);
        }
        p.notes.clear();
        p
    }

    #[test]
    fn table_2_layout_per_access_kind() {
        let mut record = sample_record();
        record.points = vec![
            fairness_point("atomic_inc", &[2000.0, 1000.0], true),
            fairness_point("neighbour_inc", &[500.0, 250.0], false),
        ];
        record.skipped.clear();
        for format in [Format::Md, Format::Table] {
            let text = render(&record, format);
            assert!(
                text.contains("mem.fairness, atomic_inc") && text.contains("mem.fairness, neighbour_inc"),
                "{text}"
            );
            assert!(text.contains("serial number") && text.contains("Ben-Asher & Feitelson 1991"), "{text}");
            let row2 = text.lines().find(|l| l.contains("2 (CPU 2)")).unwrap();
            assert!(row2.contains("500") && row2.contains("993") && row2.contains("3.5"), "{row2}");
            assert!(text.contains("max/min 2.00; Jain's index 0.988; mean consecutive accesses 3.5"), "{text}");
            assert!(text.contains("3000 accesses in 5 windows of 5.0 ms, 12.5 ns per access"), "{text}");
            // neighbour_inc has no consecutive column: its header row has three columns.
            let second = &text[text.find("mem.fairness, neighbour_inc").unwrap()..];
            let header = second.lines().find(|l| l.contains("serial number")).unwrap();
            assert!(!header.contains("consecutive"), "{header}");
        }
        assert!(render(&record, Format::Md).contains("### mem.fairness, atomic_inc"));
    }

    #[test]
    fn empty_without_points_and_skips_listed() {
        let record = sample_record();
        assert!(render(&record, Format::Table).is_empty());
        let mut record = sample_record();
        let spec = point("mem.fairness", "os", &[("access", "atomic_inc")], 1.0).spec;
        record.skipped.push(SkippedPoint::new(spec, SkipKind::Skipped, "needs two usable CPUs"));
        let text = render(&record, Format::Md);
        assert!(text.contains("atomic_inc: no result — needs two usable CPUs"), "{text}");
    }
}
