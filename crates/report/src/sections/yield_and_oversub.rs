//! Ben-Asher & Feitelson's scheduling and synchronisation figures as tables: the yield round against the load
//! (Fig. 3, one column per runtime) and barriers with many more activities than CPUs (Fig. 10, one
//! table per runtime, one column per variant), each with its fitted formulas below, as the study gives
//! "0.140 + 0.072·load".

use crate::sections::runtimes_of;
use crate::sections::Section;
use overhead_render::new_table;
use std::collections::BTreeSet;

use comfy_table::{Cell, CellAlignment};

use overhead_analysis::fits::too_few_points;
use overhead_humanize::format_ns;
use overhead_record::{FitRecord, PointRecord, RunRecord};
use overhead_render::Format;
use overhead_schema::experiments::sched::YieldParams;
use overhead_schema::experiments::sync::OversubParams;
use overhead_schema::variants::activity_barrier::{BarrierKind, Variant};

/// `sync.oversub`'s columns: (variant, barrier, label).
const OVERSUB_COLUMNS: [(Variant, Option<BarrierKind>, &str); 5] = [
    (Variant::JustSpawn, None, "just spawn"),
    (Variant::SpawnSync, Some(BarrierKind::Yield), "spawn & sync, yield"),
    (Variant::SpawnSync, Some(BarrierKind::Blocking), "spawn & sync, blocking"),
    (Variant::JustSync, Some(BarrierKind::Yield), "just sync, yield"),
    (Variant::JustSync, Some(BarrierKind::Blocking), "just sync, blocking"),
];

/// A barrier's parameter value, as a fit's series names it: `yield`, `blocking`.
fn barrier_name(barrier: BarrierKind) -> &'static str {
    match barrier {
        BarrierKind::Yield => "yield",
        BarrierKind::Blocking => "blocking",
    }
}

/// A `sched.yield` point's parameters: CPUs and load.
fn yield_params(p: &PointRecord) -> Option<YieldParams> {
    p.spec.params_as().ok()
}

/// A `sync.oversub` point's parameters: variant, barrier, CPUs and activities.
fn oversub_params(p: &PointRecord) -> Option<OversubParams> {
    p.spec.params_as().ok()
}

/// Both tables with their formulas; empty when the record has neither `sched.yield` nor
/// `sync.oversub` points.
pub fn yield_and_oversub_tables(record: &RunRecord, format: Format) -> String {
    let mut out = String::new();
    let yield_table = yield_rounds(record, format);
    if !yield_table.is_empty() {
        out += &subheading("sched.yield: time per yield round vs. load (Ben-Asher & Feitelson 1991 Fig. 3)", format);
        out += &yield_table;
    }
    for runtime in runtimes_of(record, overhead_schema::experiments::sync::OVERSUB) {
        let table = oversub(record, runtime, format);
        if !table.is_empty() {
            if !out.is_empty() {
                out += "\n";
            }
            let title = format!(
                "sync.oversub, {runtime}: time per operation vs. activities (Ben-Asher & Feitelson 1991 Fig. 10)"
            );
            out += &subheading(&title, format);
            out += &table;
        }
    }
    out
}

fn subheading(title: &str, format: Format) -> String {
    match format {
        Format::Table => format!("{title}\n"),
        Format::Md => format!("### {title}\n\n"),
    }
}

fn cell(p: Option<&PointRecord>) -> Cell {
    let text = p.map_or_else(|| "—".to_string(), |p| format_ns(p.summary.median));
    Cell::new(text).set_alignment(CellAlignment::Right)
}

/// "a + b·x (r² …)" lines for `fits`, each after its label; Markdown gets list items.
fn formulas<'a>(fits: impl Iterator<Item = (String, &'a FitRecord)>, format: Format) -> String {
    let bullet = if format == Format::Md { "- " } else { "  " };
    fits.map(|(label, f)| format!("{bullet}{label}: {}\n", f.formula(format_ns))).collect()
}

/// Rows = load, columns = (runtime, CPUs), cells = median per round; then the `a + b·load` fits.
fn yield_rounds(record: &RunRecord, format: Format) -> String {
    let points: Vec<&PointRecord> =
        record.points.iter().filter(|p| p.spec.experiment == overhead_schema::experiments::sched::YIELD).collect();
    if points.is_empty() {
        return String::new();
    }
    let loads: BTreeSet<u64> = points.iter().filter_map(|p| Some(yield_params(p)?.load? as u64)).collect();
    // A column per runtime (a flavor its own: tokio's current-thread flavor runs one CPU, its multi-thread one
    // the others) and CPU count.
    let mut columns: Vec<(String, u64)> = Vec::new();
    for runtime in runtimes_of(record, overhead_schema::experiments::sched::YIELD) {
        let of_runtime = points.iter().filter(|p| p.spec.runtime == runtime);
        let cells: BTreeSet<(String, u64)> =
            of_runtime.filter_map(|p| Some((p.spec.runtime_label(), yield_params(p)?.cpus as u64))).collect();
        columns.extend(cells);
    }
    let mut table = new_table(format);
    let mut header = vec!["load".to_string()];
    header.extend(columns.iter().map(|(r, c)| format!("{r} ({c} CPU{})", if *c == 1 { "" } else { "s" })));
    table.set_header(header);
    for load in &loads {
        let mut row = vec![Cell::new(load)];
        for (runtime, cpus) in &columns {
            let p = points.iter().copied().find(|p| {
                p.spec.runtime_label() == *runtime
                    && yield_params(p)
                        .is_some_and(|q| q.cpus as u64 == *cpus && q.load.map(|l| l as u64) == Some(*load))
            });
            row.push(cell(p));
        }
        table.add_row(row);
    }
    let mut out = format!("{table}\n");
    out += "load: extra yielding activities per CPU; a round: the measuring activity's yield and one turn of \
            every other activity on its CPU\n";
    let label = |runtime: &str, series: &[(String, String)]| {
        let value = |key: &str| series.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
        let runtime = overhead_schema::runtimes::runtime_label(runtime, value(overhead_schema::runtimes::FLAVOR_KEY));
        let cpus = value("cpus").map_or(String::new(), |v| format!(", {v} {}", if v == "1" { "CPU" } else { "CPUs" }));
        format!("{runtime}{cpus}")
    };
    let fits = record
        .fits
        .iter()
        .filter(|f| f.experiment == overhead_schema::experiments::sched::YIELD)
        .map(|f| (label(&f.runtime, &f.series), f));
    out += &formulas(fits, format);
    let few = too_few_points(&record.points)
        .into_iter()
        .filter(|s| s.experiment == overhead_schema::experiments::sched::YIELD);
    out += &notes(few.map(|s| (label(&s.runtime, &s.series), s.note())), format);
    out
}

/// "label: too few points for a fit (…)" lines, as [`formulas`] prints fits.
fn notes(notes: impl Iterator<Item = (String, String)>, format: Format) -> String {
    let bullet = if format == Format::Md { "- " } else { "  " };
    notes.map(|(label, note)| format!("{bullet}{label}: {note}\n")).collect()
}

/// One runtime's `sync.oversub`: rows = activities, columns = variant and barrier; then the fits and,
/// for each `spawn & sync` quadratic, how much of the largest point the quadratic term accounts for.
fn oversub(record: &RunRecord, runtime: &str, format: Format) -> String {
    let points: Vec<&PointRecord> = record
        .points
        .iter()
        .filter(|p| p.spec.experiment == overhead_schema::experiments::sync::OVERSUB && p.spec.runtime == runtime)
        .collect();
    if points.is_empty() {
        return String::new();
    }
    let is = |p: &PointRecord, (variant, barrier, _): (Variant, Option<BarrierKind>, &str)| {
        oversub_params(p).is_some_and(|q| q.variant == variant && q.barrier == barrier)
    };
    let columns: Vec<_> = OVERSUB_COLUMNS.iter().copied().filter(|&c| points.iter().any(|p| is(p, c))).collect();
    let activities: BTreeSet<u64> = points.iter().filter_map(|p| Some(oversub_params(p)?.activities as u64)).collect();
    let mut table = new_table(format);
    let mut header = vec!["activities".to_string()];
    header.extend(columns.iter().map(|c| c.2.to_string()));
    table.set_header(header);
    for a in &activities {
        let mut row = vec![Cell::new(a)];
        for &c in &columns {
            row.push(cell(
                points
                    .iter()
                    .copied()
                    .find(|p| is(p, c) && oversub_params(p).is_some_and(|q| q.activities as u64 == *a)),
            ));
        }
        table.add_row(row);
    }
    let mut out = format!("{table}\n");
    let fits: Vec<&FitRecord> = record
        .fits
        .iter()
        .filter(|f| f.experiment == overhead_schema::experiments::sync::OVERSUB && f.runtime == runtime)
        .collect();
    let label_of = |series: &[(String, String)], name: String| {
        let get = |k: &str| series.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str());
        let column = OVERSUB_COLUMNS
            .iter()
            .find(|c| get("variant") == Some(c.0.name()) && get("barrier") == c.1.map(barrier_name));
        column.map_or(name, |c| c.2.to_string())
    };
    let label = |f: &FitRecord| label_of(&f.series, f.name());
    out += &formulas(fits.iter().map(|f| (label(f), *f)), format);
    let few = too_few_points(&record.points)
        .into_iter()
        .filter(|s| s.experiment == overhead_schema::experiments::sync::OVERSUB && s.runtime == runtime);
    out += &notes(few.map(|s| (label_of(&s.series, s.name()), s.note())), format);
    let bullet = if format == Format::Md { "- " } else { "  " };
    for f in fits.iter().filter(|f| f.c.is_some() && f.is_supported()) {
        out += &quadratic_share(f, &label(f), activities.last().copied(), bullet);
    }
    out
}

/// "L: at A activities the quadratic term is c·A² of the fitted total (p%)", or that there is no
/// quadratic growth when `c ≤ 0` (a concave fit through noise says nothing about a quadratic term).
fn quadratic_share(f: &FitRecord, label: &str, top: Option<u64>, bullet: &str) -> String {
    let (Some(c), Some(top)) = (f.c, top) else { return String::new() };
    if c <= 0.0 {
        return format!("{bullet}{label}: no quadratic growth (c ≤ 0)\n");
    }
    let x = top as f64;
    let total = f.a + f.b * x + c * x * x;
    if total <= 0.0 {
        return String::new();
    }
    let share = 100.0 * c * x * x / total;
    format!(
        "{bullet}{label}: at {top} activities the quadratic term is {} of {} ({share:.0}%)\n",
        format_ns(c * x * x),
        format_ns(total)
    )
}

/// The report's `yield_oversub` section (`--table seed001`, its older name, still works) (docs/ARCHITECTURE.md "Renderers").
pub const YIELD_AND_OVERSUB: Section = Section {
    key: "yield_oversub",
    title: "Ben-Asher & Feitelson 1991 tables: yield round vs. load; barriers with activities ≫ CPUs",
    about: "Ben-Asher & Feitelson's tables: yield round vs. load, sync.oversub vs. activities, with their fits",
    position: 20,
    render: yield_and_oversub_tables,
};

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_experiments::find;
    use overhead_record::fixture::{point, sample_record};

    fn with_fits(mut record: RunRecord) -> RunRecord {
        record.fits = overhead_analysis::fits::derive_fits(&record.points);
        record
    }

    #[test]
    fn yield_rows_are_loads_columns_runtimes_with_fits_below() {
        let mut record = sample_record();
        record.points.clear();
        for load in [0u32, 1, 2, 4] {
            let l = load.to_string();
            record.points.push(point(
                "sched.yield",
                "tokio",
                &[("cpus", "2"), ("load", &l)],
                100.0 + 50.0 * f64::from(load),
            ));
            record.points.push(point(
                "sched.yield",
                "os",
                &[("cpus", "2"), ("load", &l)],
                1000.0 + 700.0 * f64::from(load),
            ));
        }
        let record = with_fits(record);
        assert!(find("sched.yield").is_some());
        let text = yield_and_oversub_tables(&record, Format::Md);
        let header = text.lines().find(|l| l.starts_with("| load")).unwrap();
        assert!(header.find("os (2 CPUs)").unwrap() < header.find("tokio (2 CPUs)").unwrap(), "{text}");
        let row4 = text.lines().find(|l| l.starts_with("| 4 ")).unwrap();
        assert!(row4.contains("3.80 µs") && row4.contains("300 ns"), "{row4}");
        assert!(
            text.contains("- os, 2 CPUs: (1.00 µs ± 0.000 ns) + (700 ns ± 0.000 ns)·load (r² 1.000, 4 points)"),
            "{text}"
        );
        assert!(!text.contains("sync.oversub"));
    }

    #[test]
    fn oversub_table_per_runtime_shows_the_quadratic_share() {
        let mut record = sample_record();
        record.points.clear();
        for a in [2u32, 4, 8, 16] {
            let (s, x) = (a.to_string(), f64::from(a));
            let ss = |b| [("variant", "spawn_sync"), ("barrier", b), ("cpus", "2"), ("activities", &s)];
            record.points.push(point("sync.oversub", "os", &ss("yield"), 10.0 * x + x * x));
            record.points.push(point("sync.oversub", "os", &ss("blocking"), 10.0 * x));
        }
        let record = with_fits(record);
        let text = yield_and_oversub_tables(&record, Format::Table);
        assert!(text.contains("sync.oversub, os"), "{text}");
        assert!(text.contains("spawn & sync, yield") && !text.contains("just spawn"), "{text}");
        // At 16 activities: 256 of 416 ns is the quadratic term (62%); the blocking barrier has none.
        assert!(
            text.contains("spawn & sync, yield: at 16 activities the quadratic term is 256 ns of 416 ns (62%)"),
            "{text}"
        );
        let blocking = text.lines().find(|l| l.contains("spawn & sync, blocking: ") && !l.contains('·')).unwrap();
        assert!(blocking.contains("(0%)") || blocking.contains("no quadratic growth"), "{blocking}");
    }

    #[test]
    fn empty_without_these_experiments() {
        assert!(yield_and_oversub_tables(&sample_record(), Format::Table).is_empty());
    }
}
