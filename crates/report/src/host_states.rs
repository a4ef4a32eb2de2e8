//! The points whose processes met more than one host state (docs/METHOD.md §19): each state's estimate,
//! its share of the point's processes, and whether the time depends on the state. A cross-core point that
//! does is flagged `host-state` and headlines its most common state; a same-CPU point that does is named
//! apart, since nothing in its operation crosses the pair the state was read on.

use comfy_table::{Cell, CellAlignment};

use overhead_record::{PointByState, PointRecord, RunRecord};

use super::{format_ns, new_table, Format};

/// The section: the run's states once, then a table of every point that met two or more, flagged ones
/// first; empty where no point met two.
pub fn host_states_section(record: &RunRecord, format: Format) -> String {
    states_part(record, format) + &regimes_part(record)
}

/// Inside a process: the points whose processes changed regime during their batches, or disagree in
/// class (docs/METHOD.md §19); empty where no process had a series long enough to classify.
fn regimes_part(record: &RunRecord) -> String {
    let classified: Vec<(&PointRecord, overhead_record::PointRegimes)> =
        record.points.iter().filter_map(|p| Some((p, p.regimes?))).collect();
    if classified.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "\nRegimes inside a process (PELT changepoints in each process's batches, penalty 15·ln n): {} point(s) \
         classified",
        classified.len()
    );
    let changed: Vec<String> = classified
        .iter()
        .filter(|(_, r)| r.any_change())
        .map(|(p, r)| {
            let disagree = if r.disagree() { ", its processes disagree" } else { "" };
            format!(
                "{} ({} flat, {} changed, {} no steady state{disagree})",
                p.name, r.flat, r.changed, r.no_steady_state
            )
        })
        .collect();
    if changed.is_empty() {
        out += "; every classified process was flat.\n";
    } else {
        out += &format!("; a process changed regime in {}: {}.\n", changed.len(), changed.join("; "));
    }
    out
}

/// The run's states and the points that met several.
fn states_part(record: &RunRecord, format: Format) -> String {
    let Some(states) = &record.host_states else { return String::new() };
    let mut met: Vec<(&PointRecord, &PointByState)> =
        record.points.iter().filter_map(|p| Some((p, p.by_state.as_ref()?))).collect();
    if met.is_empty() {
        return String::new();
    }
    met.sort_by_key(|(_, b)| (!b.differs, !b.own_pair));
    // Same-CPU points that do not depend on the state are what is expected: counted, not listed.
    let quiet_same_cpu = met.iter().filter(|(_, b)| !b.differs && !b.own_pair).count();
    met.retain(|(_, b)| b.differs || b.own_pair);
    let mut out = format!("host states: {}\n\n", states.summary_line(format_ns));
    let mut table = new_table(format);
    table.set_header(["point", "pair", "by state: estimate [95% CI] (processes)", "p", "depends"]);
    for (p, b) in &met {
        let by_state: Vec<String> = b
            .states
            .iter()
            .map(|s| {
                format!(
                    "{}: {} [{} – {}] ({})",
                    format_ns(s.rtt_ns),
                    format_ns(s.median),
                    format_ns(s.ci_low),
                    format_ns(s.ci_high),
                    s.processes
                )
            })
            .collect();
        let pair = format!("{}↔{}{}", b.cpus[0], b.cpus[1], if b.own_pair { "" } else { " (run's)" });
        let depends = match (b.differs, b.own_pair) {
            (true, true) => "yes: headline is the first state",
            (true, false) => "yes, on one CPU: look for another cause",
            (false, _) => "no",
        };
        table.add_row(vec![
            Cell::new(&p.name),
            Cell::new(pair),
            Cell::new(by_state.join("; ")),
            Cell::new(b.p_value.map_or("—".into(), |p| format!("{p:.2e}"))).set_alignment(CellAlignment::Right),
            Cell::new(depends),
        ]);
    }
    out += &table.to_string();
    out += "\n";
    if quiet_same_cpu > 0 {
        out += &format!(
            "\n{quiet_same_cpu} other point(s) on one CPU met several states and do not depend on them, as a point \
             that uses no second CPU should not.\n"
        );
    }
    let same_cpu: Vec<&str> =
        met.iter().filter(|(_, b)| b.differs && !b.own_pair).map(|(p, _)| p.name.as_str()).collect();
    if !same_cpu.is_empty() {
        out += &format!(
            "\n{} on one CPU depend on the state of a pair they do not use ({}): the host's move coincided with \
             something else that changed their time, or the state reaches further than the pair.\n",
            same_cpu.len(),
            same_cpu.join(", ")
        );
    }
    out += &format!(
        "\nState: a level of the round trip of a cache line between the pair's CPUs, timed at each process's start \
         and end; a process whose two readings fall in different states is in none. p: F test of the processes' \
         log medians between states; depends: significant after Benjamini–Hochberg at {:.0}% over every tested \
         point. A point that depends on the state is flagged host-state and its headline estimate and CI are its \
         most common state's alone.\n",
        overhead_analysis::host_states::FDR * 100.0
    );
    out
}

/// The header's line on the host's states, `None` for a record without fingerprints.
pub fn header_line(record: &RunRecord) -> Option<String> {
    record.host_states.as_ref().map(|s| s.summary_line(format_ns))
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};
    use overhead_record::{HostState, HostStates, PairStates, StateEstimate};

    fn state(rtt_ns: f64, processes: usize, share: f64) -> HostState {
        HostState {
            rtt_ns,
            low_ns: rtt_ns * 0.9,
            high_ns: rtt_ns * 1.1,
            fingerprints: 2 * processes,
            processes,
            process_share: share,
        }
    }

    fn by_state(own_pair: bool, differs: bool) -> PointByState {
        let estimate = |state, rtt_ns, processes, median| StateEstimate {
            state,
            rtt_ns,
            processes,
            share: processes as f64 / 7.0,
            median,
            ci_low: median * 0.9,
            ci_high: median * 1.1,
        };
        PointByState {
            cpus: [0, 1],
            own_pair,
            states: vec![estimate(0, 53.0, 6, 25.0), estimate(1, 380.0, 1, 126.0)],
            without_state: 0,
            p_value: Some(if differs { 1e-6 } else { 0.6 }),
            differs,
        }
    }

    /// A run whose pair met two states: a cross-core point that depends on them, one that does not, and a
    /// same-CPU point that met both without depending.
    fn record() -> RunRecord {
        let mut record = sample_record();
        let mut c2c = point("mem.c2c", "os", &[("op", "cas")], 25.0);
        c2c.host_state = true;
        c2c.by_state = Some(by_state(true, true));
        let mut mix = point("mem.mix", "os", &[], 30.0);
        mix.by_state = Some(by_state(true, false));
        let mut call = point("base.call", "os", &[], 1.0);
        call.spec.cpus = vec![0];
        call.by_state = Some(by_state(false, false));
        record.points = vec![call, mix, c2c];
        record.host_states = Some(HostStates {
            pairs: vec![PairStates {
                cpus: [0, 1],
                states: vec![state(53.0, 97, 0.97), state(380.0, 3, 0.03)],
                fingerprints: 200,
                changed_processes: 2,
                timeline: Vec::new(),
                repeatability_log_sd: Some(0.1),
            }],
            fingerprint_s: 1.5,
            process_s: 75.0,
        });
        record
    }

    #[test]
    fn the_section_lists_cross_core_points_by_state_and_counts_quiet_same_cpu_ones() {
        let text = host_states_section(&record(), Format::Table);
        assert!(
            text.contains("CPUs 0↔1: 53.0 ns (97% of processes), 380 ns (3%), 2 changed during a process"),
            "{text}"
        );
        assert!(text.contains("took 2.0% of the processes' time"), "{text}");
        // The point that depends comes first, with both states and its verdict.
        let c2c = text.find("mem.c2c").unwrap();
        let mix = text.find("mem.mix").unwrap();
        assert!(c2c < mix, "{text}");
        assert!(
            text.contains("25.0 ns [22.5 ns – 27.5 ns] (6)") && text.contains("yes: headline is the first state"),
            "{text}"
        );
        // The same-CPU point is counted, not listed.
        assert!(!text.contains("base.call") && text.contains("1 other point(s) on one CPU"), "{text}");
    }

    #[test]
    fn a_process_that_changed_regime_is_named() {
        let mut record = record();
        record.points[1].regimes = Some(overhead_record::PointRegimes { flat: 4, changed: 1, no_steady_state: 0 });
        record.points[0].regimes = Some(overhead_record::PointRegimes { flat: 5, changed: 0, no_steady_state: 0 });
        let text = host_states_section(&record, Format::Table);
        assert!(text.contains("2 point(s) classified; a process changed regime in 1: mem.mix"), "{text}");
        assert!(text.contains("(4 flat, 1 changed, 0 no steady state, its processes disagree)"), "{text}");
    }

    #[test]
    fn nothing_without_states_and_the_header_says_what_the_host_did() {
        assert_eq!(host_states_section(&sample_record(), Format::Table), "");
        assert!(header_line(&sample_record()).is_none());
        let table = crate::table::render(&record(), Format::Table);
        assert!(table.contains("host states: CPUs 0↔1"), "{table}");
        assert!(table.contains("host-state"), "the flag is in the table");
    }
}
