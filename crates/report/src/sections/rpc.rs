//! Walfield's per-method table for this machine: for each transport and placement, the four methods of
//! `rpc.methods` with time on each side, % of the time, calls, µs per call on each side and the delta, as
//! Walfield printed it; under it, what the delta is made of, from the `rpc.floor` point of the same transport
//! and placement: the bare socket (transport), the rest (framing, protocol and runtime), and what cold caches
//! add (the study's unaccounted cycles). Everything is read from the record; nothing is computed here.

use crate::sections::Section;
use comfy_table::{Cell, CellAlignment};

use overhead_humanize::format_ns;
use overhead_record::{PointRecord, PointSpec, RunRecord};
use overhead_render::new_table;
use overhead_render::Format;
use overhead_schema::experiments::msg::IpcParams;
use overhead_schema::experiments::rpc::{FloorResult, MethodsParams, COLUMNS, TABLE_KEY};
use overhead_schema::variants::ipc::IpcTransport;
use overhead_schema::variants::rpc::RpcTransport;

const METHODS: &str = overhead_schema::experiments::rpc::METHODS;
const FLOOR: &str = overhead_schema::experiments::rpc::FLOOR;

/// The study's header: time (ms) client/server, % time client/server, calls, µs per call client/server, delta.
const HEADER: [&str; 9] = [
    "method",
    "client ms",
    "server ms",
    "client %",
    "server %",
    "calls",
    "client µs/call",
    "server µs/call",
    "delta µs",
];

/// The record's columns in the order of [`HEADER`] (after the method), with the decimals each is shown with.
const SHOWN: [(&str, usize); 8] = [
    ("client_ms", 2),
    ("server_ms", 2),
    ("client_pct", 1),
    ("server_pct", 1),
    ("calls", 0),
    ("client_us_per_call", 1),
    ("server_us_per_call", 1),
    ("delta_us", 1),
];

fn is_rpc(spec: &PointSpec) -> bool {
    spec.experiment == METHODS || spec.experiment == FLOOR
}

/// A point's transport, typed (both experiments' parameters have it).
fn transport(spec: &PointSpec) -> Option<RpcTransport> {
    spec.params_as::<MethodsParams>().ok().map(|p| p.transport)
}

/// "unix socket, same_cpu": what a point's transport and placement are.
fn heading(spec: &PointSpec) -> String {
    let transport = match transport(spec) {
        Some(RpcTransport::Unix) => "UNIX socket",
        Some(RpcTransport::Tcp) => "TCP loopback",
        None => "?",
    };
    format!("{transport}, {}", spec.placement.map_or("?", |p| p.name()))
}

/// The rpc section: one table per `rpc.methods` point with its reconciliation, then the `rpc.floor` points
/// that have no `rpc.methods` point beside them, the skipped points with their reasons, and a legend. Empty
/// when the record has no `rpc.*` point.
pub fn rpc_tables(record: &RunRecord, format: Format) -> String {
    if !record.points.iter().any(|p| is_rpc(&p.spec)) && !record.skipped.iter().any(|s| is_rpc(&s.spec)) {
        return String::new();
    }
    let same_pair = |a: &PointSpec, b: &PointSpec| transport(a) == transport(b) && a.placement == b.placement;
    let floors: Vec<&PointRecord> = record.points.iter().filter(|p| p.spec.experiment == FLOOR).collect();
    let mut out = String::new();
    for p in record.points.iter().filter(|p| p.spec.experiment == METHODS) {
        out += &method_table(p, format);
        match floors.iter().find(|f| same_pair(&f.spec, &p.spec)) {
            Some(f) => out += &as_paragraphs(reconciliation(f) + &ping_pong_line(record, f), format),
            None => out += "no rpc.floor point for this transport and placement: the delta is not split\n",
        }
        out += "\n";
    }
    let methods: Vec<&PointSpec> =
        record.points.iter().filter(|p| p.spec.experiment == METHODS).map(|p| &p.spec).collect();
    for f in floors.iter().filter(|f| !methods.iter().any(|m| same_pair(m, &f.spec))) {
        out += &format!("{} (rpc.floor only)\n{}\n", heading(&f.spec), as_paragraphs(reconciliation(f), format));
    }
    for s in record.skipped.iter().filter(|s| is_rpc(&s.spec)) {
        out += &format!("{}: {}\n", s.name, s.reason);
    }
    out += "client: the stub's time around each call; server: its time from the receipt of the decoded request \
            to the reply; % of the client's time over all four methods; delta = client − server per call (Walfield's \
             RPC overhead); the table is one process's tallies (the one nearest the point's estimate), the \
            split under it medians over processes\n";
    out
}

/// The heading, the study's table and the harness's per-call line of one `rpc.methods` point.
fn method_table(p: &PointRecord, format: Format) -> String {
    let mut table = new_table(format);
    table.set_header(HEADER.to_vec());
    if let Some(t) = p.details.tables.get(TABLE_KEY) {
        for (label, cells) in &t.rows {
            let mut row = vec![Cell::new(label)];
            for (column, decimals) in SHOWN {
                let value = t.columns.iter().position(|c| c == column).and_then(|i| cells.get(i).copied().flatten());
                let text = value.map_or_else(|| "—".to_string(), |v| format!("{v:.decimals$}"));
                row.push(Cell::new(text).set_alignment(CellAlignment::Right));
            }
            table.add_row(row);
        }
    }
    debug_assert!(SHOWN.iter().all(|(c, _)| COLUMNS.contains(c)), "the report shows the record's columns");
    let heading = format!("{} — {}", heading(&p.spec), p.name);
    let s = &p.summary;
    let processes = p.processes.len().max(1);
    let per_call = format!(
        "per call over the mix (harness, empty loop subtracted): {} ±{} (95% CI, {processes} processes)\n",
        format_ns(s.median),
        format_ns(s.ci_half_width())
    );
    match format {
        Format::Table => format!("{heading}\n{table}\n{per_call}"),
        // A blank line ends a Markdown table; without it the next line would read as a row.
        Format::Md => format!("### {heading}\n\n{table}\n\n{per_call}\n"),
    }
}

/// The `msg.ipc` transport that carries an `rpc.*` transport's bytes without RPC.
fn ipc_transport(rpc_transport: RpcTransport) -> IpcTransport {
    match rpc_transport {
        RpcTransport::Unix => IpcTransport::UnixStream,
        RpcTransport::Tcp => IpcTransport::Tcp,
    }
}

/// Walfield's ping-pong beside the floor: `msg.ipc`'s round trip on the same transport and placement at
/// the largest payload not above the request's size (else the smallest), or nothing without one. The
/// kernel's round trip (`os`'s), not an async runtime's own socket's, which adds its executor's path.
fn ping_pong_line(record: &RunRecord, floor: &PointRecord) -> String {
    let Some(transport) = transport(&floor.spec).map(ipc_transport) else { return String::new() };
    let request = floor.result_as::<FloorResult>().map_or(0.0, |r| r.request_bytes);
    let mut candidates: Vec<(f64, &PointRecord)> = record
        .points
        .iter()
        .filter(|p| {
            p.spec.experiment == overhead_schema::experiments::msg::IPC
                && p.spec.runtime == overhead_schema::runtimes::OS
                && p.spec.placement == floor.spec.placement
        })
        .filter_map(|p| {
            p.spec.params_as::<IpcParams>().ok().filter(|q| q.transport == transport).map(|q| (q.payload as f64, p))
        })
        .collect();
    candidates.sort_by(|a, b| a.0.total_cmp(&b.0));
    let chosen = candidates.iter().rev().find(|(bytes, _)| *bytes <= request).or(candidates.first());
    chosen.map_or_else(String::new, |(bytes, p)| {
        format!(
            "ping-pong (msg.ipc, {}, {bytes:.0} B each way): {} ±{}, the round trip below any call on this \
             transport\n",
            transport.name(),
            format_ns(p.summary.median),
            format_ns(p.summary.ci_half_width())
        )
    })
}

/// `lines` (each ending in a newline) as the format keeps them apart: in Markdown, and so in the HTML page, a
/// paragraph each (a single newline there joins them into one run-on paragraph).
fn as_paragraphs(lines: String, format: Format) -> String {
    match format {
        Format::Table => lines,
        Format::Md => lines.replace('\n', "\n\n"),
    }
}

/// What one `rpc.floor` point says the delta is made of: two lines, from its extras and its median.
fn reconciliation(f: &PointRecord) -> String {
    let r = f.result_as::<FloorResult>().ok();
    let x = |field: fn(&FloorResult) -> Option<f64>| r.as_ref().and_then(field).unwrap_or(f64::NAN);
    let bytes =
        |field: fn(&FloorResult) -> f64| r.as_ref().map_or_else(|| "?".to_string(), |r| format!("{:.0} B", field(r)));
    let s = &f.summary;
    let hot = format!(
        "object discard's delta, hot: {}; transport {} ±{} (bare socket round trip, {} out, {} back); framing, \
         protocol and runtime {} (delta − bare socket)\n",
        format_ns(x(|r| r.grpc_hot_delta_ns)),
        format_ns(s.median),
        format_ns(s.ci_half_width()),
        bytes(|r| r.request_bytes),
        bytes(|r| r.reply_bytes),
        format_ns(x(|r| Some(r.framing_runtime_ns))),
    );
    let cold = format!(
        "cold (both processes streamed {:.0} MiB through their caches before each call): delta {}; cold − hot {} \
         (Walfield's unaccounted cycles); bare socket cold − hot {}\n",
        x(|r| Some(r.evict_bytes)) / (1 << 20) as f64,
        format_ns(x(|r| r.grpc_cold_delta_ns)),
        format_ns(x(|r| Some(r.cold_minus_hot_ns))),
        format_ns(x(|r| Some(r.bare_cold_minus_hot_ns))),
    );
    hot + &cold
}

/// The report's `rpc` section (docs/ARCHITECTURE.md "Renderers").
pub const SECTION: Section = Section {
        key: "rpc",
        title: "Walfield 2008 table: RPC time per method, client vs. server, and what the delta is made of",
        about: "Walfield's per-method RPC table (rpc.methods) with its delta split into transport, framing and cold caches (rpc.floor)",
        position: 60,
        render: rpc_tables,
    };

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};
    use overhead_record::{LabelledTable, SkipKind, SkippedPoint};

    fn methods_point(transport: &str, placement: &str) -> PointRecord {
        let mut p = point(METHODS, "os", &[("transport", transport), ("placement", placement)], 30_000.0);
        let row = |label: &str, cells: [f64; 8]| (label.to_string(), cells.map(Some).to_vec());
        p.details.tables.insert(
            TABLE_KEY.into(),
            LabelledTable {
                title: "t".into(),
                unit: "u".into(),
                columns: COLUMNS.iter().map(|c| c.to_string()).collect(),
                rows: vec![
                    row("object discard", [150.0, 6.25, 2.0, 78.0, 25.0, 41.667, 13.333, 28.333]),
                    row("folio alloc", [6.0, 0.5, 0.3, 6.2, 3.7, 83.3, 50.0, 33.3]),
                ],
            },
        );
        p
    }

    fn floor_point(transport: &str, placement: &str) -> PointRecord {
        let mut p =
            point(FLOOR, "os", &[("transport", transport), ("evict_mib", "64"), ("placement", placement)], 9_000.0);
        let result = FloorResult {
            grpc_hot_client_ns: Some(35_000.0),
            grpc_hot_server_ns: Some(7_000.0),
            grpc_hot_delta_ns: Some(28_000.0),
            grpc_hot_calls: 100.0,
            grpc_cold_client_ns: Some(50_000.0),
            grpc_cold_server_ns: Some(9_000.0),
            grpc_cold_delta_ns: Some(41_000.0),
            grpc_cold_calls: 9.0,
            transport_ns: 9_000.0,
            framing_runtime_ns: 19_000.0,
            bare_cold_ns: 13_500.0,
            cold_minus_hot_ns: 13_000.0,
            bare_cold_minus_hot_ns: 4_500.0,
            request_bytes: 108.0,
            reply_bytes: 18.0,
            evict_bytes: 64.0 * (1 << 20) as f64,
        };
        p.extra = overhead_record::result::to_extra(&result);
        p
    }

    #[test]
    fn the_seeds_table_with_its_delta_split_under_it() {
        let mut record = sample_record();
        record.points = vec![
            methods_point("unix", "same_cpu"),
            floor_point("unix", "same_cpu"),
            methods_point("tcp", "same_cpu"),
            floor_point("tcp", "other_core"),
        ];
        let spec = methods_point("tcp", "other_core").spec;
        record.skipped = vec![SkippedPoint::new(spec, SkipKind::Skipped, "needs a second usable CPU")];
        let text = rpc_tables(&record, Format::Md);
        let unix = &text[text.find("### UNIX socket, same_cpu").unwrap()..text.find("### TCP loopback").unwrap()];
        let discard = unix.lines().find(|l| l.starts_with("| object discard")).unwrap();
        let cells: Vec<&str> = discard.split('|').map(str::trim).filter(|c| !c.is_empty()).collect();
        assert_eq!(cells, ["object discard", "6.25", "2.00", "78.0", "25.0", "150", "41.7", "13.3", "28.3"]);
        assert!(unix.find("object discard").unwrap() < unix.find("folio alloc").unwrap(), "the record's row order");
        assert!(unix.contains("per call over the mix (harness, empty loop subtracted): 30.0 µs ±"), "{unix}");
        assert!(unix.contains("object discard's delta, hot: 28.0 µs; transport 9.00 µs ±"), "{unix}");
        assert!(
            unix.contains("(bare socket round trip, 108 B out, 18 B back); framing, protocol and runtime 19.0 µs"),
            "{unix}"
        );
        assert!(unix.contains("streamed 64 MiB") && unix.contains("cold − hot 13.0 µs"), "{unix}");
        assert!(unix.contains("bare socket cold − hot 4.50 µs"), "{unix}");
        // In Markdown (and so on the HTML page) the hot and cold lines are paragraphs of their own.
        assert!(unix.contains("(delta − bare socket)\n\ncold (both processes"), "{unix}");
        // The TCP floor point is at another placement: not paired, shown on its own.
        let tcp = &text[text.find("### TCP loopback, same_cpu").unwrap()..];
        assert!(tcp.contains("no rpc.floor point for this transport and placement"), "{tcp}");
        assert!(tcp.contains("TCP loopback, other_core (rpc.floor only)"), "{tcp}");
        assert!(text.contains("rpc.methods/runtime:os/transport:tcp/placement:other_core: needs a second usable CPU"));
        assert!(rpc_tables(&record, Format::Table).contains("│ object discard"));
    }

    /// The ping-pong line takes the kernel's `msg.ipc` (`os`'s, not an async runtime's own socket, listed
    /// after it) on the same transport and placement, at the largest payload not above the request (8 B here,
    /// not 4 KiB), and is absent without such a point.
    #[test]
    fn ping_pong_beside_the_floor() {
        let mut record = sample_record();
        let ipc = |transport: &str, payload: &str, placement: &str, ns: f64| {
            point("msg.ipc", "os", &[("transport", transport), ("payload", payload), ("placement", placement)], ns)
        };
        record.points = vec![
            methods_point("unix", "same_cpu"),
            floor_point("unix", "same_cpu"),
            ipc("unix_stream", "8", "same_cpu", 7_000.0),
            ipc("unix_stream", "4096", "same_cpu", 8_000.0),
            ipc("unix_stream", "8", "other_core", 30_000.0),
            ipc("pipe", "8", "same_cpu", 5_000.0),
        ];
        let mut monoio = ipc("unix_stream", "8", "same_cpu", 9_900.0);
        monoio.spec.runtime = "monoio".into();
        record.points.push(monoio);
        let text = rpc_tables(&record, Format::Table);
        assert!(text.contains("ping-pong (msg.ipc, unix_stream, 8 B each way): 7.00 µs ±"), "{text}");
        record.points.retain(|p| p.spec.param("transport") != Some("unix_stream"));
        assert!(!rpc_tables(&record, Format::Table).contains("ping-pong"));
    }

    #[test]
    fn empty_without_rpc_points() {
        assert!(rpc_tables(&sample_record(), Format::Table).is_empty());
    }
}
