//! Ben-Asher & Feitelson 1991 §3.1's Fig. 1 and Fig. 2 as tables, from `mem.contention` and `mem.mix`: rows are the
//! threads, columns the op (Fig. 1, time per access) or the shared writes per block x (Fig. 2, time per
//! block of 100), each with its fitted line `a + b·threads` below, as the study read its figures ("a linear
//! relationship exists between the number of processors and the elapsed time").

use std::collections::BTreeSet;

use comfy_table::{Cell, CellAlignment};

use overhead_humanize::format_ns;
use overhead_record::{FitRecord, PointRecord, RunRecord};
use overhead_render::new_table;
use overhead_render::Format;
use overhead_schema::experiments::mem::{ContentionParams, MixParams, Op, X_VALUES};

/// Fig. 1 then Fig. 2, one blank line apart; each empty without its experiment's points, so empty when the
/// record has neither.
pub fn render(record: &RunRecord, format: Format) -> String {
    let parts = [contention(record, format), mix(record, format)];
    parts.into_iter().filter(|p| !p.is_empty()).collect::<Vec<_>>().join("\n")
}

/// `mem.contention`: rows = threads, columns = store / atomic add (ns per access), then a fit per op.
fn contention(record: &RunRecord, format: Format) -> String {
    let points = of(record, overhead_schema::experiments::mem::CONTENTION);
    if points.is_empty() {
        return String::new();
    }
    let params = |p: &PointRecord| p.spec.params_as::<ContentionParams>().ok();
    let ops: Vec<Op> =
        Op::ALL.into_iter().filter(|op| points.iter().any(|p| params(p).is_some_and(|q| q.op == *op))).collect();
    let columns: Vec<(String, &str)> = ops.iter().map(|op| (op.label().to_string(), op.name())).collect();
    let mut out = subheading(
        "mem.contention: time per access to one shared line vs. threads (Ben-Asher & Feitelson 1991 Fig. 1)",
        format,
    );
    out +=
        &threads_table(&points, &|p| params(p).map(|q| (q.threads as u64, q.op.name().to_string())), &columns, format);
    out += "cells: median per access (store or atomic add, 100 in-line per iteration, empty loop subtracted) ± \
            half-width of its 95% CI; the slope b is what each added writer adds to every access (the study's bus \
            served one access at a time: a line)\n";
    out += &formulas(record, overhead_schema::experiments::mem::CONTENTION, "op", &columns, format);
    out
}

/// `mem.mix`: rows = threads, columns = x (ns per block of 100 operations), then a fit per x.
fn mix(record: &RunRecord, format: Format) -> String {
    let points = of(record, overhead_schema::experiments::mem::MIX);
    if points.is_empty() {
        return String::new();
    }
    let params = |p: &PointRecord| p.spec.params_as::<MixParams>().ok();
    let names: Vec<String> = X_VALUES.iter().map(u32::to_string).collect();
    let columns: Vec<(String, &str)> = names
        .iter()
        .filter(|x| points.iter().any(|p| params(p).is_some_and(|q| q.x.to_string() == **x)))
        .map(|x| (format!("x = {x}"), x.as_str()))
        .collect();
    let mut out = subheading(
        "mem.mix: time per block of 100 operations, x of them shared writes, vs. threads (Ben-Asher & Feitelson 1991 Fig. 2)",
        format,
    );
    out += &threads_table(&points, &|p| params(p).map(|q| (q.threads as u64, q.x.to_string())), &columns, format);
    out += "cells: median per block (x stores to one line shared by all threads, 100 − x increments of a local \
            in memory, empty loop subtracted) ± half-width of its 95% CI; the slope b is what each added thread \
            costs a block: about nothing at x = 1, most at x = 100, where the block is Fig. 1's stores\n";
    out += &formulas(record, overhead_schema::experiments::mem::MIX, "x", &columns, format);
    out
}

/// The points of `experiment`.
fn of<'a>(record: &'a RunRecord, experiment: &str) -> Vec<&'a PointRecord> {
    record.points.iter().filter(|p| p.spec.experiment == experiment).collect()
}

fn subheading(title: &str, format: Format) -> String {
    match format {
        Format::Table => format!("{title}\n"),
        Format::Md => format!("### {title}\n\n"),
    }
}

/// A point's team size and the value of its column parameter (the op, or x), from its typed parameters.
type Place<'a> = &'a dyn Fn(&PointRecord) -> Option<(u64, String)>;

/// Rows = every thread count of `points`, columns = `(label, column value)`, cells = median ± CI
/// half-width with the point's flags, `—` where there is no point.
fn threads_table(points: &[&PointRecord], place: Place, columns: &[(String, &str)], format: Format) -> String {
    let threads = |p: &PointRecord| place(p).map(|(t, _)| t);
    let rows: BTreeSet<u64> = points.iter().filter_map(|p| threads(p)).collect();
    let mut table = new_table(format);
    let mut header = vec!["threads".to_string()];
    header.extend(columns.iter().map(|(label, _)| label.clone()));
    table.set_header(header);
    for k in rows {
        let mut row = vec![Cell::new(k)];
        for (_, value) in columns {
            let p = points.iter().find(|p| place(p).is_some_and(|(t, v)| t == k && v == *value));
            row.push(Cell::new(p.map_or_else(|| "—".to_string(), |p| cell(p))).set_alignment(CellAlignment::Right));
        }
        table.add_row(row);
    }
    format!("{table}\n")
}

/// `median ±half-width`, then the flags that say not to read the number at face value.
fn cell(p: &PointRecord) -> String {
    let s = &p.summary;
    let mut text = format!("{} ±{}", format_ns(s.median), format_ns(s.ci_half_width()));
    let flags: Vec<&str> =
        [(p.shown_unstable(), "unstable"), (p.below_resolution, "<res"), (p.slow, "slow"), (p.shown_noisy(), "noisy")]
            .into_iter()
            .filter_map(|(on, name)| on.then_some(name))
            .collect();
    if !flags.is_empty() {
        text += &format!(" ({})", flags.join(","));
    }
    text
}

/// One line per fit of `experiment` whose series is `key:value` of a column: `label: a + b·threads (r², points)`.
fn formulas(record: &RunRecord, experiment: &str, key: &str, columns: &[(String, &str)], format: Format) -> String {
    let bullet = if format == Format::Md { "- " } else { "  " };
    let is = |f: &FitRecord, value: &str| f.series.iter().any(|(k, v)| k == key && v == value);
    let mut out = String::new();
    for (label, value) in columns {
        for f in record.fits.iter().filter(|f| f.experiment == experiment && is(f, value)) {
            out += &format!("{bullet}{label}: {}\n", f.formula(format_ns));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};

    /// Fig. 1 points (store 2 + 30·k ns, atomic add 10 + 40·k ns) and Fig. 2 points (100 + x·k ns) for
    /// k = 1, 2, 4, with their fits derived as a run derives them.
    fn record() -> RunRecord {
        let mut record = sample_record();
        record.points.clear();
        for k in [1u32, 2, 4] {
            let (t, kf) = (k.to_string(), f64::from(k));
            record.points.push(point("mem.contention", "os", &[("op", "store"), ("threads", &t)], 2.0 + 30.0 * kf));
            record.points.push(point(
                "mem.contention",
                "os",
                &[("op", "atomic_add"), ("threads", &t)],
                10.0 + 40.0 * kf,
            ));
            for x in X_VALUES {
                let xs = x.to_string();
                record.points.push(point("mem.mix", "os", &[("x", &xs), ("threads", &t)], 100.0 + f64::from(x) * kf));
            }
        }
        record.points[0].unstable = true;
        record.fits = overhead_analysis::fits::derive_fits(&record.points);
        record
    }

    #[test]
    fn fig1_rows_are_threads_columns_ops_with_a_line_per_op() {
        let text = render(&record(), Format::Md);
        assert!(text.contains("### mem.contention"), "{text}");
        let header = text.lines().find(|l| l.starts_with("| threads") && l.contains("store")).unwrap();
        assert!(header.find("store").unwrap() < header.find("atomic add").unwrap(), "{header}");
        let row4 = text.lines().find(|l| l.starts_with("| 4 ") && l.contains("122 ns")).unwrap();
        assert!(row4.contains("170 ns ±"), "{row4}");
        let row1 = text.lines().find(|l| l.starts_with("| 1 ") && l.contains("32.0 ns")).unwrap();
        assert!(row1.contains("(unstable)"), "{row1}");
        // Exact data: each coefficient's standard error is zero.
        assert!(
            text.contains("- store: (2.00 ns ± 0.000 ns) + (30.0 ns ± 0.000 ns)·threads (r² 1.000, 3 points)"),
            "{text}"
        );
        // a comes out of the fit within rounding of 10 ns (10.0 or 10.00 ns); b and r² are exact in print.
        let add = text.lines().find(|l| l.starts_with("- atomic add: (10.0")).unwrap();
        assert!(add.ends_with(" + (40.0 ns ± 0.000 ns)·threads (r² 1.000, 3 points)"), "{add}");
        assert!(text.contains("what each added writer adds"), "{text}");
    }

    #[test]
    fn fig2_rows_are_threads_columns_x_with_a_line_per_x() {
        let text = render(&record(), Format::Table);
        assert!(text.contains("mem.mix: time per block"), "{text}");
        let header = text.lines().find(|l| l.contains("x = 1 ") && l.contains("x = 100")).unwrap();
        assert!(header.find("x = 20").unwrap() < header.find("x = 50").unwrap(), "{header}");
        // threads 4, x = 100: 500 ns; x = 50: 300 ns.
        let row4 = text.lines().find(|l| l.contains("500 ns ±")).unwrap();
        assert!(row4.contains("300 ns ±") && row4.contains(" 4 "), "{row4}");
        for x in X_VALUES {
            let fit = text.lines().find(|l| l.starts_with(&format!("  x = {x}: (100"))).unwrap();
            let slope = format_ns(f64::from(x));
            assert!(fit.ends_with(&format!(" + ({slope} ± 0.000 ns)·threads (r² 1.000, 3 points)")), "{fit}");
        }
        assert!(text.find("mem.contention").unwrap() < text.find("mem.mix").unwrap());
    }

    #[test]
    fn missing_cells_and_parts_are_left_out() {
        let mut record = record();
        record.points.retain(|p| p.spec.experiment == "mem.mix" && p.spec.param("x") != Some("20"));
        record.points.retain(|p| !(p.spec.param("x") == Some("10") && p.spec.param("threads") == Some("2")));
        let text = render(&record, Format::Md);
        assert!(!text.contains("mem.contention") && !text.contains("x = 20"), "{text}");
        let row2 = text.lines().find(|l| l.starts_with("| 2 ")).unwrap();
        assert!(row2.contains('—'), "{row2}");
        assert!(render(&sample_record(), Format::Table).is_empty());
        assert!(render(&sample_record(), Format::Md).is_empty());
    }
}
