//! Souvatzis's networked case (Souvatzis, MPD/SR on NetBSD; docs/notes-seed004-network.md): each local
//! primitive of the Souvatzis table as a fraction of the network round trip measured in the same run, and
//! the study's verdicts per runtime — the networked case against the round trip, the local case against the
//! fastest back-end — as its conclusions (slides L221–225) draw them.

use comfy_table::{Cell, CellAlignment};

use crate::sections::Section;
use overhead_analysis::primitive_rows::{matches, Row, ROWS};
use overhead_experiments::msg::IpcParams;
use overhead_humanize::format_ns;
use overhead_machine::Placement;
use overhead_record::{PointRecord, RunRecord};
use overhead_render::{new_table, Format};
use overhead_runtimes::column_rank;
use overhead_runtimes::os::ipc::IpcTransport;

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

/// The rows whose cost decides the networked case: the study's "process creation/destruction/
/// synchronisation" (L216), the three rows at about 1/3 of the round trip on its slow machine.
pub const HEAVY_ROWS: [&str; 3] = ["task create/destroy", "inter-task call, new task", "rendezvous"];

/// Good enough for the networked case up to this fraction of the round trip: every networked verdict of
/// the study is reproduced by it (docs/notes-seed004-network.md, "Proposed verdict rule").
pub const THRESHOLD: f64 = 0.25;

/// In the local case, a runtime within this factor of the fastest (geometric mean over the switch-bound
/// rows) reads as the study's "acceptable": its context_u was about 3.6× assembler on those rows and
/// acceptable (our reading; the study gives no number).
pub const LOCAL_ACCEPTABLE: f64 = 4.0;

/// A cost or a round trip: median and 95% CI (ns).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub median: f64,
    pub low: f64,
    pub high: f64,
}

impl Estimate {
    fn of(p: &PointRecord) -> Estimate {
        Estimate { median: p.summary.median, low: p.summary.ci_low, high: p.summary.ci_high }
    }
}

/// The networked verdict: good enough when even the upper bound of r is ≤ 1/4, not when even its lower
/// bound is above, else borderline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    GoodEnough,
    Borderline,
    NotGoodEnough,
}

impl Verdict {
    pub fn words(self) -> &'static str {
        match self {
            Verdict::GoodEnough => "good enough",
            Verdict::Borderline => "borderline",
            Verdict::NotGoodEnough => "not good enough",
        }
    }
}

/// r = the largest heavy row / the round trip, with the interval the CIs give: low = the largest lower
/// bound / the round trip's upper bound, high = the largest upper bound / the round trip's lower bound
/// (unbounded when that reaches zero).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ratio {
    pub r: f64,
    pub low: f64,
    pub high: f64,
}

/// The study's rule (docs/notes-seed004-network.md): r of the heavy rows against the round trip, and the
/// verdict. `None` without a row.
pub fn networked_verdict(rows: &[Estimate], round_trip: Estimate) -> Option<(Ratio, Verdict)> {
    let max = |f: fn(&Estimate) -> f64| rows.iter().map(f).fold(f64::NEG_INFINITY, f64::max);
    if rows.is_empty() {
        return None;
    }
    let r = max(|e| e.median) / round_trip.median;
    let low = if round_trip.high > 0.0 { max(|e| e.low).max(0.0) / round_trip.high } else { 0.0 };
    let high = if round_trip.low > 0.0 { max(|e| e.high) / round_trip.low } else { f64::INFINITY };
    let verdict = if high <= THRESHOLD {
        Verdict::GoodEnough
    } else if low > THRESHOLD {
        Verdict::NotGoodEnough
    } else {
        Verdict::Borderline
    };
    Some((Ratio { r, low, high }, verdict))
}

/// The round trip the section uses and where it comes from.
pub struct RoundTrip<'a> {
    pub point: &'a PointRecord,
    /// What it is, in words.
    pub source: &'static str,
}

/// The other-host round trip of a small message measured in the run: `mpi.pingpong` payload 8
/// `other_host`, else `msg.ipc` TCP payload 8 `other_host`.
pub fn round_trip(record: &RunRecord) -> Option<RoundTrip<'_>> {
    let across = |p: &&PointRecord| p.spec.placement_param() == Some(Placement::OtherHost);
    let mpi = record.points.iter().filter(across).find(|p| {
        p.spec.experiment == overhead_experiments::mpi::PingPong::ID
            && p.spec.params_as::<overhead_experiments::mpi::PingPongParams>().is_ok_and(|q| q.payload == 8)
    });
    if let Some(point) = mpi {
        return Some(RoundTrip {
            point,
            source: "8-byte MPI ping-pong between two hosts (mpi.pingpong): MPI's own cost rides on the \
                     transport's, so it is dearer than the study's bare Ethernet round trip",
        });
    }
    let tcp = record.points.iter().filter(across).find(|p| {
        p.spec.experiment == overhead_experiments::msg::Ipc::ID
            && p.spec.params_as::<IpcParams>().is_ok_and(|q| q.transport == IpcTransport::Tcp && q.payload == 8)
    });
    tcp.map(|point| RoundTrip { point, source: "8-byte TCP round trip between two hosts (msg.ipc transport tcp)" })
}

/// The runtimes with a point of Souvatzis's table, in column order.
fn columns(record: &RunRecord) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for p in &record.points {
        if ROWS.iter().any(|r| r.experiment == p.spec.experiment) && !seen.contains(&p.spec.runtime) {
            seen.push(p.spec.runtime.clone());
        }
    }
    seen.sort_by_key(|r| column_rank(r));
    seen
}

fn point_of<'a>(record: &'a RunRecord, row: &Row, runtime: &str) -> Option<&'a PointRecord> {
    record.points.iter().find(|p| matches(row, &p.spec, runtime, &overhead_experiments::CATALOG))
}

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

/// One runtime's local-case standing: the geometric mean over the switch-bound rows it measured of its
/// median / the fastest runtime's median on that row, and how many rows.
fn local_ratio(record: &RunRecord, runtimes: &[String], runtime: &str) -> Option<(f64, usize)> {
    let ratios: Vec<f64> = ROWS
        .iter()
        .filter(|row| row.switch_bound)
        .filter_map(|row| {
            let own = point_of(record, row, runtime)?.summary.median;
            let fastest = runtimes
                .iter()
                .filter_map(|r| point_of(record, row, r).map(|p| p.summary.median))
                .filter(|m| *m > 0.0)
                .fold(f64::INFINITY, f64::min);
            (own > 0.0 && fastest.is_finite()).then(|| own / fastest)
        })
        .collect();
    (!ratios.is_empty())
        .then(|| ((ratios.iter().map(|x| x.ln()).sum::<f64>() / ratios.len() as f64).exp(), ratios.len()))
}

/// The local-case words for a runtime `ratio` × the fastest over `rows` switch-bound rows.
fn local_words(ratio: f64, rows: usize, is_fastest: bool) -> String {
    let rows = overhead_humanize::counted(rows, "row", "rows");
    if is_fastest {
        return format!("fastest ({rows})");
    }
    let judgement = if ratio <= LOCAL_ACCEPTABLE { "acceptable" } else { "slow" };
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
    let runtimes = columns(record);
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
    // The fractions: Souvatzis's rows × runtimes.
    out += &subheading("each primitive's median as a fraction of R", format);
    let mut table = new_table(format);
    let mut header = vec!["primitive (Souvatzis)".to_string()];
    header.extend(runtimes.iter().cloned());
    table.set_header(header);
    for row in ROWS.iter().filter(|row| runtimes.iter().any(|r| point_of(record, row, r).is_some())) {
        let heavy = HEAVY_ROWS.contains(&row.label);
        let label = if heavy { format!("{} †", row.label) } else { row.label.to_string() };
        let mut cells = vec![Cell::new(label)];
        for runtime in &runtimes {
            let text =
                point_of(record, row, runtime).map_or("—".into(), |p| fraction_text(p.summary.median / rtt.median));
            cells.push(Cell::new(text).set_alignment(CellAlignment::Right));
        }
        table.add_row(cells);
    }
    out += &format!("{table}{blank}");
    out += &format!(
        "{bullet}† the rows that decide the networked case (the study's \"process creation/destruction/\
         synchronisation\", L216)\n\n"
    );
    // The verdicts.
    out += &subheading("verdict per runtime", format);
    let locals: Vec<Option<(f64, usize)>> = runtimes.iter().map(|r| local_ratio(record, &runtimes, r)).collect();
    let fastest = runtimes
        .iter()
        .zip(&locals)
        .filter_map(|(r, l)| l.map(|(x, _)| (r, x)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(r, _)| r.clone());
    let mut table = new_table(format);
    table.set_header(vec![
        "runtime",
        "largest heavy row",
        "r = row / R (95% CI)",
        "networked case (r ≤ 1/4)",
        "local case (× fastest)",
    ]);
    for (runtime, local) in runtimes.iter().zip(&locals) {
        let heavy: Vec<(&str, &PointRecord)> = HEAVY_ROWS
            .iter()
            .filter_map(|label| {
                let row = ROWS.iter().find(|r| r.label == *label)?;
                Some((*label, point_of(record, row, runtime)?))
            })
            .collect();
        let missing: Vec<&str> = HEAVY_ROWS.iter().copied().filter(|l| !heavy.iter().any(|(h, _)| h == l)).collect();
        let estimates: Vec<Estimate> = heavy.iter().map(|(_, p)| Estimate::of(p)).collect();
        let largest = heavy
            .iter()
            .max_by(|a, b| a.1.summary.median.total_cmp(&b.1.summary.median))
            .map_or("—".into(), |(label, p)| format!("{label}: {}", format_ns(p.summary.median)));
        let (ratio, verdict) = match networked_verdict(&estimates, rtt) {
            Some((r, v)) => {
                let text = format!("{} ({}–{})", fraction_text(r.r), fraction_text(r.low), fraction_text(r.high));
                // A missing heavy row could only raise r: "not good enough" stands, the others wait for it.
                let verdict = if missing.is_empty() || v == Verdict::NotGoodEnough {
                    v.words().to_string()
                } else {
                    format!("no verdict: {} not measured", missing.join(", "))
                };
                (text, verdict)
            }
            None => ("—".into(), "no verdict: no heavy row measured".into()),
        };
        let local = local.map_or("—".into(), |(x, rows)| local_words(x, rows, fastest.as_deref() == Some(runtime)));
        table.add_row(vec![
            Cell::new(runtime),
            Cell::new(largest),
            Cell::new(ratio).set_alignment(CellAlignment::Right),
            Cell::new(verdict),
            Cell::new(local),
        ]);
    }
    out += &format!("{table}{blank}");
    out += &format!(
        "{bullet}Networked case: good enough when the upper bound of r is ≤ 1/4, not good enough when its lower \
         bound is > 1/4, else borderline. 1/4 reproduces every networked verdict of the study (machine A ≤ 0.022 \
         acceptable; B context_u ≤ 0.136 acceptable; B SVR4 0.27–0.29 \"unakzeptabel\") and sits on its 300 MHz \
         line (docs/notes-seed004-network.md).\n"
    );
    out += &format!(
        "{bullet}Local case: × = the geometric mean, over the switch-bound rows the runtime has, of its median over \
         the fastest runtime's on that row{}; \"acceptable\" within {LOCAL_ACCEPTABLE}× (the study's context_u, \
         acceptable locally, was about 3.6× assembler on those rows; the study states no number, this bound is \
         the report's reading).\n",
        fastest.map_or(String::new(), |f| format!(" (fastest overall: {f})"))
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};

    fn est(median: f64, half: f64) -> Estimate {
        Estimate { median, low: median - half, high: median + half }
    }

    /// The study's own numbers against its 200 µs round trip: machine A's SVR4 heavy rows (4.35, 4.28,
    /// 4.2 µs: ≤ 0.022) pass; machine B's (55.9, 58.78, 54.0 µs: 0.27–0.29) fail.
    #[test]
    fn the_seeds_verdicts_come_out_of_the_rule() {
        let rtt = est(200_000.0, 2_000.0);
        let a = [est(4_350.0, 100.0), est(4_280.0, 100.0), est(4_200.0, 100.0)];
        let (r, v) = networked_verdict(&a, rtt).unwrap();
        assert_eq!(v, Verdict::GoodEnough);
        assert!((r.r - 0.02175).abs() < 1e-9 && r.high <= 0.023, "{r:?}");
        let b = [est(55_900.0, 500.0), est(58_780.0, 500.0), est(54_000.0, 500.0)];
        let (r, v) = networked_verdict(&b, rtt).unwrap();
        assert_eq!(v, Verdict::NotGoodEnough);
        assert!((r.r - 0.2939).abs() < 1e-9 && r.low > 0.25, "{r:?}");
        // B's context_u (≤ 0.136) passes.
        let (_, v) = networked_verdict(&[est(27_200.0, 500.0)], rtt).unwrap();
        assert_eq!(v, Verdict::GoodEnough);
    }

    #[test]
    fn a_ci_straddling_a_quarter_is_borderline() {
        let rtt = est(200_000.0, 2_000.0);
        let (r, v) = networked_verdict(&[est(48_000.0, 6_000.0)], rtt).unwrap();
        assert_eq!(v, Verdict::Borderline, "{r:?}");
        assert!(r.low < 0.25 && r.r < 0.25 && 0.25 < r.high, "{r:?}");
        // A round trip whose CI reaches zero bounds nothing from above.
        let (r, v) = networked_verdict(&[est(10.0, 1.0)], est(100.0, 150.0)).unwrap();
        assert!(r.high.is_infinite() && v == Verdict::Borderline, "{r:?}");
        assert!(networked_verdict(&[], rtt).is_none());
    }

    #[test]
    fn heavy_rows_are_rows_of_the_table() {
        for label in HEAVY_ROWS {
            let row = ROWS.iter().find(|r| r.label == label).unwrap_or_else(|| panic!("{label}"));
            assert!(row.switch_bound, "{label}");
        }
    }

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
