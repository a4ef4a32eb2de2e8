//! `mpi.hosts`: mpiGraph's view — the round trip and the bandwidth between every pair of hosts, as two
//! host × host matrices.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{follow, RANKS};
use crate::pairwise::index_pairs;
use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use overhead_harness::{Harness, Measurement, Mode};
use overhead_machine::Placement;
use overhead_record::{Details, Matrix, Metric};
use overhead_runtime_api::RuntimeUnderTest;
use overhead_runtime_external::mpi::shim::{shim, Op, Shim};
use overhead_stats::Summary;

/// Bytes of the round trip's messages (mpiGraph's latency, osu_latency's small message).
pub const RTT_BYTES: u64 = 8;
/// Bytes of each message of the bandwidth's windows (mpiGraph's default size).
pub const BW_BYTES: u64 = 1 << 20;
/// Messages in flight per window: fixed by the shim's `OVH_OP_PAIR_WINDOW` (osu_bw's default).
pub const BW_WINDOW: u64 = 64;
/// Repetitions of every pair's round trip per process; a cell is their median. Each is one harness batch
/// long (about 0.5 ms, shorter than a time slice): many short ones, so that those a busy machine preempts
/// do not move the median.
pub const RTT_REPETITIONS: usize = 15;
/// Repetitions of every direction's bandwidth per process (each about 0.1 s on 1 GB/s).
pub const BW_REPETITIONS: usize = 5;
pub use overhead_schema::experiments::mpi::NEEDS_HOSTS;

/// `mpi.hosts`'s parameters: the ranks, one per host; `placement:other_host` follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostsParams {
    pub ranks: usize,
}

/// What an `mpi.hosts` point reports beside its median (its `extra`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HostsResult {
    /// Round trips per repetition of a pair.
    pub round_trips_per_repetition: f64,
    /// Windows of [`BW_WINDOW`] messages per repetition of a direction.
    pub windows_per_repetition: f64,
    /// Host pairs measured (of n (n − 1) / 2).
    pub pairs_measured: f64,
}

/// mpiGraph (Adam Moody, LLNL): one rank per host; rank 0 leads every pair of hosts in turn (the others
/// wait): an 8-byte MPI_Send/MPI_Recv ping-pong [`RTT_REPETITIONS`] times (`matrices["rtt"]`, ns per round
/// trip, symmetric), then windows of 64 MPI_Isend of 1 MiB and a 4-byte ack from the row host to the column
/// host [`BW_REPETITIONS`] times (`matrices["bw"]`, MB/s, each direction measured). A cell is the median of
/// its repetitions, ± the half-width of that median's CI (across processes once merged,
/// `overhead_analysis::merge_details`). The pair's first rank times its loop with CLOCK_MONOTONIC; no control
/// (the loop is MPI calls only). The point's samples are every repetition's round trip (ns), so its median
/// is the typical pair's round trip; the diagonal (a host with itself) is not measured.
pub struct Hosts;

impl Hosts {
    /// Public ID (docs/ARCHITECTURE.md "Experiments").
    pub const ID: &'static str = overhead_schema::experiments::mpi::HOSTS;
}

impl Experiment for Hosts {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Hosts::ID,
            summary: "host × host matrices, one rank per host: 8 B MPI ping-pong round trip and 1 MiB bandwidth \
                      (windows of 64) between every pair of hosts",
            source: "mpiGraph (LLNL); Souvatzis (the networked case)",
            metric: Metric::Rtt,
            requires: RANKS,
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn RuntimeUnderTest) -> Vec<Planned> {
        let ranks = ctx.hosts.len();
        if ranks < 2 {
            let spec = ctx.spec_of(self.id(), runtime, &HostsParams { ranks: 2 }, vec![ctx.home_cpu()]);
            return vec![Planned::Skip(spec, NEEDS_HOSTS.into())];
        }
        // One rank per host, each on a different CPU number where there are enough (the hosts may be
        // namespaces of one machine), as the collectives across hosts place them.
        let cpus: Vec<usize> = (0..ranks).map(|i| ctx.cpus[i % ctx.cpus.len()]).collect();
        let mut spec = ctx.spec_of(self.id(), runtime, &HostsParams { ranks }, cpus);
        spec.params.push(("placement".into(), Placement::OtherHost.name().into()));
        spec.placement = Some(Placement::OtherHost);
        spec.hosts = ctx.hosts.clone();
        vec![Planned::Run(spec)]
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let HostsParams { ranks } = point.params()?;
        let mpi = shim().map_err(anyhow::Error::msg)?;
        anyhow::ensure!(mpi.size() == ranks, "{}: {} ranks started for {ranks}", point.spec.name(), mpi.size());
        anyhow::ensure!(ranks < 1 << 16, "{}: at most 65535 hosts", point.spec.name());
        let labels: Vec<String> = (0..ranks).map(|r| point.host_of(r).map_or(r.to_string(), str::to_string)).collect();
        let measured = measure(mpi, ranks, h.config.mode, h.config.target_batch_ns);
        mpi.lead(Op::Stop, 0, 0, 0)?;
        let m = measured?;
        if m.samples_ns.is_empty() {
            anyhow::bail!("no host pair could be measured: {}", m.notes.join("; "));
        }
        let result = HostsResult {
            round_trips_per_repetition: m.round_trips as f64,
            windows_per_repetition: m.windows as f64,
            pairs_measured: m.pairs_measured as f64,
        };
        let measurement = Measurement {
            counts_per_op: None,
            batch_ops: m.round_trips,
            control_ns: vec![0.0; m.samples_ns.len()],
            samples_ns: m.samples_ns,
            per_thread_ns: Vec::new(),
            resolution_ns: h.resolution_per_op_ns(m.round_trips),
        };
        let mut details = Details::default();
        details.matrices.insert("rtt".into(), cells_matrix(RTT_TITLE, "ns", &labels, &m.rtt));
        details.matrices.insert("bw".into(), cells_matrix(BW_TITLE, "MB/s", &labels, &m.bw));
        Ok(Outcome { measurement, notes: m.notes, extra: BTreeMap::new(), details }.with_result(&result))
    }
    fn follow(&self, _point: &Point<'_>) -> anyhow::Result<()> {
        follow()
    }
}

pub use overhead_schema::experiments::mpi::BW_TITLE;
pub use overhead_schema::experiments::mpi::RTT_TITLE;

/// What rank 0 measured: every cell's repetitions, and the point's samples.
struct Measured {
    /// `rtt[i][j]`: ns per round trip of each repetition (both cells of a pair).
    rtt: Vec<Vec<Vec<f64>>>,
    /// `bw[i][j]`: MB/s from host i to host j of each repetition.
    bw: Vec<Vec<Vec<f64>>>,
    samples_ns: Vec<f64>,
    round_trips: u64,
    windows: u64,
    pairs_measured: usize,
    notes: Vec<String>,
}

/// The time a process spends starting pairs: pairs not started by then stay empty, with a note (well inside
/// the orchestrator's point limit).
fn deadline(mode: Mode) -> Duration {
    Duration::from_secs(match mode {
        Mode::Quick => 20,
        Mode::Default => 30,
        Mode::Full => 60,
    })
}

/// The shim's pair argument: the pair's first rank (which times) and its second.
fn pair_word(a: usize, b: usize) -> u64 {
    ((a as u64) << 16) | b as u64
}

/// ns of `n` of `op` between ranks `a` and `b`, as rank `a` timed them.
fn pair_ns(mpi: &Shim, op: Op, n: u64, bytes: u64, a: usize, b: usize) -> anyhow::Result<f64> {
    mpi.lead(op, n, bytes, pair_word(a, b))?;
    Ok(mpi.pair_ns())
}

/// Round trips per repetition: enough for `target_ns` (the harness's batch) of the first pair's round
/// trip, within 16 … 100 000.
fn round_trips_for(target_ns: f64, one_rtt_ns: f64) -> u64 {
    (target_ns / one_rtt_ns.max(1.0)).clamp(16.0, 100_000.0) as u64
}

/// Every pair in turn, the round trips first ([`RTT_REPETITIONS`] rounds of every pair) and then the
/// bandwidths ([`BW_REPETITIONS`] rounds: a window of 64 MiB leaves the network stack busy for a while after
/// it, which a round trip right after would measure); each pair is warmed up first (one round trip and one
/// window each way: connections are made on first use). Pairs not started by [`deadline`] stay empty, with
/// a note.
fn measure(mpi: &Shim, ranks: usize, mode: Mode, target_ns: f64) -> anyhow::Result<Measured> {
    let pairs = index_pairs(ranks);
    let empty = || vec![vec![Vec::new(); ranks]; ranks];
    let (mut rtt, mut bw) = (empty(), empty());
    for &(i, j) in &pairs {
        pair_ns(mpi, Op::Pair, 1, RTT_BYTES, i, j)?;
        pair_ns(mpi, Op::PairWindow, 1, BW_BYTES, i, j)?;
        pair_ns(mpi, Op::PairWindow, 1, BW_BYTES, j, i)?;
    }
    // Size the round trips on the first pair.
    let probe = pair_ns(mpi, Op::Pair, 16, RTT_BYTES, 0, 1)? / 16.0;
    let round_trips = round_trips_for(target_ns, probe);
    let windows = 1;
    let stop = Instant::now() + deadline(mode);
    let mut late = false;
    for (phase, repetitions) in [(Op::Pair, RTT_REPETITIONS), (Op::PairWindow, BW_REPETITIONS)] {
        for _ in 0..repetitions {
            for &(i, j) in &pairs {
                late |= Instant::now() > stop;
                if late {
                    break;
                }
                if phase == Op::Pair {
                    let per_rtt = pair_ns(mpi, Op::Pair, round_trips, RTT_BYTES, i, j)? / round_trips as f64;
                    rtt[i][j].push(per_rtt);
                    rtt[j][i].push(per_rtt);
                } else {
                    for (from, to) in [(i, j), (j, i)] {
                        let ns = pair_ns(mpi, Op::PairWindow, windows, BW_BYTES, from, to)?;
                        bw[from][to].push((windows * BW_WINDOW * BW_BYTES) as f64 / ns * 1e3);
                    }
                }
            }
        }
    }
    let mut notes = Vec::new();
    if late {
        notes.push(format!(
            "time budget ({} s) spent before every pair had {RTT_REPETITIONS} repetitions of the round trip and \
             {BW_REPETITIONS} of the bandwidth: cells with fewer (or none) are less certain",
            deadline(mode).as_secs()
        ));
    }
    let samples_ns: Vec<f64> = pairs.iter().flat_map(|&(i, j)| rtt[i][j].iter().copied()).collect();
    let pairs_measured = pairs.iter().filter(|&&(i, j)| !rtt[i][j].is_empty()).count();
    if pairs_measured < pairs.len() {
        notes.push(format!("{pairs_measured} of {} host pairs measured", pairs.len()));
    }
    Ok(Measured { rtt, bw, samples_ns, round_trips, windows, pairs_measured, notes })
}

/// A host × host matrix of the cells' medians ± the half-width of their CIs; empty cells stay empty.
fn cells_matrix(title: &str, unit: &str, labels: &[String], cells: &[Vec<Vec<f64>>]) -> Matrix {
    let mut m = Matrix::square(title, unit, labels.to_vec());
    let n = labels.len();
    let mut uncertainty = vec![vec![None; n]; n];
    for (i, row) in cells.iter().enumerate() {
        for (j, reps) in row.iter().enumerate() {
            if let Some(s) = Summary::of(reps) {
                m.values[i][j] = Some(s.median);
                uncertainty[i][j] = Some(s.ci_half_width());
            }
        }
    }
    m.uncertainty = Some(uncertainty);
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_host_is_one_skipped_point_and_hosts_get_one_rank_each() {
        let mut ctx = crate::plan::tests::two_cpu_context(Mode::Quick);
        let mpi = &overhead_runtime_external::mpi::Mpi;
        match Hosts.points(&ctx, mpi).as_slice() {
            [Planned::Skip(spec, reason)] => {
                assert_eq!(reason, NEEDS_HOSTS);
                assert_eq!(spec.experiment, Hosts::ID);
            }
            other => panic!("{other:?}"),
        }
        ctx.hosts = vec!["a".into(), "b".into(), "c".into()];
        let planned = Hosts.points(&ctx, mpi);
        let [Planned::Run(spec)] = planned.as_slice() else { panic!("{planned:?}") };
        assert_eq!(spec.hosts, ["a", "b", "c"]);
        assert_eq!(spec.cpus.len(), 3);
        assert_ne!(spec.cpus[0], spec.cpus[1]);
        assert_eq!(spec.placement, Some(Placement::OtherHost));
        assert_eq!(spec.name(), "mpi.hosts/runtime:mpi/ranks:3/placement:other_host");
    }

    #[test]
    fn cells_are_medians_with_their_spread() {
        let labels = vec!["a".to_string(), "b".to_string()];
        let mut cells = vec![vec![Vec::new(); 2]; 2];
        cells[0][1] = vec![10.0, 12.0, 11.0, 30.0, 11.0];
        let m = cells_matrix(RTT_TITLE, "ns", &labels, &cells);
        assert_eq!(m.values[0][1], Some(11.0));
        assert_eq!(m.values[0][0], None);
        assert!(m.uncertainty.as_ref().unwrap()[0][1].is_some());
    }

    #[test]
    fn round_trips_fill_a_batch_within_bounds() {
        assert_eq!(round_trips_for(5e5, 10_000.0), 50);
        assert_eq!(round_trips_for(5e5, 1e9), 16);
        assert_eq!(round_trips_for(1e6, 0.0), 100_000);
        assert_eq!(pair_word(1, 2), 65538);
    }
}
