//! A crosscheck's verdicts (docs/METHOD.md §20): per peer case, ours ÷ the peer's number in each round, the
//! rounds that count — every round for an operation on one CPU, only rounds where both sides met the same
//! host state for one that crosses CPUs — and whether their median ratio lies within the tolerance.

use overhead_record::{
    CrosscheckPair, CrosscheckVerdict, Fingerprint, HostStates, PairRound, PeerCase, PeerRecord, PointRecord, RunRecord,
};
use overhead_stats::percentile;

/// The agreement asked of a pair on one CPU: ±10%, the spread same-CPU primitives show between tools.
pub const SAME_CPU_TOLERANCE: f64 = 0.10;
/// The agreement asked of a pair across CPUs in one host state: ±15%.
pub const CROSS_CORE_TOLERANCE: f64 = 0.15;

/// Gives each peer reading its host state and derives every pair's rounds and verdict. Runs after
/// [`super::host_states::apply`], whose states it reads. Idempotent.
pub fn apply(record: &mut RunRecord) {
    let Some(mut check) = record.crosscheck.take() else { return };
    for reading in check.peers.iter_mut().flat_map(|p| p.readings.iter_mut()) {
        reading.state = record.host_states.as_ref().and_then(|s| {
            let f = Fingerprint::of(&reading.extra)?;
            super::host_states::process_state(s.pair(f.pair)?, &f)
        });
    }
    check.pairs = check
        .peers
        .iter()
        .flat_map(|peer| peer.cases.iter().map(move |case| (peer, case)))
        .map(|(peer, case)| pair(peer, case, &record.points, record.host_states.as_ref()))
        .collect();
    record.crosscheck = Some(check);
}

/// One peer case against our point.
fn pair(peer: &PeerRecord, case: &PeerCase, points: &[PointRecord], states: Option<&HostStates>) -> CrosscheckPair {
    let tolerance = if case.cross_core { CROSS_CORE_TOLERANCE } else { SAME_CPU_TOLERANCE };
    let point = points.iter().find(|p| p.name == case.point);
    let rounds: Vec<PairRound> = peer
        .readings
        .iter()
        .filter_map(|reading| {
            let peer_ns = *reading.values_ns.get(&case.case)?;
            let ours = point?.processes.iter().find(|q| q.round == reading.round)?;
            let ours_ns = match &case.ours_key {
                Some(key) => *ours.extra.get(key)?,
                None => ours.median_ns,
            };
            let state_ns = |extra, state: Option<usize>| -> Option<f64> {
                let f = Fingerprint::of(extra)?;
                states?.pair(f.pair)?.state_rtt_ns(state?)
            };
            let ours_state_ns = state_ns(&ours.extra, ours.state);
            let peer_state_ns = state_ns(&reading.extra, reading.state);
            let same_state = matches!((ours.state, reading.state), (Some(a), Some(b)) if a == b);
            (peer_ns > 0.0 && ours_ns > 0.0).then(|| PairRound {
                round: reading.round,
                ours_ns,
                peer_ns,
                ratio: ours_ns / peer_ns,
                ours_state_ns,
                peer_state_ns,
                counts: !case.cross_core || same_state,
            })
        })
        .collect();
    let mut counted: Vec<f64> = rounds.iter().filter(|r| r.counts).map(|r| r.ratio).collect();
    counted.sort_by(f64::total_cmp);
    let ratio = (!counted.is_empty()).then(|| percentile(&counted, 0.5));
    let (verdict, says) = verdict(case, &rounds, ratio, tolerance);
    CrosscheckPair {
        peer: peer.peer.clone(),
        case: case.case.clone(),
        point: match &case.ours_key {
            Some(key) => format!("{} ({key})", case.point),
            None => case.point.clone(),
        },
        cross_core: case.cross_core,
        tolerance,
        rounds,
        ratio,
        verdict,
        says,
    }
}

/// The verdict and its sentence.
fn verdict(case: &PeerCase, rounds: &[PairRound], ratio: Option<f64>, tolerance: f64) -> (CrosscheckVerdict, String) {
    let apart = rounds.iter().filter(|r| !r.counts).count();
    let apart_text = match apart {
        0 => String::new(),
        n => format!("; {n} round(s) in different host states listed apart"),
    };
    match ratio {
        None if rounds.is_empty() => (CrosscheckVerdict::NotMeasured, "no round has both numbers".into()),
        None => (
            CrosscheckVerdict::StatesNeverMatched,
            format!("in none of {} round(s) did both sides meet the same host state", rounds.len()),
        ),
        Some(r) if (r - 1.0).abs() <= tolerance => (
            CrosscheckVerdict::Agrees,
            format!("agrees: ours ÷ peer {r:.2}, within ±{:.0}%{apart_text}", tolerance * 100.0),
        ),
        Some(r) => (
            CrosscheckVerdict::Differs,
            format!(
                "differs: ours ÷ peer {r:.2}, outside ±{:.0}%; likely: {}{apart_text}",
                tolerance * 100.0,
                case.method_difference
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};
    use overhead_record::{
        Crosscheck, PeerReading, ProcessRecord, HOST_PAIR_A, HOST_PAIR_B, HOST_RTT_AFTER, HOST_RTT_BEFORE,
    };
    use std::collections::BTreeMap;

    fn fingerprint(rtt: f64) -> BTreeMap<String, f64> {
        [(HOST_PAIR_A, 0.0), (HOST_PAIR_B, 1.0), (HOST_RTT_BEFORE, rtt), (HOST_RTT_AFTER, rtt)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect()
    }

    /// Our `mem.c2c` point and core-to-core-latency over four rounds: the host sits at 53 ns for both in
    /// rounds 1, 2 and 4 and moves between them in round 3, where ours reads 5× more.
    fn record(cross_core: bool) -> RunRecord {
        let mut record = sample_record();
        let mut c2c = point("mem.c2c", "os", &[("op", "cas")], 100.0);
        let ours = [(100.0, 53.0), (104.0, 54.0), (500.0, 380.0), (98.0, 52.0)];
        let theirs = [(101.0, 53.0), (99.0, 52.0), (100.0, 53.0), (97.0, 53.0)];
        c2c.processes = ours
            .iter()
            .enumerate()
            .map(|(i, &(m, rtt))| ProcessRecord {
                round: i + 1,
                batch_ops: 1,
                batches: 1,
                median_ns: m,
                wall_ms: 10.0,
                started_s: Some(i as f64),
                state: None,
                extra: fingerprint(rtt),
            })
            .collect();
        // States need a few fingerprints each: other points' processes in both.
        let mut others = point("mem.mix", "os", &[], 30.0);
        others.processes = [53.0, 54.0, 52.0, 380.0, 385.0, 378.0]
            .iter()
            .enumerate()
            .map(|(i, &rtt)| ProcessRecord { extra: fingerprint(rtt), round: i + 1, ..c2c.processes[0].clone() })
            .collect();
        let name = c2c.name.clone();
        record.points = vec![c2c, others];
        record.crosscheck = Some(Crosscheck {
            rounds: 4,
            peers: vec![PeerRecord {
                peer: "core-to-core-latency".into(),
                command: "core-to-core-latency 1000 300 -c 0,1 --csv".into(),
                cases: vec![PeerCase {
                    case: "cas".into(),
                    point: name,
                    conversion: "one way × 2 = round trip".into(),
                    cross_core,
                    method_difference: "a different loop".into(),
                    ours_key: None,
                }],
                readings: theirs
                    .iter()
                    .enumerate()
                    .map(|(i, &(v, rtt))| PeerReading {
                        round: i + 1,
                        started_s: i as f64 + 0.5,
                        values_ns: [("cas".to_string(), v)].into(),
                        extra: fingerprint(rtt),
                        state: None,
                    })
                    .collect(),
            }],
            missing: Vec::new(),
            pairs: Vec::new(),
        });
        record
    }

    #[test]
    fn a_cross_core_pair_counts_only_rounds_in_one_state() {
        let mut record = record(true);
        crate::analyze(&mut record, &overhead_record::RecordOrder);
        let pair = &record.crosscheck.as_ref().unwrap().pairs[0];
        assert_eq!(pair.rounds.len(), 4);
        assert_eq!(pair.rounds.iter().filter(|r| r.counts).count(), 3, "{pair:?}");
        assert!(!pair.rounds[2].counts && pair.rounds[2].ours_state_ns.unwrap() > 300.0);
        assert_eq!(pair.verdict, CrosscheckVerdict::Agrees, "{}", pair.says);
        assert!(pair.says.contains("1 round(s) in different host states"), "{}", pair.says);
        assert!((pair.ratio.unwrap() - 1.01).abs() < 0.02, "{:?}", pair.ratio);
    }

    /// A case with `ours_key` compares the peer with that number of each of our processes, not their
    /// medians, and names it after our point; a process without the key gives no round.
    #[test]
    fn a_case_may_compare_another_number_of_ours() {
        let mut record = record(false);
        for (i, p) in record.points[0].processes.iter_mut().enumerate() {
            if i > 0 {
                p.extra.insert("waker_ns_p50".into(), 2.0 * p.median_ns);
            }
        }
        record.crosscheck.as_mut().unwrap().peers[0].cases[0].ours_key = Some("waker_ns_p50".into());
        crate::analyze(&mut record, &overhead_record::RecordOrder);
        let pair = &record.crosscheck.as_ref().unwrap().pairs[0];
        assert!(pair.point.ends_with(" (waker_ns_p50)"), "{}", pair.point);
        assert_eq!(pair.rounds.len(), 3, "the process without the key gives no round: {pair:?}");
        let ours = &record.points[0].processes;
        for r in &pair.rounds {
            let process = ours.iter().find(|p| p.round == r.round).unwrap();
            assert_eq!(r.ours_ns, process.extra["waker_ns_p50"], "round {}", r.round);
        }
        assert!(pair.ratio.unwrap() > 1.8, "twice the medians: {:?}", pair.ratio);
    }

    #[test]
    fn a_same_cpu_pair_counts_every_round_and_says_why_it_differs() {
        let mut record = record(false);
        // The round in another state counts too: the median of 0.99, 1.05, 5.0 and 1.01 is 1.03.
        crate::analyze(&mut record, &overhead_record::RecordOrder);
        let pair = &record.crosscheck.as_ref().unwrap().pairs[0];
        assert!(pair.rounds.iter().all(|r| r.counts));
        assert_eq!(pair.verdict, CrosscheckVerdict::Agrees);
        // Scale the peer by 2: ours is half of it, and the verdict names the likely reason.
        let mut record = self::record(false);
        for r in &mut record.crosscheck.as_mut().unwrap().peers[0].readings {
            for v in r.values_ns.values_mut() {
                *v *= 2.0;
            }
        }
        crate::analyze(&mut record, &overhead_record::RecordOrder);
        let pair = &record.crosscheck.as_ref().unwrap().pairs[0];
        assert_eq!(pair.verdict, CrosscheckVerdict::Differs);
        assert!(pair.says.contains("a different loop"), "{}", pair.says);
    }

    #[test]
    fn states_that_never_matched_are_said_so() {
        let mut record = record(true);
        for r in &mut record.crosscheck.as_mut().unwrap().peers[0].readings {
            r.extra = fingerprint(380.0);
        }
        record.points[0].processes.truncate(2);
        crate::analyze(&mut record, &overhead_record::RecordOrder);
        let pair = &record.crosscheck.as_ref().unwrap().pairs[0];
        assert_eq!(pair.verdict, CrosscheckVerdict::StatesNeverMatched, "{}", pair.says);
        assert!(pair.ratio.is_none());
    }
}
