//! `overhead crosscheck` (docs/METHOD.md §20): the field's own tools beside our matching points, paired in
//! time. Each round runs every available peer once and one fresh probe process of each of our points they are
//! compared with, in an order drawn afresh each round (RMIT: randomised multiple interleaved trials, Abedi and
//! Brecht, ICPE 2017), every measurement bracketed by the host-state fingerprint; the analysis then compares
//! like with like (`overhead_analysis::crosscheck`).
//!
//! Its own crate, above the run it borrows the probe processes and the record of (`overhead-orchestrator`):
//! the peers, their commands and parsers, and the rounds. What the record holds of it
//! (`overhead_record::Crosscheck`), the verdicts (`overhead_analysis::crosscheck`) and its section
//! (`overhead_report`'s `crosscheck_text`) stay with the other records, analyses and sections, since the
//! crates that read records may not reach the crates that measure.

mod peer;
mod peers;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use overhead_analysis::{merge_processes, Process};
use overhead_convert::SplitMix64;
use overhead_experiments::Planned;
use overhead_harness::host_pair::pair_rtt;
use overhead_harness::{Harness, HarnessConfig, Mode};
use overhead_protocol::{ProbeJob, VERSION};
use overhead_record::{
    first_two_cpus, Crosscheck, MissingPeer, PeerReading, PeerRecord, PointSpec, RunRecord, HOST_PAIR_A, HOST_PAIR_B,
    HOST_RTT_AFTER, HOST_RTT_BEFORE, HOST_RTT_COST,
};

use overhead_orchestrator::probe_process::{run_one, ProbeEnd};
use overhead_orchestrator::{flagging_of, new_record, RunOptions, RunOutcome};

pub use peer::{Peer, PeerCommand};

/// What a crosscheck needs beyond a run's options: how many rounds, and crossbeam's programs.
pub struct CrosscheckOptions {
    /// The run's options (the plan the points are taken from, the machine, the clock, where to write).
    pub run: RunOptions,
    /// Rounds (each runs every peer and each compared point once).
    pub rounds: usize,
    /// Built crossbeam-channel benchmark programs to run as peers.
    pub crossbeam: Vec<PathBuf>,
}

/// One measurement of a round: a peer, or one of our points.
#[derive(Debug, Clone, Copy)]
enum Trial {
    Peer(usize),
    Point(usize),
}

/// Runs the crosscheck and writes its record (`results.json` in the run's directory) atomically after every
/// round, so an interrupted crosscheck keeps the rounds it finished.
///
/// Errors: the record could not be written, or this executable could not be started as a probe.
pub fn crosscheck(opts: CrosscheckOptions, interrupted: &AtomicBool) -> anyhow::Result<RunOutcome> {
    let started = Instant::now();
    let mut record = new_record(&opts.run);
    let specs: Vec<&PointSpec> =
        opts.run.plan.iter().filter_map(|p| if let Planned::Run(spec) = p { Some(spec) } else { None }).collect();
    let (peers, missing) = available_peers(&opts.crossbeam, &specs);
    // Each point the peers name, once.
    let mut points: Vec<PointSpec> = Vec::new();
    for case in peers.iter().flat_map(|(peer, _, _)| peer.cases()) {
        if let Some(spec) = specs.iter().find(|s| s.name() == case.point) {
            if !points.iter().any(|p| p.name() == case.point) {
                points.push((*spec).clone());
            }
        }
    }
    let mut check = Crosscheck {
        rounds: 0,
        peers: peers
            .iter()
            .map(|(peer, command, _)| PeerRecord {
                peer: peer.name(),
                command: command.display(),
                cases: peer.cases(),
                readings: Vec::new(),
            })
            .collect(),
        missing,
        pairs: Vec::new(),
    };
    let harness = Harness::new(&opts.run.time_source, HarnessConfig::for_mode(Mode::Default));
    let run_pair = first_two_cpus(&opts.run.machine.allowed_cpus);
    let this = std::env::current_exe()?;
    let mut processes: Vec<Vec<Process>> = vec![Vec::new(); points.len()];
    let mut hints: Vec<Option<u64>> = vec![None; points.len()];
    let mut rng = SplitMix64(seed());
    let path = opts.run.out_dir.join("results.json");
    for round in 1..=opts.rounds {
        let mut trials: Vec<Trial> =
            (0..peers.len()).map(Trial::Peer).chain((0..points.len()).map(Trial::Point)).collect();
        shuffle(&mut trials, &mut rng);
        for trial in trials {
            if interrupted.load(Ordering::SeqCst) {
                break;
            }
            let at = started.elapsed().as_secs_f64();
            match trial {
                Trial::Peer(i) => {
                    let (peer, command, pair) = &peers[i];
                    eprintln!("round {round}: {}", peer.name());
                    if let Some(reading) = peer_reading(&**peer, command, pair.or(run_pair), &harness, round, at) {
                        check.peers[i].readings.push(reading);
                    }
                }
                Trial::Point(i) => {
                    let spec = &points[i];
                    eprintln!("round {round}: {}", spec.name());
                    let job = job(spec, &record, hints[i], run_pair);
                    let t = Instant::now();
                    let end = run_one(&this, &[], &job, &opts.run.launch, opts.run.point_timeout, interrupted);
                    match end {
                        ProbeEnd::Result(answer) => {
                            hints[i] = hints[i].or(answer.sized_batch_ops);
                            let wall_ms = t.elapsed().as_secs_f64() * 1e3;
                            processes[i].push(Process { record: *answer.point, round, wall_ms, started_s: Some(at) });
                        }
                        ProbeEnd::Failed(_, why) => eprintln!("  {} failed: {why}", spec.name()),
                        ProbeEnd::Interrupted => break,
                    }
                }
            }
        }
        check.rounds = round;
        write(&mut record, &processes, &check, &path)?;
        if interrupted.load(Ordering::SeqCst) {
            record.interrupted = true;
            break;
        }
    }
    record.finished_utc = Some(chrono::Utc::now().to_rfc3339());
    write(&mut record, &processes, &check, &path)?;
    Ok(RunOutcome { path, record })
}

/// Every peer that can run here with its command and fingerprinted pair, and those that cannot with why.
/// A peer's CPUs are its first case's point's, so both sides run where the other did.
#[allow(clippy::type_complexity)]
fn available_peers(
    crossbeam: &[PathBuf],
    specs: &[&PointSpec],
) -> (Vec<(Box<dyn Peer>, PeerCommand, Option<[usize; 2]>)>, Vec<MissingPeer>) {
    let mut ready = Vec::new();
    let mut missing = Vec::new();
    for peer in peers::all(crossbeam) {
        let cases = peer.cases();
        let spec = cases.iter().find_map(|c| specs.iter().find(|s| s.name() == c.point));
        let Some(spec) = spec else {
            let names: Vec<String> = cases.iter().map(|c| c.point.clone()).collect();
            missing.push(MissingPeer {
                peer: peer.name(),
                reason: format!("no point of this run's plan matches it ({})", names.join(", ")),
                install: "—".into(),
            });
            continue;
        };
        match peer.command(&spec.cpus) {
            Ok(mut command) => {
                command.timeout = peer.timeout();
                let pair = first_two_cpus(&spec.cpus);
                ready.push((peer, command, pair));
            }
            Err(reason) => missing.push(MissingPeer { peer: peer.name(), reason, install: peer.install() }),
        }
    }
    (ready, missing)
}

/// One run of a peer between two fingerprints; `None` (said on stderr) when it failed or printed nothing
/// it should.
fn peer_reading(
    peer: &dyn Peer,
    command: &PeerCommand,
    pair: Option<[usize; 2]>,
    harness: &Harness,
    round: usize,
    started_s: f64,
) -> Option<PeerReading> {
    let before = pair.and_then(|p| fingerprint(harness, p));
    let output = command.run();
    let after = pair.and_then(|p| fingerprint(harness, p));
    let values_ns = match output.and_then(|(out, err)| peer.parse(&out, &err)) {
        Ok(values) => values,
        Err(why) => {
            eprintln!("  {}: {why}", peer.name());
            return None;
        }
    };
    let mut extra = BTreeMap::new();
    if let Some([a, b]) = pair.filter(|_| before.is_some() || after.is_some()) {
        extra.insert(HOST_PAIR_A.to_string(), a.min(b) as f64);
        extra.insert(HOST_PAIR_B.to_string(), a.max(b) as f64);
        let mut cost = 0.0;
        for (key, rtt) in [(HOST_RTT_BEFORE, before), (HOST_RTT_AFTER, after)] {
            if let Some(rtt) = rtt {
                extra.insert(key.to_string(), rtt.rtt_ns);
                cost += rtt.cost_ns;
            }
        }
        extra.insert(HOST_RTT_COST.to_string(), cost);
    }
    Some(PeerReading { round, started_s, values_ns, extra, state: None })
}

/// The fingerprint of `pair`, taken on a thread of its own so this process's own CPUs stay as they are.
fn fingerprint(harness: &Harness, [a, b]: [usize; 2]) -> Option<overhead_harness::host_pair::PairRtt> {
    std::thread::scope(|s| s.spawn(|| pair_rtt(harness, a, b, a)).join().ok().flatten())
}

/// The job of one of our points: the run's settings as its experiment adjusts them, the batch size its first
/// process settled on, and its fingerprinted pair.
fn job(spec: &PointSpec, record: &RunRecord, hint: Option<u64>, run_pair: Option<[usize; 2]>) -> ProbeJob {
    let harness =
        overhead_experiments::find(&spec.experiment).map_or(record.harness, |e| e.harness_config(record.harness));
    ProbeJob {
        v: VERSION,
        spec: spec.clone(),
        time_source: record.time_source.clone(),
        harness,
        batch_ops_hint: hint,
        host_pair: first_two_cpus(&spec.cpus).or(run_pair),
    }
}

/// The record with every point merged from its processes so far and the crosscheck's readings, analysed
/// and written atomically.
fn write(
    record: &mut RunRecord,
    processes: &[Vec<Process>],
    check: &Crosscheck,
    path: &std::path::Path,
) -> anyhow::Result<()> {
    let all: Vec<&Process> = processes.iter().flatten().collect();
    let rules = flagging_of(record, all.iter().map(|p| &p.record.extra));
    record.points = processes.iter().filter(|p| !p.is_empty()).map(|p| merge_processes(p, &rules)).collect();
    record.crosscheck = Some(check.clone());
    overhead_analysis::analyze(record, &overhead_experiments::CATALOG);
    overhead_record::write_atomic(path, record)?;
    Ok(())
}

/// Fisher–Yates with SplitMix64.
fn shuffle<T>(items: &mut [T], rng: &mut SplitMix64) {
    for i in (1..items.len()).rev() {
        let j = (rng.next() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}

/// A seed from the clock: each crosscheck draws its own orders.
fn seed() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shuffle_keeps_every_trial_and_varies_the_order() {
        let mut rng = SplitMix64(7);
        let mut orders = std::collections::BTreeSet::new();
        for _ in 0..20 {
            let mut v: Vec<usize> = (0..6).collect();
            shuffle(&mut v, &mut rng);
            let mut sorted = v.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..6).collect::<Vec<_>>());
            orders.insert(v);
        }
        assert!(orders.len() > 10, "{} orders in 20 draws", orders.len());
    }

    /// Every peer's first case names a point of the default plan on a machine of two CPUs: a renamed point
    /// would leave the peer unmatched.
    #[test]
    fn every_peer_names_points_the_plan_has() {
        let topology = overhead_machine::Topology::detect();
        let cpus: Vec<usize> = topology.cpus.iter().map(|c| c.cpu).collect();
        if cpus.len() < 2 {
            return;
        }
        let ctx = overhead_experiments::PlanContext { cpus, topology, mode: Mode::Default, hosts: Vec::new() };
        let plan = overhead_orchestrator::build_plan(
            &overhead_orchestrator::select_experiments(&[]).unwrap(),
            &overhead_orchestrator::select_runtimes(&[]).unwrap(),
            false,
            &ctx,
        );
        let names: Vec<String> = plan
            .iter()
            .map(|p| match p {
                Planned::Run(s) | Planned::Skip(s, _) => s.name(),
            })
            .collect();
        let crossbeam = [PathBuf::from("x/crossbeam-channel"), PathBuf::from("x/mpsc")];
        for peer in peers::all(&crossbeam) {
            for case in peer.cases() {
                assert!(names.contains(&case.point), "{}: {} is not in the plan", peer.name(), case.point);
            }
        }
    }
}
