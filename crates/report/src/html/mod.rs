//! The HTML report (`overhead report RECORD --format html`, and `report.html` beside every run's
//! `results.json`): one self-contained page — inline SVG and CSS, a few lines of script, nothing fetched —
//! that opens with the machine's key costs, then its warnings, the plots (curves with their fits, heat maps,
//! latency distributions, per-CPU shares), the studies' tables in their own layout, and every point.
//! Like every renderer it reads only the record (docs/ARCHITECTURE.md "Renderers"). The page is a
//! minijinja template (`report.html`, autoescaped); the plots come from `plot`, their data from `curves`.

mod choose;
mod compare;
mod curves;
mod figures;
pub(crate) mod headline;
mod sides;

pub use compare::compare_html;

use minijinja::Environment;
use serde::Serialize;

use crate::table::{batches_by_process, completion, flags_of, intervals_line, speed_line, time_source_line};
use crate::{counted, format_ns, Format, SECTIONS};
use overhead_record::{RunRecord, SkipKind};

/// The page's stylesheet, shared with `compare`'s page.
const STYLE: &str = include_str!("style.css");
/// The top of every page (a macro the page templates import).
const HEAD: &str = include_str!("head.html");
/// The report page's template.
const REPORT_TEMPLATE: &str = include_str!("report.html");

/// Everything the template shows, computed here so that the template only lays it out.
#[derive(Serialize)]
struct Page {
    title: String,
    facts: Vec<(String, String)>,
    warnings: Vec<String>,
    headline: Vec<headline::Headline>,
    figure_groups: Vec<figures::FigureGroup>,
    tables: Vec<TableSection>,
    points: Vec<PointRow>,
    skipped: Vec<(String, String)>,
    /// The table has a `between runs` column.
    has_between_runs: bool,
    /// The `noisy` threshold, in percent of the median, as text.
    noisy_fraction_pct: String,
}

/// A section of the text report as HTML.
#[derive(Serialize)]
struct TableSection {
    id: String,
    title: String,
    html: String,
}

/// A row of the table of every point.
#[derive(Serialize)]
struct PointRow {
    name: String,
    metric: &'static str,
    median: String,
    ci: String,
    spread: String,
    ovr: String,
    batches: String,
    flags: String,
    notes: Vec<String>,
    /// Context switches per operation of every thread of the probe process (`—` where not counted).
    switches: String,
    /// The kernel's share of the processes' CPU time (`—` where not counted or too little sampled).
    kernel: String,
    /// The counts in full and what they say, for the row's tooltip; empty where not counted.
    counts_detail: String,
    /// `±x%`: how far its median moves between runs here, when the history knows it.
    between_runs: Option<String>,
}

/// The report of `record` as one HTML document.
///
/// Errors: a plot could not be drawn, or the template failed (both are bugs, reported with their cause).
pub fn html_report(record: &RunRecord) -> anyhow::Result<String> {
    let page = Page {
        title: format!("overhead — {} — {}", record.machine.host_name, record.started_utc),
        facts: facts(record),
        warnings: record.warnings.iter().chain(&record.speed_warning).cloned().collect(),
        headline: headline::headline(record),
        figure_groups: figures::figure_groups(record)?,
        tables: tables(record),
        points: record.points.iter().map(|p| point_row(p, record.between_runs.as_ref())).collect(),
        has_between_runs: record.between_runs.is_some(),
        skipped: record
            .skipped
            .iter()
            .map(|s| (s.name.clone(), format!("{}: {}", skip_word(s.kind), s.reason)))
            .collect(),
        noisy_fraction_pct: format!("{:.0}", record.harness.noisy_fraction * 100.0),
    };
    render("report.html", REPORT_TEMPLATE, &page)
}

/// Renders `source` (named `name`, whose `.html` ending turns on HTML autoescaping) with `context`.
fn render(name: &str, source: &str, context: &impl Serialize) -> anyhow::Result<String> {
    let mut env = Environment::new();
    env.add_template("style.css", STYLE)?;
    env.add_template("head.html", HEAD)?;
    env.add_template(name, source)?;
    Ok(env.get_template(name)?.render(context)?)
}

/// The header's facts: the machine, the time source, the run.
fn facts(record: &RunRecord) -> Vec<(String, String)> {
    let m = &record.machine;
    let mut facts = vec![
        ("machine".to_string(), format!("{} — {} ({})", m.host_name, m.cpu_model, m.arch)),
        (
            "topology".into(),
            format!(
                "{} ({} allowed), {}, {}, {}",
                counted(m.logical_cpus, "logical CPU", "logical CPUs"),
                m.allowed_cpus.len(),
                counted(m.topology.cores, "core", "cores"),
                counted(m.topology.packages, "package", "packages"),
                counted(m.topology.numa_nodes, "NUMA node", "NUMA nodes")
            ),
        ),
        ("kernel".into(), format!("{}, clocksource {}", m.kernel, m.clocksource.as_deref().unwrap_or("unknown"))),
        ("time source".into(), time_source_line(&record.time_source)),
    ];
    if let Some(v) = &m.virtualization {
        facts.push(("virtualization".into(), v.clone()));
    }
    let rounds =
        record.rounds.map_or(String::new(), |r| format!(", {}–{} processes per point", r.min_rounds, r.max_rounds));
    facts.push((
        "run".into(),
        format!(
            "{:?} mode{rounds}, {} batches of ~{} after {} warm-up per process; {} points, {} without a result",
            record.mode,
            record.harness.repetitions,
            format_ns(record.harness.target_batch_ns),
            record.harness.warmup,
            record.points.len(),
            record.skipped.len()
        ),
    ));
    if let Some(line) = speed_line(record) {
        facts.push(("speed".into(), line));
    }
    if let Some(state) = &record.machine_state {
        facts.push((
            "machine state".into(),
            format!(
                "other processes took at most {:.1}% of a measured CPU's time, steal at most {:.1}%",
                state.max_other() * 100.0,
                state.max_steal() * 100.0
            ),
        ));
    }
    if let Some(line) = crate::host_states::header_line(record) {
        facts.push(("host states".into(), line));
    }
    if let Some(line) = overhead_analysis::host_spread::header_line(record) {
        facts.push(("spread".into(), line));
    }
    facts.push(("intervals".into(), intervals_line(record)));
    let ended = record.finished_utc.as_deref().unwrap_or("—");
    facts.push(("started / finished".into(), format!("{} / {ended}{}", record.started_utc, completion(record))));
    facts.push(("command".into(), record.command_line.join(" ")));
    let commit = record.tool.git_commit.as_deref().map_or(String::new(), |c| format!(" ({c})"));
    facts.push(("tool".into(), format!("{} {}{commit}", record.tool.name, record.tool.version)));
    facts
}

/// Every section of the text report that has something for this record, as HTML (its Markdown form).
fn tables(record: &RunRecord) -> Vec<TableSection> {
    SECTIONS
        .iter()
        .filter_map(|s| {
            let md = (s.render)(record, Format::Md);
            (!md.trim().is_empty()).then(|| TableSection {
                id: format!("table-{}", s.key),
                title: s.title.into(),
                html: breakable_names(&overhead_render::markdown::to_html(&md)),
            })
        })
        .collect()
}

/// `html` with a break opportunity (`<wbr>`) after each `/` of every row's first cell: a point's name has no
/// space to wrap at, and the table keeps its values on one line (style.css), so a long name breaks between its
/// parameters instead of pushing the table wider; a copied name stays whole. A cell holding markup is left
/// alone.
fn breakable_names(html: &str) -> String {
    const ROW_START: &str = "<tr><td>";
    let mut out = String::with_capacity(html.len() + html.len() / 8);
    let mut rest = html;
    while let Some(start) = rest.find(ROW_START) {
        let cell = start + ROW_START.len();
        out.push_str(&rest[..cell]);
        rest = &rest[cell..];
        let end = rest.find("</td>").unwrap_or(rest.len());
        let name = &rest[..end];
        match name.contains('<') {
            true => out.push_str(name),
            false => out.push_str(&name.replace('/', "/<wbr>")),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn point_row(p: &overhead_record::PointRecord, between: Option<&overhead_record::BetweenRuns>) -> PointRow {
    let s = &p.summary;
    PointRow {
        name: p.name.clone(),
        metric: match p.metric {
            overhead_record::Metric::PerOp => "per op",
            overhead_record::Metric::Rtt => "rtt",
            overhead_record::Metric::OneWay => "one way",
        },
        median: format_ns(s.median),
        ci: crate::interval::point_interval(p, 1.0),
        spread: format!("{} – {}", format_ns(s.p10), format_ns(s.p90)),
        ovr: format_ns(p.control.median),
        batches: format!("{} × {}", p.batch_ops, batches_by_process(p)),
        flags: flags_of(p).join(","),
        notes: p.notes.clone(),
        switches: crate::counts::switches_cell(p),
        kernel: crate::counts::kernel_cell(p),
        counts_detail: crate::counts::detail_text(p),
        between_runs: between.map(|b| b.points_pct.get(&p.name).map_or("—".into(), |x| format!("±{x:.1}%"))),
    }
}

fn skip_word(kind: SkipKind) -> &'static str {
    match kind {
        SkipKind::Skipped => "skipped",
        SkipKind::Failed => "failed",
        SkipKind::TimedOut => "timed out",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::sample_record;

    /// A row's first cell breaks after each `/`; other cells, and a first cell holding markup, stay as they are.
    #[test]
    fn point_names_break_after_a_slash_and_nothing_else_changes() {
        let html = "<tr><td>msg.ipc/runtime:os</td><td>1/2</td></tr>\n<tr><td><code>a/b</code></td></tr>";
        assert_eq!(
            breakable_names(html),
            "<tr><td>msg.ipc/<wbr>runtime:os</td><td>1/2</td></tr>\n<tr><td><code>a/b</code></td></tr>"
        );
        // The counts section's rows begin with a point's name.
        let mut record = sample_record();
        record.points[0].counts = vec![
            overhead_record::fixture::count("process_voluntary_cs_per_op", 2.0, 2.0, 2.0),
            overhead_record::fixture::count("process_involuntary_cs_per_op", 0.0, 0.0, 0.0),
        ];
        let table = tables(&record).into_iter().map(|t| t.html).collect::<String>();
        assert!(table.contains("/<wbr>runtime:os"), "{table}");
    }

    #[test]
    fn the_page_is_self_contained_and_escapes_what_it_shows() {
        let mut record = sample_record();
        record.warnings.push("<script>alert(1)</script>".into());
        let html = html_report(&record).unwrap();
        assert!(html.starts_with("<!DOCTYPE html>"), "{}", &html[..40]);
        assert!(html.contains("&lt;script&gt;alert(1)"), "a warning is text, not markup");
        for external in ["src=\"http", "href=\"http", "src=\"//", "@import", "url(http"] {
            assert!(!html.contains(external), "the page fetches nothing: found {external}");
        }
        for id in ["id=\"headline\"", "id=\"warnings\"", "id=\"points\"", "id=\"skipped\""] {
            assert!(html.contains(id), "{id} missing");
        }
        // minijinja escapes `/` in text and attributes; a browser reads the entity back.
        assert!(
            html.contains("id=\"point-sync.faa&#x2f;runtime:os&#x2f;variable:shared&#x2f;threads:2\""),
            "every point has a row"
        );
    }
}
