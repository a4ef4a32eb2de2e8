//! The results table, for a terminal or as Markdown: one row per point, grouped by experiment, with
//! the median, its 95% CI, the spread, the control cost ("ovr", as lmbench prints it) and flags.

use comfy_table::{presets, Cell, CellAlignment, ContentArrangement, Table};

use super::format_ns;
use super::speed::{slow_points, speed_warning};
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
        "{bullet}machine: {} ({}, {} CPUs, {} cores, {} packages, {} NUMA nodes), kernel {}\n",
        m.host_name,
        m.cpu_model,
        m.logical_cpus,
        m.topology.cores,
        m.topology.packages,
        m.topology.numa_nodes,
        m.kernel
    );
    out += &format!(
        "{bullet}time source: {:?} at {:.3} MHz (±{:.1} ppm), read {}, resolution {}; {}\n",
        t.clock.kind,
        t.clock.hz / 1e6,
        t.calibration_error_ppm,
        format_ns(t.read_cost_ns),
        format_ns(t.resolution_ns),
        t.reason
    );
    out += &format!(
        "{bullet}mode: {:?}, {} repetitions of ~{} batches; started {}{}\n",
        record.mode,
        record.harness.repetitions,
        format_ns(record.harness.target_batch_ns),
        record.started_utc,
        if record.interrupted { " — INTERRUPTED, partial record" } else { "" }
    );
    for w in record.warnings.iter().cloned().chain(speed_warning(&record.points)) {
        out += &format!("{bullet}warning: {w}\n");
    }
    out += "\n";
    out += &results_table(&record.points, format);
    out += "\n";
    for (title, section) in super::SECTIONS {
        let body = section(record, format);
        if !body.is_empty() {
            out += "\n";
            out += &h(title);
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
        "\nmedian: per operation, control subtracted; CI: 95% CI of the median; ovr: the control's own cost; \
         flags: noisy = CI half-width > {:.0}% of the median, <res = not distinguishable from zero, slow = a \
         reference loop timed around the point ran ≥ {:.0}% slower than usual in this run.\n",
        record.harness.noisy_fraction * 100.0,
        (SLOW_FACTOR - 1.0) * 100.0
    );
    out
}

fn results_table(points: &[PointRecord], format: Format) -> String {
    let mut table = new_table(format);
    if format == Format::Table {
        table.set_content_arrangement(ContentArrangement::Disabled);
    }
    table.set_header(["point", "metric", "median", "95% CI", "p10 – p90", "ovr", "N × R", "flags"]);
    for (p, slow) in points.iter().zip(slow_points(points)) {
        let s = &p.summary;
        let metric = match p.metric {
            Metric::PerOp => "per op",
            Metric::Rtt => "rtt",
            Metric::OneWay => "one way",
        };
        let mut flags = Vec::new();
        if p.noisy {
            flags.push("noisy");
        }
        if p.below_resolution {
            flags.push("<res");
        }
        if slow {
            flags.push("slow");
        }
        if !p.notes.is_empty() {
            flags.push("notes");
        }
        let right = |text: String| Cell::new(text).set_alignment(CellAlignment::Right);
        table.add_row(vec![
            Cell::new(&p.name),
            Cell::new(metric),
            right(format_ns(s.median)),
            right(format!("{} – {}", format_ns(s.ci_low), format_ns(s.ci_high))),
            right(format!("{} – {}", format_ns(s.p10), format_ns(s.p90))),
            right(format_ns(p.control.median)),
            right(format!("{} × {}", p.batch_ops, s.n)),
            Cell::new(flags.join(",")),
        ]);
    }
    table.to_string()
}
