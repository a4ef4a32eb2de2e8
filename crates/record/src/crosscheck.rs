//! `overhead crosscheck`: the field's own tools run beside our matching points, paired in time (docs/METHOD.md
//! §20). Each round runs every available peer and one probe process of each of our points it is compared
//! with, in an order drawn afresh each round (as RMIT randomises its trials), each bracketed by the host-state
//! fingerprint, so a ratio is read only between measurements that met the same host.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Everything one crosscheck ran and concluded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Crosscheck {
    /// Rounds run.
    pub rounds: usize,
    /// Each peer that ran: its command and its readings, one per round.
    pub peers: Vec<PeerRecord>,
    /// Peers that could not run here, why, and the command that installs them.
    pub missing: Vec<MissingPeer>,
    /// Each of the peer's numbers against our matching point (analysis, `overhead_analysis::crosscheck`).
    #[serde(default)]
    pub pairs: Vec<CrosscheckPair>,
}

/// One peer tool as it ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PeerRecord {
    /// Its name (`lmbench lat_syscall`, `perf bench sched pipe`, …).
    pub peer: String,
    /// The command line it ran, CPUs included.
    pub command: String,
    /// What each of its cases is compared with: the case, our point, and how its number was converted.
    pub cases: Vec<PeerCase>,
    /// One reading per round it ran in.
    pub readings: Vec<PeerReading>,
}

/// One number a peer prints and the point of ours it is compared with.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PeerCase {
    /// The peer's name for it (`null`, `Pipe latency`, `bounded0_spsc`).
    pub case: String,
    /// Our point's name.
    pub point: String,
    /// How the peer's number becomes our metric, in words ("µs → ns", "one way × 2 = round trip",
    /// "s per 5·10⁶ messages → ns per message").
    pub conversion: String,
    /// Whether the operation crosses CPUs: then only rounds in one host state are compared.
    pub cross_core: bool,
    /// What could make the two differ by method rather than by error, said when they do.
    pub method_difference: String,
    /// The key of our process's `extra` the peer's number is compared with, when it is not the point's
    /// median (`waker_ns_p50`: `perf bench futex wake` times the waker's call, not the wake latency); absent
    /// in records before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ours_key: Option<String>,
}

/// One run of a peer: its numbers in our metric (ns), when it started, and its fingerprints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PeerReading {
    /// The round it ran in, from 1.
    pub round: usize,
    /// Seconds after the crosscheck started.
    pub started_s: f64,
    /// Case → its number converted to our point's metric (ns).
    pub values_ns: BTreeMap<String, f64>,
    /// The host-state fingerprints around it, under the keys a probe process uses (`host_rtt_ns_before`, …).
    #[serde(default)]
    pub extra: BTreeMap<String, f64>,
    /// The host state its fingerprints fell in (analysis), as a probe process's `state`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<usize>,
}

/// A peer that could not run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MissingPeer {
    /// The peer's name.
    pub peer: String,
    /// Why ("lat_syscall not found on PATH").
    pub reason: String,
    /// What installs it here.
    pub install: String,
}

/// A peer's number against our point over the rounds, and the verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrosscheckPair {
    /// The peer's name, the case and our point, as in its [`PeerCase`].
    pub peer: String,
    pub case: String,
    pub point: String,
    /// Whether the operation crosses CPUs: only rounds in one host state count.
    pub cross_core: bool,
    /// The agreement asked for: ±10% on one CPU, ±15% across CPUs (as a fraction).
    pub tolerance: f64,
    /// Each round with both numbers.
    pub rounds: Vec<PairRound>,
    /// The median of ours ÷ peer over the rounds that count (one state for a cross-core pair, all rounds
    /// otherwise); absent where none does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f64>,
    pub verdict: CrosscheckVerdict,
    /// The verdict in words, with the likely reason where they differ.
    pub says: String,
}

/// One round of a pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairRound {
    /// The round, from 1.
    pub round: usize,
    /// Our process's median and the peer's number (ns, our metric).
    pub ours_ns: f64,
    pub peer_ns: f64,
    /// ours ÷ peer.
    pub ratio: f64,
    /// The host state each met (its round trip, ns), where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ours_state_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer_state_ns: Option<f64>,
    /// Whether the round counts: both in one state, or a pair on one CPU.
    pub counts: bool,
}

/// What a pair concluded. serde: `"agrees"`, `"differs"`, `"states_never_matched"`, `"not_measured"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CrosscheckVerdict {
    /// Within the tolerance in the rounds that count.
    Agrees,
    /// Outside it.
    Differs,
    /// A cross-core pair whose two sides never met the same host state in one round.
    StatesNeverMatched,
    /// No round has both numbers.
    NotMeasured,
}
