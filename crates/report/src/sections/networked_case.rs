//! Souvatzis's networked case (Souvatzis, MPD/SR on NetBSD; docs/notes-seed004-network.md): each local
//! primitive of the Souvatzis table as a fraction of the network round trip measured in the same run, and
//! the study's verdicts per runtime — the networked case against the round trip, the local case against the
//! fastest back-end — as its conclusions (slides L221–225) draw them.

use comfy_table::{Cell, CellAlignment};

use crate::sections::Section;
use overhead_analysis::networked_case::{
    columns, point_of, round_trip, runtime_cases, Estimate, Networked, RuntimeCase, HEAVY_ROWS, LOCAL_ACCEPTABLE,
};
use overhead_analysis::primitive_rows::ROWS;
use overhead_humanize::format_ns;
use overhead_record::RunRecord;
use overhead_render::{new_table, Format};

/// The report's `networked` section (docs/ARCHITECTURE.md "Renderers"), right after Souvatzis's table.
pub const NETWORKED_CASE: Section = Section {
    key: "networked",
    title: "Souvatzis's networked case: local primitives against the network round trip",
    about: "Souvatzis's networked case: each primitive as a fraction of the other_host round trip of the same \
            run, and the verdict per runtime (networked and local case)",
    position: 15,
    render: networked_case,
};

/// The study, as the README cites it (the slides state no year).
pub const SEED: &str = "I. Souvatzis, \"Eine maschinenunabhängige Portierung des MPD- und SR-Laufzeitsystems auf \
                        NetBSD\" (a machine-independent port of the MPD and SR run-time system to NetBSD), slides, \
                        University of Bonn (undated)";

/// A fraction with three significant digits: 0.279, 0.0220, 0.000180.
pub fn fraction_text(x: f64) -> String {
    if !x.is_finite() {
        return "∞".into();
    }
    if x <= 0.0 {
        return "0".into();
    }
    let digits = (2 - x.log10().floor() as i64).clamp(0, 9) as usize;
    format!("{x:.digits$}")
}

/// The local-case words for a runtime `ratio` × the fastest over `rows` switch-bound rows, `acceptable` or not
/// as the analysis judged it.
fn local_words(ratio: f64, rows: usize, is_fastest: bool, acceptable: bool) -> String {
    let rows = overhead_humanize::counted(rows, "row", "rows");
    if is_fastest {
        return format!("fastest ({rows})");
    }
    let judgement = if acceptable { "acceptable" } else { "slow" };
    let digits = if ratio >= 100.0 { 0 } else { 1 };
    format!("{judgement}: {ratio:.digits$}× ({rows})")
}

fn subheading(title: &str, format: Format) -> String {
    match format {
        Format::Table => format!("{title}\n"),
        Format::Md => format!("### {title}\n\n"),
    }
}

/// The section: the round trip, the fractions table, the verdicts; empty when the record has none of
/// Souvatzis's rows; without an other-host round trip, the reason there is no verdict.
pub fn networked_case(record: &RunRecord, format: Format) -> String {
    let runtimes = columns(record, &record.catalog);
    if runtimes.is_empty() {
        return String::new();
    }
    let bullet = if format == Format::Md { "- " } else { "" };
    let blank = if format == Format::Md { "\n\n" } else { "\n" };
    let mut out = format!(
        "{bullet}After {SEED}: \"on the Ethernet used, the two-way delay is about 200 µs\" (L138–139); its \
         conclusions judge the local case against the fastest back-end and the networked case against that \
         round trip (L221–225). Here the round trip is measured in this run, never assumed.\n"
    );
    let Some(rt) = round_trip(record) else {
        out += &format!(
            "{bullet}No other-host round trip in this record (mpi.pingpong payload 8 or msg.ipc tcp payload 8 with \
             placement:other_host; run with --hosts): no networked verdict. The study's 200 µs is not assumed: \
             a LAN round trip today is often tens of µs or less.\n"
        );
        return out;
    };
    let rtt = Estimate::of(rt.point);
    out += &format!(
        "{bullet}Round trip R = {} (95% CI {}–{}): {} — {}.\n",
        format_ns(rtt.median),
        format_ns(rtt.low),
        format_ns(rtt.high),
        rt.point.name,
        rt.source
    );
    if let Some(note) = crate::sections::mpi::ranks_note(rt.point) {
        out += &format!("{bullet}where its ranks ran: {note}\n");
    }
    out += "\n";
    out += &fractions_table(record, &runtimes, rtt, format);
    out += &format!(
        "{blank}{bullet}† the rows that decide the networked case (the study's \"process creation/destruction/\
         synchronisation\", L216)\n\n"
    );
    out += &subheading("verdict per runtime", format);
    let cases = runtime_cases(record, &runtimes, rtt, &record.catalog);
    out += &format!("{}{blank}", verdicts_table(&cases, format));
    out += &format!(
        "{bullet}Networked case: good enough when the upper bound of r is ≤ 1/4, not good enough when its lower \
         bound is > 1/4, else borderline. 1/4 reproduces every networked verdict of the study (machine A ≤ 0.022 \
         acceptable; B context_u ≤ 0.136 acceptable; B SVR4 0.27–0.29 \"unakzeptabel\") and sits on its 300 MHz \
         line (docs/notes-seed004-network.md).\n"
    );
    let fastest = cases.iter().find(|c| c.fastest).map(|c| c.runtime.as_str());
    out += &format!(
        "{bullet}Local case: × = the geometric mean, over the switch-bound rows the runtime has, of its median over \
         the fastest runtime's on that row{}; \"acceptable\" within {LOCAL_ACCEPTABLE}× (the study's context_u, \
         acceptable locally, was about 3.6× assembler on those rows; the study states no number, this bound is \
         the report's reading).\n",
        fastest.map_or(String::new(), |f| format!(" (fastest overall: {f})"))
    );
    out
}

/// Each primitive's median as a fraction of the round trip: Souvatzis's rows × the runtimes, the heavy rows
/// marked †, under its subheading.
fn fractions_table(record: &RunRecord, runtimes: &[String], rtt: Estimate, format: Format) -> String {
    let mut table = new_table(format);
    let mut header = vec!["primitive (Souvatzis)".to_string()];
    header.extend(runtimes.iter().cloned());
    table.set_header(header);
    for row in ROWS.iter().filter(|row| runtimes.iter().any(|r| point_of(record, row, r, &record.catalog).is_some())) {
        let heavy = HEAVY_ROWS.contains(&row.label);
        let label = if heavy { format!("{} †", row.label) } else { row.label.to_string() };
        let mut cells = vec![Cell::new(label)];
        for runtime in runtimes {
            let text = point_of(record, row, runtime, &record.catalog)
                .map_or("—".into(), |p| fraction_text(p.summary.median / rtt.median));
            cells.push(Cell::new(text).set_alignment(CellAlignment::Right));
        }
        table.add_row(cells);
    }
    format!("{}{table}", subheading("each primitive's median as a fraction of R", format))
}

/// One row per runtime: its largest heavy row, r with its interval, the networked verdict and the local case.
fn verdicts_table(cases: &[RuntimeCase<'_>], format: Format) -> String {
    let mut table = new_table(format);
    table.set_header(vec![
        "runtime",
        "largest heavy row",
        "r = row / R (95% CI)",
        "networked case (r ≤ 1/4)",
        "local case (× fastest)",
    ]);
    for case in cases {
        let largest =
            case.largest_heavy.map_or("—".into(), |(label, p)| format!("{label}: {}", format_ns(p.summary.median)));
        let r_text = |r: &overhead_analysis::networked_case::Ratio| {
            format!("{} ({}–{})", fraction_text(r.r), fraction_text(r.low), fraction_text(r.high))
        };
        let (ratio, verdict) = match &case.networked {
            Networked::Judged(r, v) => (r_text(r), v.words().to_string()),
            Networked::Waiting(r, missing) => (r_text(r), format!("no verdict: {} not measured", missing.join(", "))),
            Networked::NoHeavyRow => ("—".into(), "no verdict: no heavy row measured".into()),
        };
        let acceptable = case.locally_acceptable().unwrap_or(false);
        let local = case.local.map_or("—".into(), |(x, rows)| local_words(x, rows, case.fastest, acceptable));
        table.add_row(vec![
            Cell::new(&case.runtime),
            Cell::new(largest),
            Cell::new(ratio).set_alignment(CellAlignment::Right),
            Cell::new(verdict),
            Cell::new(local),
        ]);
    }
    table.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};
    use overhead_record::PointRecord;

    fn seed004_points() -> Vec<PointRecord> {
        vec![
            point("spawn.create", "os", &[("kind", "thread")], 20_000.0),
            point("spawn.create", "os", &[("kind", "process")], 70_000.0),
            point("msg.call", "os", &[("new_task", "yes")], 15_000.0),
            point("msg.rendezvous", "os", &[("placement", "same_cpu")], 6_000.0),
            point("spawn.create", "fiber-asm", &[("kind", "task")], 40.0),
            point("msg.call", "fiber-asm", &[("new_task", "yes")], 45.0),
            point("msg.rendezvous", "fiber-asm", &[("placement", "same_cpu")], 35.0),
            point("msg.call", "fiber-asm", &[("new_task", "no")], 2.0),
            point("spawn.create", "tokio", &[("kind", "task")], 400.0),
            point("msg.rendezvous", "tokio", &[("placement", "same_cpu")], 300.0),
        ]
    }

    fn with_round_trip(median: f64) -> RunRecord {
        let mut record = sample_record();
        record.points = seed004_points();
        let mut rt = point("mpi.pingpong", "mpi", &[("payload", "8"), ("placement", "other_host")], median);
        rt.notes = vec!["rank 0 on h0, host m0 CPU 0; rank 1 on h1, host m1 CPU 1; Open MPI".into()];
        record.points.push(rt);
        record
    }

    #[test]
    fn fractions_and_verdicts_per_runtime() {
        let text = networked_case(&with_round_trip(80_000.0), Format::Md);
        assert!(text.contains("Souvatzis") && text.contains("slides, University of Bonn"), "{text}");
        assert!(
            text.contains("Round trip R = 80.0 µs") && text.contains("mpi.pingpong/runtime:mpi/payload:8"),
            "{text}"
        );
        assert!(text.contains("where its ranks ran: rank 0 on h0, host m0 CPU 0; rank 1 on h1, host m1 CPU 1\n"));
        // os: the thread row (20 µs), as Souvatzis's table shows it: 20/80 = 0.250; fiber-asm 45 ns/80 µs.
        let create = text.lines().find(|l| l.starts_with("| task create/destroy †")).unwrap();
        let cells: Vec<&str> = create.split('|').map(str::trim).collect();
        assert_eq!(cells[2..5], ["0.250", "0.000500", "0.00500"], "{create}");
        let os = text.lines().find(|l| l.starts_with("| os ")).unwrap();
        assert!(os.contains("task create/destroy: 20.0 µs") && os.contains("| borderline"), "{os}");
        let asm = text.lines().find(|l| l.starts_with("| fiber-asm ")).unwrap();
        assert!(asm.contains("| good enough") && asm.contains("| fastest (3 rows)"), "{asm}");
        let tokio = text.lines().find(|l| l.starts_with("| tokio ")).unwrap();
        assert!(tokio.contains("no verdict: inter-task call, new task not measured"), "{tokio}");
        assert!(tokio.contains("| slow: 9.3× (2 rows)"), "{tokio}");
        assert!(text.contains("(fastest overall: fiber-asm)"), "{text}");
        assert!(!text.contains("semaphore"), "rows no runtime measured are left out: {text}");
        // A slow network makes os good enough; a fast one makes it not.
        let slow = networked_case(&with_round_trip(400_000.0), Format::Table);
        assert!(slow.lines().any(|l| l.contains(" os ") && l.contains("good enough") && !l.contains("not")), "{slow}");
        let fast = networked_case(&with_round_trip(8_000.0), Format::Table);
        assert!(fast.lines().any(|l| l.contains(" os ") && l.contains("not good enough")), "{fast}");
    }

    #[test]
    fn without_an_other_host_round_trip_there_is_no_verdict() {
        let mut record = sample_record();
        record.points = seed004_points();
        let text = networked_case(&record, Format::Table);
        assert!(text.contains("No other-host round trip in this record") && text.contains("no networked verdict"));
        assert!(!text.contains("good enough") && !text.contains("Round trip R"), "{text}");
        assert!(networked_case(&sample_record(), Format::Table).is_empty());
        // msg.ipc over TCP between hosts stands in when there is no MPI ping-pong.
        let mut tcp =
            point("msg.ipc", "os", &[("transport", "tcp"), ("payload", "8"), ("placement", "other_host")], 30e3);
        tcp.notes.clear();
        record.points.push(tcp);
        let text = networked_case(&record, Format::Table);
        assert!(text.contains("Round trip R = 30.0 µs") && text.contains("msg.ipc transport tcp"), "{text}");
    }

    #[test]
    fn fractions_keep_three_digits() {
        assert_eq!(fraction_text(0.279), "0.279");
        assert_eq!(fraction_text(0.022), "0.0220");
        assert_eq!(fraction_text(0.00018), "0.000180");
        assert_eq!(fraction_text(f64::INFINITY), "∞");
        assert_eq!(fraction_text(2.5), "2.50");
    }
}
