//! Walfield's ping-pong table for today's IPC (`msg.ipc`): payload rows × transport columns, the round
//! trip in ns and in counter ticks (the study gave cycles), one table per placement; and the streaming
//! bandwidth beside it (`msg.bw`, MB/s). The kernel's rows (`os`) only: an async runtime's own sockets
//! compete with them in the `choose` section.

use crate::sections::Section;
use comfy_table::{Cell, CellAlignment};

use overhead_humanize::format_ns;
use overhead_machine::Placement;
use overhead_record::{PointSpec, RunRecord};
use overhead_render::new_table;
use overhead_render::Format;
use overhead_schema::experiments::msg::IpcParams;
use overhead_schema::variants::ipc::IpcTransport;

const PING_PONG: &str = overhead_schema::experiments::msg::IPC;
const BANDWIDTH: &str = overhead_schema::experiments::msg::BW;

/// The kernel's points and skipped cells of `experiment` (`os`'s: the table's).
fn kernel_specs<'r>(record: &'r RunRecord, experiment: &'r str) -> impl Iterator<Item = &'r PointSpec> {
    let specs = record.points.iter().map(|p| &p.spec).chain(record.skipped.iter().map(|s| &s.spec));
    specs.filter(move |s| s.experiment == experiment && s.runtime == overhead_schema::runtimes::OS)
}

/// The placements with any point of `experiment`, in the record's order.
fn placements(record: &RunRecord, experiment: &str) -> Vec<Placement> {
    let mut seen: Vec<Placement> = Vec::new();
    for spec in kernel_specs(record, experiment) {
        if let Some(p) = spec.placement {
            if !seen.contains(&p) {
                seen.push(p);
            }
        }
    }
    seen
}

/// The payloads of `experiment`'s points, ascending.
fn payloads(record: &RunRecord, experiment: &str) -> Vec<usize> {
    let mut sizes: Vec<usize> =
        kernel_specs(record, experiment).filter_map(|s| Some(s.params_as::<IpcParams>().ok()?.payload)).collect();
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

fn is_cell(spec: &PointSpec, experiment: &str, placement: Placement, transport: IpcTransport, payload: usize) -> bool {
    spec.experiment == experiment
        && spec.runtime == overhead_schema::runtimes::OS
        && spec.placement == Some(placement)
        && spec.params_as::<IpcParams>().ok() == Some(IpcParams { transport, payload })
}

/// "4 KiB", "1 MiB", "8 B".
fn bytes_text(n: usize) -> String {
    match n {
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n => format!("{n} B"),
    }
}

/// Counter ticks, three significant digits ("73.2k").
fn ticks_text(ticks: f64) -> String {
    let (value, suffix) = match ticks {
        t if t >= 1e6 => (t / 1e6, "M"),
        t if t >= 1e3 => (t / 1e3, "k"),
        t => (t, ""),
    };
    match value {
        v if v >= 100.0 || suffix.is_empty() => format!("{v:.0}{suffix}"),
        v if v >= 10.0 => format!("{v:.1}{suffix}"),
        v => format!("{v:.2}{suffix}"),
    }
}

/// One table of `experiment` for one placement; `cell` formats a measured point's median (ns) for its
/// payload. Skipped cells are footnoted with their reason.
fn table(
    record: &RunRecord,
    experiment: &str,
    placement: Placement,
    transports: &[IpcTransport],
    format: Format,
    footnotes: &mut Vec<String>,
    cell: &dyn Fn(f64, usize) -> String,
) -> String {
    let mut table = new_table(format);
    let mut header = vec!["payload".to_string()];
    header.extend(transports.iter().map(|t| t.name().to_string()));
    table.set_header(header);
    for payload in payloads(record, experiment) {
        let mut cells = vec![Cell::new(bytes_text(payload)).set_alignment(CellAlignment::Right)];
        for &t in transports {
            let text = if let Some(p) =
                record.points.iter().find(|p| is_cell(&p.spec, experiment, placement, t, payload))
            {
                cell(p.summary.median, payload)
            } else if let Some(s) = record.skipped.iter().find(|s| is_cell(&s.spec, experiment, placement, t, payload))
            {
                let note = format!("{}: {}", t.name(), s.reason);
                let index = footnotes.iter().position(|n| *n == note).unwrap_or_else(|| {
                    footnotes.push(note);
                    footnotes.len() - 1
                });
                format!("— [{}]", index + 1)
            } else {
                "—".into()
            };
            cells.push(Cell::new(text).set_alignment(CellAlignment::Right));
        }
        table.add_row(cells);
    }
    let heading = |text: String| match format {
        Format::Table => format!("{text}\n{table}\n"),
        Format::Md => format!("### {text}\n\n{table}\n\n"),
    };
    heading(format!("{experiment}, placement {}", placement.name()))
}

/// The ping-pong tables (round trip: ns / counter ticks) and the bandwidth tables (MB/s), one per
/// placement, with the footnotes of skipped cells. Empty without `msg.ipc` and `msg.bw` points.
pub fn ipc_tables(record: &RunRecord, format: Format) -> String {
    let hz = record.time_source.clock.hz;
    let mut out = String::new();
    let mut footnotes = Vec::new();
    let rtt = |ns: f64, _: usize| format!("{} / {}", format_ns(ns), ticks_text(ns * hz / 1e9));
    for placement in placements(record, PING_PONG) {
        out += &table(record, PING_PONG, placement, &IpcTransport::ALL, format, &mut footnotes, &rtt);
    }
    let mb_per_s = |ns: f64, payload: usize| format!("{:.0} MB/s", payload as f64 / ns * 1e3);
    for placement in placements(record, BANDWIDTH) {
        out += &table(record, BANDWIDTH, placement, &IpcTransport::STREAMS, format, &mut footnotes, &mb_per_s);
    }
    if out.is_empty() {
        return out;
    }
    for (i, note) in footnotes.iter().enumerate() {
        out += &format!("[{}] {note}\n", i + 1);
    }
    out + "msg.ipc cells: median round trip, ns / counter ticks; msg.bw cells: payload over the median time per message\n"
}

/// The report's `ipc` section (docs/ARCHITECTURE.md "Renderers").
pub const IPC: Section = Section {
    key: "ipc",
    title: "Walfield 2008 ping-pong table: IPC round trip by payload and transport",
    about: "Walfield's ping-pong table: msg.ipc round trips (ns / ticks) per payload and transport, msg.bw MB/s",
    position: 50,
    render: ipc_tables,
};

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};
    use overhead_record::{SkipKind, SkippedPoint};

    #[test]
    fn rows_by_payload_columns_by_transport_ticks_and_footnotes() {
        let mut record = sample_record();
        let hz = record.time_source.clock.hz;
        record.points = vec![
            // An async runtime's own socket in the same cell: not the kernel's, so not the table's.
            point("msg.ipc", "tokio", &[("transport", "pipe"), ("payload", "8"), ("placement", "same_cpu")], 9990.0),
            point("msg.ipc", "os", &[("transport", "pipe"), ("payload", "8"), ("placement", "same_cpu")], 7400.0),
            point("msg.ipc", "os", &[("transport", "tcp"), ("payload", "4096"), ("placement", "same_cpu")], 21300.0),
            point("msg.bw", "os", &[("transport", "pipe"), ("payload", "65536"), ("placement", "same_cpu")], 65536.0),
        ];
        let spec =
            point("msg.ipc", "os", &[("transport", "eventfd"), ("payload", "4096"), ("placement", "same_cpu")], 1.0)
                .spec;
        record.skipped = vec![SkippedPoint::new(spec, SkipKind::Skipped, "an eventfd carries no payload")];
        let text = ipc_tables(&record, Format::Md);
        let header = text.lines().find(|l| l.contains("payload") && l.contains("pipe")).unwrap();
        let columns: Vec<&str> = header.split('|').map(str::trim).filter(|c| !c.is_empty()).collect();
        assert_eq!(columns[1..], IpcTransport::ALL.map(|t| t.name())[..], "{header}");
        let row8 = text.lines().find(|l| l.contains(" 8 B |")).expect(&text);
        assert!(row8.contains(&format!("7.40 µs / {}", ticks_text(7400.0 * hz / 1e9))), "{row8}");
        assert!(!text.contains("9.99 µs"), "{text}");
        let row4k = text.lines().find(|l| l.contains("4 KiB")).unwrap();
        assert!(row4k.contains("— [1]") && row4k.contains("21.3 µs"), "{row4k}");
        assert!(text.contains("[1] eventfd: an eventfd carries no payload"), "{text}");
        // 64 KiB in 65.5 µs: 1000 MB/s.
        assert!(text.contains("1000 MB/s"), "{text}");
    }

    #[test]
    fn ticks_have_three_significant_digits() {
        assert_eq!(ticks_text(18_103.0), "18.1k");
        assert_eq!(ticks_text(2_795_000.0), "2.79M");
        assert_eq!(ticks_text(467_637.0), "468k");
        assert_eq!(ticks_text(950.0), "950");
    }

    #[test]
    fn empty_without_ipc_points() {
        assert!(ipc_tables(&sample_record(), Format::Table).is_empty());
    }
}
