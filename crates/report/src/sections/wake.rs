//! The `wake` section: the wake paths of `wake.handoff` ranked by wake latency, one table per placement and
//! waiter state, with the waker's cost, the tail and the round trip beside it, and one sentence naming the
//! cheapest path for a blocked and for a spinning waiter; on the HTML page the same ranking as bars with the
//! tail as whiskers ([`FIGURES`]). docs/METHOD.md §9, "Waking another thread".

use comfy_table::{Cell, CellAlignment};

use crate::interval::point_interval;
use crate::sections::{Figures, Section};
use overhead_humanize::format_ns;
use overhead_machine::Placement;
use overhead_record::{PointRecord, RunRecord};
use overhead_render::figure::{slug, Figure};
use overhead_render::plot::{ranked_bars_svg, RankedBar};
use overhead_render::{new_table, Format};
use overhead_schema::experiments::wake::{HandoffParams, HandoffResult, HANDOFF};
use overhead_schema::variants::wake::{Mechanism, WaiterState};

/// The report's `wake` section (docs/ARCHITECTURE.md "Renderers").
pub const SECTION: Section = Section {
    key: "wake",
    title: "Waking another thread: futex, futex_waitv, eventfd, epoll and io_uring side by side",
    about: "wake.handoff's paths ranked by wake latency per placement and waiter state, with the waker's cost, \
            p99, p99.9 and the round trip, and the cheapest path for a blocked and a spinning waiter",
    position: 45,
    render: wake_tables,
};

/// The page's ranking figures (docs/ARCHITECTURE.md "Renderers").
pub const FIGURES: Figures = Figures {
    id: "wake-paths",
    short: "Wake paths",
    title: "Waking another thread: wake latency by path",
    intro: "One figure per placement and waiter state; one bar per wake path, fastest at the top: the bar is the \
            median wake latency (from just before the waker's call to the waiter running), the whisker runs from \
            the median to the 99.9th percentile of the rounds; the text gives the median, then the waker's own \
            cost. The axis turns logarithmic when the paths differ by more than ten times.",
    position: 38,
    draw: wake_figures,
};

/// One group of the ranking: a placement and a waiter state, and its points, fastest first.
struct Group<'a> {
    placement: Placement,
    waiter: WaiterState,
    rows: Vec<(Mechanism, &'a PointRecord, HandoffResult)>,
}

/// The `wake.handoff` points grouped by (placement, waiter), closest placement first, blocked before
/// spinning, each group's rows by median wake latency.
fn groups(record: &RunRecord) -> Vec<Group<'_>> {
    let mut out: Vec<Group> = Vec::new();
    for p in record.points.iter().filter(|p| p.spec.experiment == HANDOFF) {
        let (Ok(params), Ok(result)) = (p.spec.params_as::<HandoffParams>(), p.result_as::<HandoffResult>()) else {
            continue;
        };
        let Some(placement) = p.spec.placement else { continue };
        match out.iter_mut().find(|g| g.placement == placement && g.waiter == params.waiter) {
            Some(g) => g.rows.push((params.mechanism, p, result)),
            None => out.push(Group { placement, waiter: params.waiter, rows: vec![(params.mechanism, p, result)] }),
        }
    }
    let rank = |p: Placement| Placement::ALL.iter().position(|&q| q == p).unwrap_or(Placement::ALL.len());
    out.sort_by_key(|g| (g.waiter == WaiterState::Spinning, rank(g.placement)));
    for g in &mut out {
        g.rows.sort_by(|a, b| a.1.summary.median.total_cmp(&b.1.summary.median));
    }
    out
}

fn group_title(g: &Group) -> String {
    let waiter = match g.waiter {
        WaiterState::Blocked => "waiter blocked",
        WaiterState::Spinning => "waiter spinning",
    };
    format!("{}, {waiter}", placement_label(g.placement))
}

/// A placement as a sentence says it: `same CPU`, `other core`, `SMT sibling`.
fn placement_label(p: Placement) -> String {
    match p {
        Placement::SameCpu => "same CPU".into(),
        Placement::SmtSibling => "SMT sibling".into(),
        Placement::OtherNumaNode => "other NUMA node".into(),
        other => other.name().replace('_', " "),
    }
}

/// Where the measurements ran: the kernel release and the CPU, which every wake path depends on.
fn machine_line(record: &RunRecord) -> String {
    format!("kernel {} on {}", record.machine.kernel, record.machine.cpu_model)
}

/// Every group's table, the cheapest paths, the skipped paths and a legend; empty without `wake.handoff`.
pub fn wake_tables(record: &RunRecord, format: Format) -> String {
    let groups = groups(record);
    if groups.is_empty() {
        return String::new();
    }
    let mut out = format!("Measured on {}.\n", machine_line(record));
    if format == Format::Md {
        out.push('\n');
    }
    for g in &groups {
        out += &group_table(g, format);
    }
    out += &cheapest(&groups);
    let skipped: Vec<String> =
        record.skipped.iter().filter(|s| s.spec.experiment == HANDOFF).map(|s| s.reason.clone()).fold(
            Vec::new(),
            |mut seen, reason| {
                if !seen.contains(&reason) {
                    seen.push(reason);
                }
                seen
            },
        );
    for reason in skipped {
        out += &format!("not measured here: {reason}\n");
    }
    out += "wake latency: from just before the waker's call to the waiter running (one clock), median over \
            processes with its 95% CI; p99, p99.9: of the rounds, the median over processes; waker: its call alone \
            (the sender's cost; on one CPU it holds the switch to the woken waiter); round trip: the wake and the \
            answer by the same path; slept: the waiter's voluntary context switches per round (blocked), or caught: \
            the share of wakes its spin caught (spinning)\n";
    out
}

fn group_table(g: &Group, format: Format) -> String {
    let mut table = new_table(format);
    let spinning = g.waiter == WaiterState::Spinning;
    table.set_header(vec![
        "path",
        "wake latency (95% CI)",
        "p99",
        "p99.9",
        "waker",
        "round trip",
        if spinning { "caught" } else { "slept" },
    ]);
    for (mechanism, p, r) in &g.rows {
        let share = if spinning { r.caught_spinning_fraction } else { r.waiter_switches_per_round };
        let right = |s: String| Cell::new(s).set_alignment(CellAlignment::Right);
        table.add_row(vec![
            Cell::new(mechanism.name()),
            right(format!("{} ({})", format_ns(p.summary.median), point_interval(p, 1.0))),
            right(format_ns(r.latency_ns_p99)),
            right(format_ns(r.latency_ns_p999)),
            right(format_ns(r.waker_ns_p50)),
            right(format_ns(r.rtt_ns_p50)),
            right(format!("{:.0}%", 100.0 * share.min(1.0))),
        ]);
    }
    match format {
        Format::Table => format!("{}\n{table}\n", group_title(g)),
        Format::Md => format!("### {}\n\n{table}\n\n", group_title(g)),
    }
}

/// One sentence per waiter state, at the nearest other core (else the first placement measured): the path of
/// least median wake latency, the paths whose CI reaches its own (tied with it: the data cannot order them),
/// and the costliest for scale.
fn cheapest(groups: &[Group]) -> String {
    let mut out = String::new();
    for waiter in [WaiterState::Blocked, WaiterState::Spinning] {
        let of_state: Vec<&Group> = groups.iter().filter(|g| g.waiter == waiter).collect();
        let Some(g) = of_state.iter().find(|g| g.placement == Placement::OtherCore).or(of_state.first()) else {
            continue;
        };
        let Some((best, p, _)) = g.rows.first() else { continue };
        let tied: Vec<&str> = g.rows[1..]
            .iter()
            .filter(|(_, q, _)| q.summary.ci_low <= p.summary.ci_high)
            .map(|(m, ..)| m.name())
            .collect();
        let ties = match tied.len() {
            0 => String::new(),
            n => format!(", tied within the CIs with {} ({n} of {} paths)", tied.join(", "), g.rows.len() - 1),
        };
        let costliest = match g.rows.last() {
            Some((m, q, _)) if g.rows.len() > tied.len() + 1 => {
                format!("; the costliest, {}, {}", m.name(), format_ns(q.summary.median))
            }
            _ => String::new(),
        };
        let who = match waiter {
            WaiterState::Blocked => "a blocked waiter",
            WaiterState::Spinning => "a spinning waiter",
        };
        out += &format!(
            "Cheapest wake for {who} ({}): {} at {}{ties}{costliest}.\n",
            placement_label(g.placement),
            best.name(),
            format_ns(p.summary.median)
        );
    }
    out
}

/// One ranked figure per group.
fn wake_figures(record: &RunRecord) -> anyhow::Result<Vec<Figure>> {
    let machine = machine_line(record);
    groups(record)
        .iter()
        .map(|g| {
            let bars: Vec<RankedBar> = g
                .rows
                .iter()
                .enumerate()
                .map(|(i, (m, p, r))| RankedBar {
                    label: m.name().to_string(),
                    value: p.summary.median,
                    low: p.summary.median,
                    high: r.latency_ns_p999.max(p.summary.median),
                    highlight: i == 0,
                    note: format!("waker {}", format_ns(r.waker_ns_p50)),
                })
                .collect();
            let title = format!("Wake latency, {}", group_title(g));
            let svg = ranked_bars_svg(&title, "wake latency (median; whisker to p99.9)", &bars)?;
            let caption = vec![format!(
                "{} paths, {}; the highlighted bar has the lowest median, and the paths whose CIs reach it are tied \
                 with it (the section's table names them)",
                g.rows.len(),
                machine
            )];
            Ok(Figure { id: format!("fig-{}", slug(&title)), svg, legend: Vec::new(), title, caption })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};

    fn handoff(mechanism: &str, waiter: &str, placement: &str, median: f64) -> PointRecord {
        let params = [("mechanism", mechanism), ("waiter", waiter), ("placement", placement)];
        let mut p = point(HANDOFF, "os", &params, median);
        p.spec.placement = Some(if placement == "same_cpu" { Placement::SameCpu } else { Placement::OtherCore });
        let result = HandoffResult {
            rounds: 500.0,
            waker_ns_p50: median / 3.0,
            waker_ns_p99: median / 2.0,
            latency_ns_p50: median,
            latency_ns_p99: median * 1.5,
            latency_ns_p999: median * 3.0,
            rtt_ns_p50: median * 2.0,
            waiter_switches_per_round: if waiter == "blocked" { 1.0 } else { 0.0 },
            caught_spinning_fraction: if waiter == "blocked" { 0.0 } else { 0.9 },
            negative_latencies: 0.0,
        };
        p.extra.extend(overhead_record::result::to_extra(&result));
        p
    }

    #[test]
    fn paths_are_ranked_per_group_and_the_cheapest_is_named() {
        let mut record = sample_record();
        record.points = vec![
            handoff("eventfd", "blocked", "other_core", 16_000.0),
            handoff("futex", "blocked", "other_core", 15_000.0),
            handoff("futex", "blocked", "same_cpu", 2_000.0),
            handoff("uring_msg_ring", "spinning", "other_core", 265.0),
            handoff("futex", "spinning", "other_core", 54.0),
        ];
        for p in &mut record.points {
            (p.summary.ci_low, p.summary.ci_high) = (p.summary.median * 0.99, p.summary.median * 1.01);
        }
        let text = wake_tables(&record, Format::Table);
        assert!(text.starts_with(&format!("Measured on kernel {}", record.machine.kernel)), "{text}");
        assert!(
            text.contains(
                "Cheapest wake for a blocked waiter (other core): futex at 15.0 µs; the costliest, eventfd, 16.0 µs."
            ),
            "{text}"
        );
        assert!(text.contains("Cheapest wake for a spinning waiter (other core): futex at 54"), "{text}");
        let futex = text.find("│ futex").unwrap();
        assert!(futex < text.find("│ eventfd").unwrap(), "ranked by latency: {text}");
        assert!(text.find("same CPU, waiter blocked").unwrap() < text.find("other core, waiter blocked").unwrap());
        assert!(text.find("other core, waiter blocked").unwrap() < text.find("waiter spinning").unwrap());
        record.points[0].summary.ci_low = 14_000.0;
        let text = wake_tables(&record, Format::Table);
        assert!(text.contains("futex at 15.0 µs, tied within the CIs with eventfd (1 of 1 paths)."), "{text}");
        let figures = wake_figures(&record).unwrap();
        assert_eq!(figures.len(), 3);
        assert!(figures[1].svg.contains("futex") && figures[1].caption[0].contains("kernel"));
    }

    #[test]
    fn nothing_without_wake_points() {
        assert!(wake_tables(&sample_record(), Format::Table).is_empty());
        assert!(wake_figures(&sample_record()).unwrap().is_empty());
    }
}
