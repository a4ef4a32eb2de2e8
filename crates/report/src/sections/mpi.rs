//! The `mpi` section: MPI's own primitives as the OSU micro-benchmarks present them, with the project's
//! CIs — the ping-pong round trip and the bandwidth by payload × placement (one host beside `other_host`),
//! barrier and allreduce by ranks (one host and across hosts) — where each point's ranks ran, and
//! mpiGraph's host × host matrices (`mpi.hosts`) with the placement class of each cell; on the HTML page
//! the matrices are heat maps too ([`FIGURES`]).

use comfy_table::{Cell, CellAlignment};

use crate::sections::{Figures, Section};
use overhead_humanize::format_ns;
use overhead_machine::Placement;
use overhead_record::{Matrix, PointRecord, PointSpec, RunRecord};
use overhead_render::figure::{slug, Figure};
use overhead_render::matrix::{format_number, render_matrix};
use overhead_render::plot::heat_map_svg_of;
use overhead_render::{new_table, Format};
use overhead_schema::experiments::mpi::{BandwidthResult, CollectiveParams, PingPongParams};

/// The report's `mpi` section (docs/ARCHITECTURE.md "Renderers").
pub const SECTION: Section = Section {
    key: "mpi",
    title: "MPI: ping-pong, bandwidth, barrier and allreduce on one host and across hosts; host matrices",
    about: "the mpi runtime's points as osu_latency, osu_bw, osu_barrier and osu_allreduce, with CIs and where \
            each rank ran; mpi.hosts' host × host round trip and bandwidth",
    position: 75,
    render: mpi_tables,
};

/// The page's host-matrix heat maps (docs/ARCHITECTURE.md "Renderers").
pub const FIGURES: Figures = Figures {
    id: "mpi-hosts",
    short: "Hosts",
    title: "Host matrices: round trip and bandwidth between every pair of hosts (mpiGraph)",
    intro: "One cell per pair of hosts, one MPI rank on each, on a linear colour scale from the smallest value \
            (dark) to the largest (yellow); the diagonal (a host with itself) is not measured. Round trip: \
            smaller is better; bandwidth: larger is better, from the row host to the column host.",
    position: 35,
    draw: host_figures,
};

/// Every part that has points, one blank line apart; empty without `mpi` points.
pub fn mpi_tables(record: &RunRecord, format: Format) -> String {
    let parts = [
        pingpong(record, format),
        bandwidth(record, format),
        collectives(record, format),
        host_matrices(record, format),
        mpi_version(record, format),
    ];
    parts.into_iter().filter(|p| !p.is_empty()).collect::<Vec<_>>().join("\n")
}

fn subheading(title: &str, format: Format) -> String {
    match format {
        Format::Table => format!("{title}\n"),
        Format::Md => format!("### {title}\n\n"),
    }
}

/// Markdown needs a blank line after a table before text; a terminal does not.
fn after_table(format: Format) -> &'static str {
    match format {
        Format::Table => "\n",
        Format::Md => "\n\n",
    }
}

/// "8 B", "64 KiB", "1 MiB".
pub fn bytes_text(n: usize) -> String {
    match n {
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n => format!("{n} B"),
    }
}

/// "551 ns ±62.0 ns": the median and the half-width of its 95% CI.
fn median_ci(p: &PointRecord) -> String {
    format!("{} ±{}", format_ns(p.summary.median), format_ns(p.summary.ci_half_width()))
}

/// Placements in the order of their distance, `other_host` last.
fn placement_rank(p: Placement) -> usize {
    Placement::ALL.iter().position(|&q| q == p).unwrap_or(Placement::ALL.len())
}

/// The specs of `experiment`'s points and skipped cells.
fn specs<'a>(record: &'a RunRecord, experiment: &'a str) -> impl Iterator<Item = &'a PointSpec> + 'a {
    let skipped = record.skipped.iter().map(|s| &s.spec);
    record.points.iter().map(|p| &p.spec).chain(skipped).filter(move |s| s.experiment == experiment)
}

/// The placements and payloads (ascending) of a two-rank experiment.
fn axes(
    record: &RunRecord,
    experiment: &str,
    payload: impl Fn(&PointSpec) -> Option<usize>,
) -> (Vec<Placement>, Vec<usize>) {
    let mut placements: Vec<Placement> = specs(record, experiment).filter_map(|s| s.placement).collect();
    placements.sort_by_key(|&p| placement_rank(p));
    placements.dedup();
    let mut payloads: Vec<usize> = specs(record, experiment).filter_map(payload).collect();
    payloads.sort_unstable();
    payloads.dedup();
    (placements, payloads)
}

/// Where a point's ranks ran, from its note ("rank 0 on …; rank 1 on …"), without the MPI version.
pub fn ranks_note(p: &PointRecord) -> Option<String> {
    let note = p.notes.iter().find(|n| n.starts_with("rank 0 on "))?;
    let ranks: Vec<&str> = note.split("; ").filter(|part| part.starts_with("rank ")).collect();
    Some(ranks.join("; "))
}

/// The MPI library's version line from a point's placement note.
fn version_of(p: &PointRecord) -> Option<String> {
    let note = p.notes.iter().find(|n| n.starts_with("rank 0 on "))?;
    note.split("; ").find(|part| !part.starts_with("rank ")).map(str::to_string)
}

/// A table of a two-rank experiment: payload rows × placement columns, `text` of each measured point;
/// skipped cells footnoted with their reason; then where each placement's ranks ran.
fn two_rank_table(
    record: &RunRecord,
    experiment: &str,
    payload: impl Fn(&PointSpec) -> Option<usize>,
    text: impl Fn(&PointRecord) -> String,
    format: Format,
) -> String {
    let (placements, payloads) = axes(record, experiment, &payload);
    if payloads.is_empty() {
        return String::new();
    }
    let is = |s: &PointSpec, placement: Placement, size: usize| {
        s.experiment == experiment && s.placement == Some(placement) && payload(s) == Some(size)
    };
    let mut table = new_table(format);
    let mut header = vec!["payload".to_string()];
    header.extend(placements.iter().map(|p| p.name().to_string()));
    table.set_header(header);
    let mut footnotes: Vec<String> = Vec::new();
    let mut where_ran: Vec<(Placement, String)> = Vec::new();
    for &size in &payloads {
        let mut row = vec![Cell::new(bytes_text(size))];
        for &placement in &placements {
            let cell = match record.points.iter().find(|p| is(&p.spec, placement, size)) {
                Some(p) => {
                    if let Some(note) = ranks_note(p) {
                        if !where_ran.iter().any(|(q, n)| *q == placement && *n == note) {
                            where_ran.push((placement, note));
                        }
                    }
                    text(p)
                }
                None => match record.skipped.iter().find(|s| is(&s.spec, placement, size)) {
                    Some(s) => {
                        let note = format!("{}: {}", placement.name(), s.reason);
                        let k = footnotes.iter().position(|f| *f == note).unwrap_or_else(|| {
                            footnotes.push(note);
                            footnotes.len() - 1
                        });
                        format!("— [{}]", k + 1)
                    }
                    None => "—".into(),
                },
            };
            row.push(Cell::new(cell).set_alignment(CellAlignment::Right));
        }
        table.add_row(row);
    }
    let mut out = format!("{table}{}", after_table(format));
    let bullet = if format == Format::Md { "- " } else { "" };
    for (k, note) in footnotes.iter().enumerate() {
        out += &format!("{bullet}[{}] {note}\n", k + 1);
    }
    for (placement, note) in where_ran {
        out += &format!("{bullet}where the ranks ran, {}: {note}\n", placement.name());
    }
    out
}

/// osu_latency's table: the round trip by payload × placement.
fn pingpong(record: &RunRecord, format: Format) -> String {
    let payload = |s: &PointSpec| s.params_as::<PingPongParams>().ok().map(|p| p.payload);
    let table = two_rank_table(record, overhead_schema::experiments::mpi::PINGPONG, payload, median_ci, format);
    if table.is_empty() {
        return table;
    }
    subheading(
        "mpi.pingpong: round trip (MPI_Send/MPI_Recv; osu_latency prints half of it), median ±95% CI half-width",
        format,
    ) + &table
}

/// osu_bw's table: MB/s by payload × placement, with the interval the time's CI gives.
fn bandwidth(record: &RunRecord, format: Format) -> String {
    let payload = |s: &PointSpec| s.params_as::<overhead_schema::experiments::mpi::BwParams>().ok().map(|p| p.payload);
    let text = |p: &PointRecord| {
        let Ok(r) = p.result_as::<BandwidthResult>() else { return "—".into() };
        let mb = |ns: f64| r.payload_bytes / ns * 1e3;
        let high = if p.summary.ci_low > 0.0 { format_number(mb(p.summary.ci_low), false) } else { "∞".into() };
        format!("{} ({}–{})", format_number(r.mb_per_s, false), format_number(mb(p.summary.ci_high), false), high)
    };
    let table = two_rank_table(record, overhead_schema::experiments::mpi::BW, payload, text, format);
    if table.is_empty() {
        return table;
    }
    subheading("mpi.bw: bandwidth (windows of 64 MPI_Isend and an ack, osu_bw), MB/s median (95% CI)", format) + &table
}

/// osu_barrier and osu_allreduce: rows of ranks (one host, then one per host), a column per collective.
fn collectives(record: &RunRecord, format: Format) -> String {
    let ids = [overhead_schema::experiments::mpi::BARRIER, overhead_schema::experiments::mpi::ALLREDUCE];
    let points: Vec<(&PointRecord, CollectiveParams)> = record
        .points
        .iter()
        .filter(|p| ids.contains(&p.spec.experiment.as_str()))
        .filter_map(|p| Some((p, p.spec.params_as::<CollectiveParams>().ok()?)))
        .collect();
    if points.is_empty() {
        return String::new();
    }
    let across = |p: &PointRecord| p.spec.placement == Some(Placement::OtherHost);
    let mut columns: Vec<(&str, usize)> = points.iter().map(|(p, q)| (p.spec.experiment.as_str(), q.bytes)).collect();
    columns.sort_by_key(|&(e, b)| (ids.iter().position(|i| *i == e), b));
    columns.dedup();
    let mut rows: Vec<(bool, usize)> = points.iter().map(|(p, q)| (across(p), q.ranks)).collect();
    rows.sort_unstable();
    rows.dedup();
    let mut table = new_table(format);
    let mut header = vec!["ranks".to_string(), "placement".to_string()];
    header.extend(columns.iter().map(|&(e, b)| {
        if e == overhead_schema::experiments::mpi::BARRIER {
            "barrier".into()
        } else {
            format!("allreduce {}", bytes_text(b))
        }
    }));
    table.set_header(header);
    let mut where_ran: Vec<(String, String)> = Vec::new();
    for &(hosts, ranks) in &rows {
        let placement = if hosts { "one per host (other_host)" } else { "one host, one per CPU" };
        let mut row = vec![Cell::new(ranks), Cell::new(placement)];
        for &(experiment, bytes) in &columns {
            let found = points.iter().find(|(p, q)| {
                p.spec.experiment == experiment && q.bytes == bytes && q.ranks == ranks && across(p) == hosts
            });
            let text = found.map_or_else(|| "—".to_string(), |(p, _)| median_ci(p));
            if let Some(note) = found.and_then(|(p, _)| ranks_note(p)) {
                let label = format!("{ranks} ranks, {placement}");
                if !where_ran.iter().any(|(l, n)| *l == label && *n == note) {
                    where_ran.push((label, note));
                }
            }
            row.push(Cell::new(text).set_alignment(CellAlignment::Right));
        }
        table.add_row(row);
    }
    let mut out = subheading(
        "mpi.barrier, mpi.allreduce: time per collective by ranks (osu_barrier, osu_allreduce), median ±95% CI half-width",
        format,
    );
    out += &format!("{table}{}", after_table(format));
    let bullet = if format == Format::Md { "- " } else { "" };
    for (label, note) in where_ran {
        out += &format!("{bullet}where the ranks ran, {label}: {note}\n");
    }
    out
}

/// The machine each rank's host name says it ran on ("rank 1 on 10.0.0.2, host vm CPU 1" → "vm"), by rank.
fn machines(note: &str) -> Vec<String> {
    note.split("; ")
        .filter_map(|part| {
            let after = part.split("host ").nth(1)?;
            Some(after.rsplit_once(" CPU ").map_or(after, |(machine, _)| machine).to_string())
        })
        .collect()
}

/// The placement class of each cell of a host matrix: the diagonal is the same host (n/a: not measured),
/// every other cell `other_host`; where both ranks' host names are one machine's (hosts simulated by
/// namespaces), the class says so.
pub fn cell_class(machines: &[String], i: usize, j: usize) -> String {
    if i == j {
        return "same host: n/a".into();
    }
    match (machines.get(i), machines.get(j)) {
        (Some(a), Some(b)) if a == b => format!("other_host (hosts share machine {a})"),
        _ => "other_host".into(),
    }
}

/// The placement classes of a host matrix as a grid of the same labels.
fn class_grid(m: &Matrix, machines: &[String], format: Format) -> String {
    let mut table = new_table(format);
    let mut header = vec!["placement class".to_string()];
    header.extend(m.col_labels.iter().cloned());
    table.set_header(header);
    for (i, label) in m.row_labels.iter().enumerate() {
        let mut row = vec![Cell::new(label)];
        row.extend((0..m.col_labels.len()).map(|j| Cell::new(cell_class(machines, i, j))));
        table.add_row(row);
    }
    format!("{table}{}", after_table(format))
}

/// `mpi.hosts`' matrices: the round trip and the bandwidth between every pair of hosts, with the placement
/// class of each cell and where each rank ran.
fn host_matrices(record: &RunRecord, format: Format) -> String {
    let mut out = String::new();
    for p in record.points.iter().filter(|p| p.spec.experiment == overhead_schema::experiments::mpi::HOSTS) {
        let mut part = String::new();
        for key in ["rtt", "bw"] {
            if let Some(m) = p.details.matrices.get(key) {
                part += &render_matrix(&p.name, key, m, format);
                part += "\n";
            }
        }
        let Some(m) = p.details.matrices.values().next() else { continue };
        let note = ranks_note(p);
        let machines = note.as_deref().map(machines).unwrap_or_default();
        part += &class_grid(m, &machines, format);
        let bullet = if format == Format::Md { "- " } else { "" };
        if let Some(note) = note {
            part += &format!("{bullet}where the ranks ran: {note}\n");
        }
        part += &format!(
            "{bullet}Read: a round-trip cell is one 8-byte message there and back; a bandwidth cell is the row host \
             sending 1 MiB messages to the column host, 64 in flight; ± is the spread of the cell's median \
             over the run's processes.\n"
        );
        if !out.is_empty() {
            out += "\n";
        }
        // In Markdown each matrix has a heading of its own.
        if format == Format::Table {
            out += &subheading("mpi.hosts: host × host matrices (mpiGraph)", format);
        }
        out += &part;
    }
    // Only the mpi runtime's cell says why there is no matrix; the others' (a runtime named with --runtime
    // that has no ranks) are in the list of skipped points already.
    for s in record.skipped.iter().filter(|s| {
        s.spec.experiment == overhead_schema::experiments::mpi::HOSTS
            && s.spec.runtime == overhead_schema::runtimes::MPI
    }) {
        if !out.is_empty() {
            out += "\n";
        }
        out += &format!("mpi.hosts: no host matrix ({})\n", s.reason);
    }
    out
}

/// The MPI library the points ran with, once.
fn mpi_version(record: &RunRecord, format: Format) -> String {
    let mut versions: Vec<String> = record
        .points
        .iter()
        .filter(|p| p.spec.runtime == overhead_schema::runtimes::MPI || !p.spec.hosts.is_empty())
        .filter_map(version_of)
        .collect();
    versions.dedup();
    let bullet = if format == Format::Md { "- " } else { "" };
    versions.iter().map(|v| format!("{bullet}MPI library: {v}\n")).collect()
}

/// `mpi.hosts`' matrices as heat maps, with host axes and each cell's placement class in the caption.
fn host_figures(record: &RunRecord) -> anyhow::Result<Vec<Figure>> {
    let mut figures = Vec::new();
    for p in record.points.iter().filter(|p| p.spec.experiment == overhead_schema::experiments::mpi::HOSTS) {
        let machines = ranks_note(p).as_deref().map(machines).unwrap_or_default();
        for key in ["rtt", "bw"] {
            let Some(m) = p.details.matrices.get(key) else { continue };
            if !m.is_well_formed() || m.values.len() < 2 {
                continue;
            }
            let what = if key == "rtt" { "round trip" } else { "bandwidth" };
            let title = format!("{} — {what}", p.name);
            let mut classes: Vec<String> = Vec::new();
            for i in 0..m.row_labels.len() {
                for j in 0..m.col_labels.len() {
                    let class = cell_class(&machines, i, j);
                    if i != j && !classes.contains(&class) {
                        classes.push(class);
                    }
                }
            }
            let title_text = m.title.trim_end_matches(", ± CI half-width");
            let caption = vec![
                format!("{title_text} ({}); the MPI section's table gives each cell with its ±.", m.unit),
                format!(
                    "Placement class of the cells: {} off the diagonal; the diagonal is the same host (n/a, not measured).",
                    classes.join(", ")
                ),
            ];
            let (x, y) = if key == "rtt" { ("host", "host") } else { ("to host (column)", "from host (row)") };
            let svg = heat_map_svg_of(m, &format!("mpi.hosts {what} ({})", m.unit), x, y)?;
            figures.push(Figure { id: format!("fig-{}", slug(&title)), title, caption, svg, legend: Vec::new() });
        }
    }
    Ok(figures)
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};
    use overhead_record::{SkipKind, SkippedPoint};

    const NOTE_LOCAL: &str = "rank 0 on host vm CPU 0; rank 1 on host vm CPU 1; Open MPI v4.1.4, package: Debian";
    const NOTE_HOSTS: &str =
        "rank 0 on 10.0.0.1, host vm CPU 0; rank 1 on 10.0.0.2, host vm CPU 1; Open MPI v4.1.4, package: Debian";

    fn mpi_point(experiment: &str, params: &[(&str, &str)], median: f64, hosts: bool) -> PointRecord {
        let mut p = point(experiment, "mpi", params, median);
        p.notes = vec![if hosts { NOTE_HOSTS } else { NOTE_LOCAL }.into()];
        if hosts {
            p.spec.hosts = vec!["10.0.0.1".into(), "10.0.0.2".into()];
        }
        p
    }

    fn host_matrix(title: &str, unit: &str, value: f64) -> Matrix {
        let mut m = Matrix::square(title, unit, vec!["10.0.0.1".into(), "10.0.0.2".into()]);
        m.values[0][1] = Some(value);
        m.values[1][0] = Some(value * 1.1);
        m
    }

    /// A record of every mpi experiment: one host and across hosts.
    pub fn mpi_record() -> RunRecord {
        let mut record = sample_record();
        record.skipped.clear();
        record.points = vec![
            mpi_point(
                overhead_schema::experiments::mpi::PINGPONG,
                &[("payload", "8"), ("placement", "other_core")],
                550.0,
                false,
            ),
            mpi_point(
                overhead_schema::experiments::mpi::PINGPONG,
                &[("payload", "8"), ("placement", "other_host")],
                8_000.0,
                true,
            ),
            mpi_point(
                overhead_schema::experiments::mpi::PINGPONG,
                &[("payload", "1048576"), ("placement", "other_host")],
                2e6,
                true,
            ),
            mpi_point(overhead_schema::experiments::mpi::BARRIER, &[("bytes", "0"), ("ranks", "2")], 400.0, false),
            mpi_point(
                overhead_schema::experiments::mpi::BARRIER,
                &[("bytes", "0"), ("ranks", "2"), ("placement", "other_host")],
                5_500.0,
                true,
            ),
            mpi_point(overhead_schema::experiments::mpi::ALLREDUCE, &[("bytes", "8"), ("ranks", "2")], 420.0, false),
            mpi_point(
                overhead_schema::experiments::mpi::ALLREDUCE,
                &[("bytes", "8"), ("ranks", "2"), ("placement", "other_host")],
                5_600.0,
                true,
            ),
        ];
        let mut bw = mpi_point(
            overhead_schema::experiments::mpi::BW,
            &[("payload", "1048576"), ("window", "64"), ("placement", "other_host")],
            1_048_576.0 / 650.0 * 1e3,
            true,
        );
        bw.extra.insert("mb_per_s".into(), 650.0);
        bw.extra.insert("payload_bytes".into(), 1_048_576.0);
        record.points.push(bw);
        let mut hosts = mpi_point(
            overhead_schema::experiments::mpi::HOSTS,
            &[("ranks", "2"), ("placement", "other_host")],
            8_100.0,
            true,
        );
        hosts
            .details
            .matrices
            .insert("rtt".into(), host_matrix(overhead_schema::experiments::mpi::RTT_TITLE, "ns", 8_100.0));
        hosts
            .details
            .matrices
            .insert("bw".into(), host_matrix(overhead_schema::experiments::mpi::BW_TITLE, "MB/s", 640.0));
        record.points.push(hosts);
        let skipped = point(
            overhead_schema::experiments::mpi::PINGPONG,
            "mpi",
            &[("payload", "8"), ("placement", "same_cpu")],
            1.0,
        )
        .spec;
        record.skipped.push(SkippedPoint::new(
            skipped,
            SkipKind::Skipped,
            overhead_schema::experiments::mpi::NOT_ON_ONE_CPU,
        ));
        record
    }

    #[test]
    fn pingpong_sets_one_host_beside_other_host_with_where_ranks_ran() {
        let text = mpi_tables(&mpi_record(), Format::Md);
        let header = text.lines().find(|l| l.starts_with("| payload")).unwrap();
        let (same, core, host) =
            (header.find("same_cpu").unwrap(), header.find("other_core").unwrap(), header.find("other_host").unwrap());
        assert!(same < core && core < host, "{header}");
        let row = text.lines().find(|l| l.starts_with("| 8 B")).unwrap();
        assert!(row.contains("550 ns ±") && row.contains("8.00 µs ±") && row.contains("— [1]"), "{row}");
        assert!(text.contains("- [1] same_cpu: MPI ranks poll"), "{text}");
        assert!(text.contains(
            "- where the ranks ran, other_host: rank 0 on 10.0.0.1, host vm CPU 0; rank 1 on 10.0.0.2, host vm CPU 1\n"
        ));
        assert!(text.contains("| 1 MiB") && text.contains("2.00 ms ±"), "{text}");
        assert!(text.contains("MPI library: Open MPI v4.1.4, package: Debian"), "{text}");
        assert_eq!(text.matches("MPI library").count(), 1, "{text}");
    }

    #[test]
    fn bandwidth_and_collectives_with_their_intervals() {
        let text = mpi_tables(&mpi_record(), Format::Table);
        let bw = text.lines().find(|l| l.contains("1 MiB") && l.contains('(')).unwrap();
        assert!(bw.contains("650 ("), "{bw}");
        let across = text.lines().find(|l| l.contains("one per host (other_host)")).unwrap();
        assert!(across.contains("5.50 µs ±") && across.contains("5.60 µs ±"), "{across}");
        let local = text.lines().find(|l| l.contains("one host, one per CPU")).unwrap();
        assert!(local.contains("400 ns ±") && local.contains("420 ns ±"), "{local}");
        let header = text.lines().find(|l| l.contains("barrier") && l.contains("allreduce 8 B")).unwrap();
        assert!(header.find("barrier").unwrap() < header.find("allreduce").unwrap(), "{header}");
    }

    #[test]
    fn host_matrices_with_the_class_of_each_cell() {
        let text = mpi_tables(&mpi_record(), Format::Table);
        assert!(text.contains("mpi.hosts/runtime:mpi/ranks:2/placement:other_host — rtt: 8 B MPI ping-pong"), "{text}");
        assert!(text.contains("— bw: 1 MiB MPI bandwidth") && text.contains("(MB/s)"), "{text}");
        assert!(text.contains("8100") && text.contains("640"), "{text}");
        assert!(text.contains("same host: n/a") && text.contains("other_host (hosts share machine vm)"), "{text}");
        assert_eq!(cell_class(&["a".into(), "b".into()], 0, 1), "other_host");
        assert_eq!(cell_class(&[], 1, 0), "other_host");
        assert_eq!(machines(NOTE_HOSTS), ["vm", "vm"]);
    }

    #[test]
    fn host_matrices_are_heat_maps_with_host_axes() {
        let figures = host_figures(&mpi_record()).unwrap();
        assert_eq!(figures.len(), 2);
        assert!(figures[0].title.ends_with("round trip") && figures[1].title.ends_with("bandwidth"));
        assert!(figures[0].svg.contains(">\nhost\n<") && !figures[0].svg.contains(">\nCPU\n<"), "axes name hosts");
        assert!(figures[1].caption.iter().any(|c| c.contains("other_host (hosts share machine vm) off the diagonal")));
        assert!(figures[1].svg.contains(">\nfrom host (row)\n<") && figures[1].svg.contains(">\nto host (column)\n<"));
    }

    #[test]
    fn one_host_says_why_there_is_no_matrix_and_nothing_without_mpi() {
        assert!(mpi_tables(&sample_record(), Format::Table).is_empty());
        let mut record = sample_record();
        let spec = point(overhead_schema::experiments::mpi::HOSTS, "mpi", &[("ranks", "2")], 1.0).spec;
        record.skipped =
            vec![SkippedPoint::new(spec, SkipKind::Skipped, overhead_schema::experiments::mpi::NEEDS_HOSTS)];
        let text = mpi_tables(&record, Format::Table);
        assert_eq!(text, "mpi.hosts: no host matrix (needs --hosts with two or more hosts)\n");
    }
}
