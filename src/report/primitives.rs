//! Seed 004's timing table for today's runtimes: one row per primitive, one column per runtime,
//! medians with the half-width of their 95% CI, and how each runtime compares with `fiber-asm` on the
//! rows whose cost is dominated by switching.

use super::table::new_table;
use comfy_table::{Cell, CellAlignment};

use super::{format_ns, Format};
use crate::record::{PointSpec, RunRecord};
use crate::runtimes::column_rank;
use crate::stats::Summary;

/// One row: its label in seed 004's words, the experiment, the parameter values that pick the point
/// (a key may accept several values: `os` spawns a thread where the others spawn a task), and whether
/// the row is switch-bound.
struct Row {
    label: &'static str,
    experiment: &'static str,
    params: &'static [(&'static str, &'static [&'static str])],
    switch_bound: bool,
}

const ROWS: &[Row] = &[
    Row { label: "loop control overhead", experiment: "base.loop", params: &[], switch_bound: false },
    Row { label: "local call", experiment: "base.call", params: &[], switch_bound: false },
    Row {
        label: "inter-task call, no new task",
        experiment: "msg.call",
        params: &[("new_task", &["no"])],
        switch_bound: false,
    },
    Row {
        label: "inter-task call, new task",
        experiment: "msg.call",
        params: &[("new_task", &["yes"])],
        switch_bound: true,
    },
    Row {
        label: "task create/destroy",
        experiment: "spawn.create",
        params: &[("kind", &["thread", "task"])],
        switch_bound: true,
    },
    Row { label: "semaphore P only", experiment: "sync.sem", params: &[("op", &["p"])], switch_bound: false },
    Row { label: "semaphore V only", experiment: "sync.sem", params: &[("op", &["v"])], switch_bound: false },
    Row { label: "semaphore pair", experiment: "sync.sem", params: &[("op", &["pair"])], switch_bound: false },
    Row {
        label: "semaphore requiring switch",
        experiment: "sync.sem",
        params: &[("op", &["switch"])],
        switch_bound: true,
    },
    Row { label: "asynchronous send/receive", experiment: "msg.async", params: &[], switch_bound: false },
    Row { label: "message requiring switch", experiment: "msg.switch", params: &[], switch_bound: true },
    Row { label: "rendezvous", experiment: "msg.rendezvous", params: &[], switch_bound: true },
    Row {
        label: "switch round trip (csloop)",
        experiment: "sched.switch",
        params: &[("placement", &["same_cpu"])],
        switch_bound: true,
    },
];

/// The runtime every other column is compared with.
const REFERENCE: &str = "fiber-asm";

fn matches(row: &Row, spec: &PointSpec, runtime: &str) -> bool {
    spec.experiment == row.experiment
        && spec.runtime == runtime
        && row.params.iter().all(|(k, values)| spec.param(k).is_none_or(|v| values.contains(&v)))
}

/// The runtimes the record has anything for, seed 004's columns first.
fn columns(record: &RunRecord) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    let specs = record.points.iter().map(|p| &p.spec).chain(record.skipped.iter().map(|s| &s.spec));
    for spec in specs {
        if ROWS.iter().any(|r| r.experiment == spec.experiment) && !seen.contains(&spec.runtime) {
            seen.push(spec.runtime.clone());
        }
    }
    seen.sort_by_key(|r| column_rank(r));
    seen
}

/// The median (ns) of the row's point for `runtime`, if measured.
fn median(record: &RunRecord, row: &Row, runtime: &str) -> Option<f64> {
    summary(record, row, runtime).map(|s| s.median)
}

/// The summary of the row's point for `runtime`, if measured.
fn summary<'r>(record: &'r RunRecord, row: &Row, runtime: &str) -> Option<&'r Summary> {
    record.points.iter().find(|p| matches(row, &p.spec, runtime)).map(|p| &p.summary)
}

/// The ratio of two medians `a / b` with a conservative 95% interval built from their own 95% CIs
/// (`a.ci_low / b.ci_high` to `a.ci_high / b.ci_low`): the ratio is "≤ 1 within its CI" when the low end is.
/// `None` when either CI reaches zero.
fn ratio_with_ci(a: &Summary, b: &Summary) -> Option<(f64, f64, f64)> {
    (b.median > 0.0 && b.ci_low > 0.0).then(|| (a.median / b.median, a.ci_low / b.ci_high, a.ci_high / b.ci_low))
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
    let mut header = vec!["primitive (seed 004)".to_string()];
    header.extend(runtimes.iter().cloned());
    table.set_header(header);
    let mut footnotes: Vec<String> = Vec::new();
    for row in ROWS {
        let mut cells = vec![Cell::new(row.label)];
        for runtime in &runtimes {
            let point = record.points.iter().find(|p| matches(row, &p.spec, runtime));
            let text = match point {
                Some(p) => format!("{} ±{}", format_ns(p.summary.median), format_ns(p.summary.ci_half_width())),
                None => {
                    let skipped = record.skipped.iter().find(|s| matches(row, &s.spec, runtime));
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
    out += "cells: median per operation ± half-width of its 95% CI\n";
    for runtime in runtimes.iter().filter(|r| r.as_str() != REFERENCE) {
        if let Some(line) = comparison(record, runtime) {
            out += &format!("{line}\n");
        }
    }
    out
}

/// "R is 3.2× slower than fiber-asm on switch-bound rows (geometric mean of 6 rows); raw switch round trip
/// R / fiber-asm = 1.31 (95% CI 1.22–1.40)". The second part is the issue-3 criterion (asm no slower than
/// corosensei), read off one ratio instead of two cells.
fn comparison(record: &RunRecord, runtime: &str) -> Option<String> {
    let ratios: Vec<f64> = ROWS
        .iter()
        .filter(|r| r.switch_bound)
        .filter_map(|r| Some(median(record, r, runtime)? / median(record, r, REFERENCE)?))
        .filter(|x| x.is_finite() && *x > 0.0)
        .collect();
    if ratios.is_empty() {
        return None;
    }
    let geomean = (ratios.iter().map(|x| x.ln()).sum::<f64>() / ratios.len() as f64).exp();
    let (factor, word) = if geomean >= 1.0 { (geomean, "slower") } else { (1.0 / geomean, "faster") };
    let mut line = format!(
        "{runtime} is {factor:.1}× {word} than {REFERENCE} on switch-bound rows (geometric mean of {} rows)",
        ratios.len()
    );
    let csloop = ROWS.iter().find(|r| r.experiment == "sched.switch").expect("csloop row");
    if let Some((ratio, low, high)) =
        summary(record, csloop, runtime).zip(summary(record, csloop, REFERENCE)).and_then(|(a, b)| ratio_with_ci(a, b))
    {
        line += &format!(
            "; raw switch round trip {runtime} / {REFERENCE} = {} (95% CI {}–{})",
            ratio_digits(ratio),
            ratio_digits(low),
            ratio_digits(high)
        );
    }
    Some(line)
}

/// Three significant digits for ratios from 0.001 to thousands.
fn ratio_digits(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::fixture::{point, sample_record};
    use crate::record::{SkipKind, SkippedPoint};

    #[test]
    fn rows_columns_footnotes_and_comparison() {
        let mut record = sample_record();
        record.points = vec![
            point("sched.switch", "fiber-asm", &[("mechanism", "raw_switch"), ("placement", "same_cpu")], 10.0),
            point("sched.switch", "fiber-ucontext", &[("mechanism", "raw_switch"), ("placement", "same_cpu")], 400.0),
            point("spawn.create", "fiber-asm", &[("kind", "task")], 50.0),
            point("spawn.create", "fiber-ucontext", &[("kind", "task")], 200.0),
            point("spawn.create", "os", &[("kind", "process")], 1e5),
            point("spawn.create", "os", &[("kind", "thread")], 3e4),
            point("base.loop", "tokio", &[], 0.3),
        ];
        let spec = point("msg.rendezvous", "tokio", &[("placement", "same_cpu")], 1.0).spec;
        record.skipped = vec![SkippedPoint::new(spec, SkipKind::Failed, "it broke")];
        let text = primitives_table(&record, Format::Md);
        let header = text.lines().next().unwrap();
        // seed 004's column order, whatever order the points came in
        let (os, asm, ucontext, tokio) = (
            header.find("os").unwrap(),
            header.find("fiber-asm").unwrap(),
            header.find("ucontext").unwrap(),
            header.find("tokio").unwrap(),
        );
        assert!(os < asm && asm < ucontext && ucontext < tokio, "{header}");
        let create = text.lines().find(|l| l.contains("task create/destroy")).unwrap();
        assert!(create.contains("30.0 µs"), "os shows the thread, not the process: {create}");
        assert!(text.contains("[1] rendezvous / tokio: it broke"), "{text}");
        // ucontext/asm: 40× on the switch, 4× on create: geometric mean √160 ≈ 12.6
        assert!(
            text.contains(
                "fiber-ucontext is 12.6× slower than fiber-asm on switch-bound rows (geometric mean of 2 rows)"
            ),
            "{text}"
        );
        // The raw switch ratio comes with an interval from the two medians' CIs, around the ratio itself.
        let line = text.lines().find(|l| l.starts_with("fiber-ucontext is")).unwrap();
        let tail = line.split("raw switch round trip fiber-ucontext / fiber-asm = 40.0 (95% CI ").nth(1).expect(line);
        let bounds: Vec<f64> = tail.trim_end_matches(')').split('–').map(|x| x.parse().unwrap()).collect();
        assert!(bounds[0] < 40.0 && 40.0 < bounds[1], "{line}");
    }

    #[test]
    fn ratio_interval_is_built_from_both_cis() {
        let mut a = Summary::of(&[2.0, 2.0, 2.0]).unwrap();
        let mut b = a.clone();
        (a.ci_low, a.ci_high) = (1.8, 2.4);
        (b.ci_low, b.ci_high) = (1.6, 2.5);
        let (ratio, low, high) = ratio_with_ci(&a, &b).unwrap();
        assert_eq!((ratio, low, high), (1.0, 1.8 / 2.5, 2.4 / 1.6));
        b.ci_low = 0.0;
        assert!(ratio_with_ci(&a, &b).is_none(), "a CI reaching zero gives no bounded ratio");
    }

    #[test]
    fn empty_without_table_experiments() {
        assert!(primitives_table(&sample_record(), Format::Table).is_empty());
    }
}
