//! The results table, for a terminal or as Markdown: one row per point, grouped by experiment, with
//! the median, its 95% CI, the spread, the control cost ("ovr", as lmbench prints it) and flags.

use comfy_table::{presets, Cell, CellAlignment, ContentArrangement, Table};

use super::{counted, format_ns};
use crate::harness::speed::SLOW_FACTOR;
use crate::record::{Metric, PointRecord, RunRecord, SkipKind};

/// An empty comfy-table in the style of every report table: condensed box drawing for a terminal, or
/// GitHub Markdown.
pub fn new_table(format: Format) -> Table {
    let mut table = Table::new();
    table.load_preset(match format {
        Format::Table => presets::UTF8_FULL_CONDENSED,
        Format::Md => presets::ASCII_MARKDOWN,
    });
    table
}

/// Output format of [`render`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Box-drawn table for a terminal.
    Table,
    /// GitHub-flavoured Markdown.
    Md,
}

/// The runtimes of `experiment`'s points in `record`, in the registry's column order (names it does not know,
/// from another build's record, after them by name).
pub fn runtimes_of<'a>(record: &'a RunRecord, experiment: &str) -> Vec<&'a str> {
    let mut names: Vec<&str> =
        record.points.iter().filter(|p| p.spec.experiment == experiment).map(|p| p.spec.runtime.as_str()).collect();
    names.sort_by_key(|name| (crate::runtimes::column_rank(name), *name));
    names.dedup();
    names
}

/// The whole report for `record`: header (machine, time source, warnings), the results table, the
/// primitives table, every point's matrices, and the skipped points with their reasons.
pub fn render(record: &RunRecord, format: Format) -> String {
    let mut out = String::new();
    let h = |text: &str| match format {
        Format::Table => format!("{text}\n"),
        Format::Md => format!("## {text}\n\n"),
    };
    let m = &record.machine;
    let t = &record.time_source;
    out += &h("overhead run");
    let bullet = if format == Format::Md { "- " } else { "  " };
    out += &format!(
        "{bullet}machine: {} ({}, {}, {}, {}, {}), kernel {}\n",
        m.host_name,
        m.cpu_model,
        counted(m.logical_cpus, "CPU", "CPUs"),
        counted(m.topology.cores, "core", "cores"),
        counted(m.topology.packages, "package", "packages"),
        counted(m.topology.numa_nodes, "NUMA node", "NUMA nodes"),
        m.kernel
    );
    out += &format!("{bullet}time source: {}\n", time_source_line(t));
    let rounds = match record.rounds {
        Some(r) => format!("{}–{} processes per point, each ", r.min_rounds, r.max_rounds),
        None => String::new(),
    };
    out += &format!(
        "{bullet}mode: {:?}, {rounds}{} batches of ~{} after {} warm-up; started {}{}\n",
        record.mode,
        record.harness.repetitions,
        format_ns(record.harness.target_batch_ns),
        record.harness.warmup,
        record.started_utc,
        completion(record)
    );
    for w in record.warnings.iter().chain(&record.speed_warning) {
        out += &format!("{bullet}warning: {w}\n");
    }
    out += "\n";
    out += &results_table(&record.points, format);
    out += "\n";
    let floors: Vec<String> = record
        .points
        .iter()
        .filter_map(|p| p.below_resolution_why.as_ref().map(|why| format!("{bullet}{} — <res: {why}\n", p.name)))
        .collect();
    if !floors.is_empty() {
        out += "\n";
        out += &h("Points that are no cost the hardware can have (<res)");
        out += &floors.concat();
    }
    for section in super::SECTIONS {
        let body = (section.render)(record, format);
        if !body.is_empty() {
            out += "\n";
            out += &h(section.title);
            out += &body;
        }
    }
    if !record.skipped.is_empty() {
        out += "\n";
        out += &h("Points without a result");
        for s in &record.skipped {
            let kind = match s.kind {
                SkipKind::Skipped => "skipped",
                SkipKind::Failed => "failed",
                SkipKind::TimedOut => "timed out",
            };
            out += &format!("{bullet}{} — {kind}: {}\n", s.name, s.reason);
        }
    }
    out += &format!(
        "\nmedian: per operation, control subtracted, the mean of each process's median batch; CI: 95% CI over \
         processes (Student t); p10 – p90: every batch of every process; ovr: the control's own cost; \
         N × R×P: operations per batch × batches per process × processes; flags: noisy = CI half-width > \
         {:.0}% of the median, unstable = the processes disagree more than their batches do, <res = no cost \
         the hardware can have (CI reaches the timing resolution, below one cycle, or inside the control's \
         scatter; see the notes), slow = a reference loop timed around the point ran ≥ {:.0}% slower than \
         usual in this run.\n",
        record.harness.noisy_fraction * 100.0,
        (SLOW_FACTOR - 1.0) * 100.0
    );
    out
}

/// The time source as the report's header describes it: counter, rate and its uncertainty, read cost,
/// resolution, and why it was chosen.
pub fn time_source_line(t: &crate::clock::TimeSourceInfo) -> String {
    format!(
        "{:?} at {:.3} MHz (±{:.1} ppm), read {}, resolution {}; {}",
        t.clock.kind,
        t.clock.hz / 1e6,
        t.calibration_error_ppm,
        format_ns(t.read_cost_ns),
        format_ns(t.resolution_ns),
        t.reason
    )
}

/// How the run ended, as the header says it: interrupted, did not finish (no `finished_utc`: killed, or
/// still running), or nothing when it finished.
pub fn completion(record: &RunRecord) -> &'static str {
    if record.interrupted {
        " — INTERRUPTED, partial record"
    } else if record.finished_utc.is_none() {
        " — RUN DID NOT FINISH (killed, or still running): partial record"
    } else {
        ""
    }
}

fn results_table(points: &[PointRecord], format: Format) -> String {
    let mut table = new_table(format);
    if format == Format::Table {
        table.set_content_arrangement(ContentArrangement::Disabled);
    }
    table.set_header(["point", "metric", "median", "95% CI", "p10 – p90", "ovr", "N × R×P", "flags"]);
    for p in points {
        let s = &p.summary;
        let metric = match p.metric {
            Metric::PerOp => "per op",
            Metric::Rtt => "rtt",
            Metric::OneWay => "one way",
        };
        let flags = flags_of(p);
        let right = |text: String| Cell::new(text).set_alignment(CellAlignment::Right);
        table.add_row(vec![
            Cell::new(&p.name),
            Cell::new(metric),
            right(format_ns(s.median)),
            right(format!("{} – {}", format_ns(s.ci_low), format_ns(s.ci_high))),
            right(format!("{} – {}", format_ns(s.p10), format_ns(s.p90))),
            right(format_ns(p.control.median)),
            right(format!("{} × {}", p.batch_ops, batches_by_process(p))),
            Cell::new(flags.join(",")),
        ]);
    }
    table.to_string()
}

/// A point's flags in the order the tables print them: `noisy`, `unstable`, `<res`, `slow`, and `notes`
/// when it carries notes.
pub fn flags_of(p: &PointRecord) -> Vec<&'static str> {
    [
        (p.noisy, "noisy"),
        (p.unstable, "unstable"),
        (p.below_resolution, "<res"),
        (p.slow, "slow"),
        (!p.notes.is_empty(), "notes"),
    ]
    .into_iter()
    .filter_map(|(set, flag)| set.then_some(flag))
    .collect()
}

/// Batches per process × processes, or the batch count alone for a point of one process.
pub fn batches_by_process(p: &PointRecord) -> String {
    match p.processes.len() {
        0 | 1 => p.summary.n.to_string(),
        k => format!("{}×{k}", p.summary.n / k),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::fixture::sample_record;

    #[test]
    fn the_header_says_how_the_run_ended() {
        let mut record = sample_record();
        assert!(render(&record, Format::Table).contains("INTERRUPTED"));
        record.interrupted = false;
        assert!(render(&record, Format::Table).contains("RUN DID NOT FINISH"));
        record.finished_utc = Some("2026-11-21T10:05:00+00:00".into());
        let text = render(&record, Format::Table);
        assert!(!text.contains("RUN DID NOT FINISH") && !text.contains("INTERRUPTED"));
    }

    #[test]
    fn flags_and_the_reason_for_res_are_shown() {
        let mut record = sample_record();
        record.points[0].unstable = true;
        record.points[0].below_resolution = true;
        record.points[0].below_resolution_why = Some("less than one cycle".into());
        let text = render(&record, Format::Table);
        assert!(text.contains("unstable,<res"), "{text}");
        assert!(text.contains("<res: less than one cycle"), "{text}");
    }
}
