//! The crosscheck's section (docs/METHOD.md §20): per peer case, our point's and the peer's numbers round by
//! round with the host state each met, the ratio over the rounds that count, and the verdict; then the peers
//! that could not run, with what installs them.

use comfy_table::{Cell, CellAlignment};

use overhead_record::{CrosscheckPair, RunRecord};

use super::{format_ns, new_table, Format};

/// The section; empty for a record that is no crosscheck.
pub fn crosscheck_section(record: &RunRecord, format: Format) -> String {
    let Some(check) = &record.crosscheck else { return String::new() };
    let mut out = format!(
        "{} round(s); each ran every peer below and one process of each matching point in a fresh random order, \
         every measurement between two host-state fingerprints.\n\n",
        check.rounds
    );
    if let Some(line) = super::host_states::header_line(record) {
        out += &format!("host states: {line}\n\n");
    }
    if !check.pairs.is_empty() {
        let mut table = new_table(format);
        table.set_header(["peer: case", "our point", "rounds: ours ÷ peer (state ns, ours/peer)", "ratio", "verdict"]);
        for pair in &check.pairs {
            table.add_row(vec![
                Cell::new(format!("{}: {}", pair.peer, pair.case)),
                Cell::new(&pair.point),
                Cell::new(rounds_text(pair)),
                Cell::new(pair.ratio.map_or("—".into(), |r| format!("{r:.2}"))).set_alignment(CellAlignment::Right),
                Cell::new(&pair.says),
            ]);
        }
        out += &table.to_string();
        out += "\n";
    }
    if !check.peers.is_empty() {
        out += "\nCommands:\n";
        for peer in &check.peers {
            let cases: Vec<String> = peer.cases.iter().map(|c| format!("{} ({})", c.case, c.conversion)).collect();
            out += &format!("- {}: `{}` — {}\n", peer.peer, peer.command, cases.join("; "));
        }
    }
    if !check.missing.is_empty() {
        out += "\nNot run here:\n";
        for m in &check.missing {
            out += &format!("- {}: {} — install: {}\n", m.peer, m.reason, m.install);
        }
    }
    out += "\nratio: the median over the rounds that count of our process's median (or the number named in brackets \
            after our point) ÷ the peer's number, both in our metric (round trip or per operation, ns). A pair on one CPU counts every round and agrees within ±10%; \
            a pair across CPUs counts only rounds where both met the same host state and agrees within ±15%; its \
            other rounds are marked ≠ and listed, not counted.\n";
    out
}

/// "1: 1.02 (53/53), 2: 0.26 ≠ (380/53)".
fn rounds_text(pair: &CrosscheckPair) -> String {
    let state = |s: Option<f64>| s.map_or("?".into(), |ns| format!("{ns:.0}"));
    pair.rounds
        .iter()
        .map(|r| {
            let mark = if r.counts { "" } else { " ≠" };
            let states = if pair.cross_core {
                format!(" ({}/{})", state(r.ours_state_ns), state(r.peer_state_ns))
            } else {
                String::new()
            };
            format!("{}: {:.2}{mark}{states} [{} / {}]", r.round, r.ratio, format_ns(r.ours_ns), format_ns(r.peer_ns))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// What `overhead crosscheck` prints: the machine's line and the section.
pub fn crosscheck_text(record: &RunRecord) -> String {
    let m = &record.machine;
    format!(
        "overhead crosscheck — {} ({}, {} CPUs)\n\n{}",
        m.host_name,
        m.cpu_model,
        m.logical_cpus,
        crosscheck_section(record, Format::Table)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::sample_record;
    use overhead_record::{Crosscheck, CrosscheckVerdict, MissingPeer, PairRound};

    #[test]
    fn the_section_shows_rounds_states_verdicts_and_what_is_missing() {
        assert_eq!(crosscheck_section(&sample_record(), Format::Table), "");
        let mut record = sample_record();
        let round = |round, ratio, counts, ours| PairRound {
            round,
            ours_ns: 100.0 * ratio,
            peer_ns: 100.0,
            ratio,
            ours_state_ns: Some(ours),
            peer_state_ns: Some(53.0),
            counts,
        };
        record.crosscheck = Some(Crosscheck {
            rounds: 3,
            peers: Vec::new(),
            missing: vec![MissingPeer {
                peer: "cyclictest".into(),
                reason: "cyclictest not found on the PATH".into(),
                install: "apt-get install rt-tests".into(),
            }],
            pairs: vec![CrosscheckPair {
                peer: "core-to-core-latency".into(),
                case: "CAS".into(),
                point: "mem.c2c/runtime:os/op:cas".into(),
                cross_core: true,
                tolerance: 0.15,
                rounds: vec![round(1, 1.02, true, 53.0), round(2, 4.9, false, 380.0), round(3, 0.98, true, 54.0)],
                ratio: Some(1.0),
                verdict: CrosscheckVerdict::Agrees,
                says: "agrees: ours ÷ peer 1.00, within ±15%".into(),
            }],
        });
        let text = crosscheck_section(&record, Format::Table);
        assert!(text.contains("2: 4.90 ≠ (380/53)"), "{text}");
        assert!(text.contains("1: 1.02 (53/53)"), "{text}");
        assert!(text.contains("agrees: ours ÷ peer 1.00"), "{text}");
        assert!(
            text.contains("cyclictest: cyclictest not found on the PATH — install: apt-get install rt-tests"),
            "{text}"
        );
    }
}
