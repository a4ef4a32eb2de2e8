//! `rpc.floor`: what a gRPC call's delta is made of. Walfield 2008 compared its delta (client − server time per
//! call, 4.2 µs for object discard) with a ping-pong of the same payload (1.2 µs) and could not account for the
//! rest; it guessed that ping-pong "really measures the very hot case" while the application ran "with very
//! cold caches". Here, in one probe, against two forked servers on the point's second CPU:
//!
//! - the bare socket: the request's encoded bytes out and the reply's bytes back, no RPC stack (the point's
//!   median, with its CI: the transport's share of the delta);
//! - gRPC's delta for object discard, hot (calls back to back): the delta less the bare round trip is the
//!   framing, protocol and runtime's share;
//! - both again cold: before every call both processes stream a buffer of twice the last-level cache through
//!   their caches, outside the timed call, and each call is timed alone. Cold − hot is the study's question.

use std::cell::RefCell;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use prost::Message as _;
use serde::{Deserialize, Serialize};

use super::accounting::{totals, MethodTotals};
use super::server::{EchoServer, GrpcServer};
use super::{evict_mib, one_thread_note, placements, RpcTransport};
use crate::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point, KERNEL};
use overhead_grpc::bare::{round_trip, EVICT_TAG};
use overhead_grpc::evict::Evictor;
use overhead_grpc::service::{connect, reply, request, Method, Stub};
use overhead_harness::{Harness, Measurement, Mode};
use overhead_record::{LabelledTable, Metric};

/// Key of the hot/cold table in an `rpc.floor` point's `details.tables`.
pub const TABLE_KEY: &str = "floor";

/// Columns of the hot/cold table (µs per call): each side's time and the delta, hot then cold, and the cold
/// delta less the hot one.
pub const COLUMNS: [&str; 7] = [
    "hot_client_us",
    "hot_server_us",
    "hot_delta_us",
    "cold_client_us",
    "cold_server_us",
    "cold_delta_us",
    "cold_minus_hot_us",
];

/// The method whose delta the floor splits: Walfield's reconciliation was of object discard's 4.2 µs.
const METHOD: Method = Method::ObjectDiscard;

/// Untimed calls or round trips before each hot measurement starts counting.
const WARMUP_CALLS: usize = 16;

/// Cold calls per process (each one alone, after its eviction; one more before them as warm-up): few, since
/// each costs two streams of the eviction buffer.
fn cold_runs(mode: Mode) -> usize {
    match mode {
        Mode::Quick => 3,
        Mode::Default => 5,
        Mode::Full => 25,
    }
}

/// Wall time each cold phase (the bare socket's, gRPC's) of one process may spend on evictions: a fixed cost
/// bounded by time, not only by the buffer's size, so a host whose memory bandwidth drops does not stretch the
/// run (a tenth of a second per phase here, at 5–10 GB/s). The cold median is over processes too (at least
/// three), so a process needs only a few: a 256 MiB eviction (a 300 MiB last-level cache) made nine cold calls
/// cost a 16-CPU process most of its 2.1 s. A default process's 150 ms still holds five cold calls where the
/// cache is tens of MiB (64 MiB evictions on a 2-vCPU guest) and the fewest, three, where an eviction streams
/// half a GiB: the point's processes then hold nine cold calls between them.
fn cold_budget(mode: Mode) -> Duration {
    match mode {
        Mode::Quick => Duration::from_millis(100),
        Mode::Default => Duration::from_millis(150),
        Mode::Full => Duration::from_secs(2),
    }
}

/// The fewest cold calls a process makes, however slow its evictions: a median of three.
const MIN_COLD_RUNS: usize = 3;

/// Cold calls that fit `budget` when each costs `one_run` (its two evictions, this process's and the server's),
/// at most `asked` and at least [`MIN_COLD_RUNS`].
fn cold_runs_within(asked: usize, one_run: Duration, budget: Duration) -> usize {
    let fit = budget.as_secs_f64() / one_run.as_secs_f64().max(1e-9);
    // The nudge keeps an exact fit (600 ms / 100 ms) from rounding down to one fewer.
    ((fit + 1e-9).floor() as usize).clamp(MIN_COLD_RUNS.min(asked), asked)
}

/// `rpc.floor`'s parameters; `placement` follows (added by the plan).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Params {
    pub transport: RpcTransport,
    /// MiB each process streams through its caches before a cold call ([`evict_mib`]).
    pub evict_mib: u64,
}

/// The bare socket under a gRPC call, and the call's delta hot and cold (Walfield's floor and its
/// unaccounted cycles).
pub struct Floor;

impl Floor {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::rpc::FLOOR;
}

impl Experiment for Floor {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Floor::ID,
            summary: "bare socket round trip of a gRPC call's bytes (108 B out, 18 B back) against the empty loop; \
                      with the call's delta hot and with both processes' caches evicted before each call",
            source: "Walfield 2008 (ping-pong floor of the RPC overhead; unaccounted cycles, cold caches)",
            metric: Metric::Rtt,
            requires: KERNEL,
        }
    }

    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        let evict_mib = evict_mib(&ctx.topology, ctx.mode);
        RpcTransport::ALL
            .into_iter()
            .flat_map(|transport| placements(ctx, self.id(), runtime, &Params { transport, evict_mib }))
            .collect()
    }

    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let params: Params = point.params()?;
        let server_cpu = *spec.cpus.last().context("the point names no CPU")?;
        let evict_bytes = usize::try_from(params.evict_mib << 20).context("evict_mib")?;
        let words = request(0);
        let request = words.encode_to_vec();
        let reply_len = reply(METHOD, &words).encoded_len();
        // The buffer is made before the servers are forked, which share it (Evictor); both are forked while
        // this process has one thread and no runtime (server.rs).
        let evictor = Evictor::new(evict_bytes);
        let echo = EchoServer::start(params.transport, server_cpu, request.len(), reply_len, evictor.clone())?;
        let grpc = GrpcServer::start(params.transport, server_cpu, h.clock, Some(evictor.clone()))?;
        // One eviction timed here stands for each side's: a cold call costs about two of them.
        let started = Instant::now();
        evictor.evict();
        let one_eviction = started.elapsed();
        let asked = cold_runs(h.config.mode);
        let runs = cold_runs_within(asked, 2 * one_eviction, cold_budget(h.config.mode));

        let (bare_hot, bare_cold) = measure_bare(h, &echo, &request, reply_len, &evictor, runs)?;
        echo.finish()?;
        let mut notes = Vec::new();
        let (grpc_hot, grpc_cold) = measure_grpc(h, &grpc, &evictor, runs, &mut notes)?;
        grpc.finish()?;

        let median = |m: &Measurement| m.summary().map_or(f64::NAN, |s| s.median);
        let floor =
            FloorNumbers { bare_hot_ns: median(&bare_hot), bare_cold_ns: median(&bare_cold), grpc_hot, grpc_cold };
        let mut outcome = Outcome::from(bare_hot).with_result(&floor.result(request.len(), reply_len, evict_bytes));
        outcome.details.tables.insert(TABLE_KEY.into(), floor.table());
        outcome.notes.push(format!(
            "cold: {runs} calls per process, each after both processes streamed {} MiB; gRPC: {}",
            params.evict_mib,
            METHOD.label()
        ));
        if runs < asked {
            outcome.notes.push(format!(
                "cold calls cut from {asked} to {runs} per process: one eviction took {:.0} ms here, and each cold \
                 phase may spend {} ms on them",
                one_eviction.as_secs_f64() * 1e3,
                cold_budget(h.config.mode).as_millis()
            ));
        }
        if params.evict_mib >= super::EVICT_MIB_CAP
            || h.config.mode == Mode::Quick && params.evict_mib >= super::EVICT_MIB_CAP_QUICK
        {
            outcome.notes.push(format!(
                "the eviction is at its cap ({} MiB in this mode): where the machine reports a last-level cache over half of \
                 it, a cold call may find some of its previous call's lines in cache",
                params.evict_mib
            ));
        }
        outcome.notes.extend(notes);
        Ok(outcome)
    }
}

/// The bare socket's round trip, hot (the harness's batches against the empty loop) and cold (each round trip
/// alone, after the echo and this process evicted their caches).
///
/// Errors: connecting failed, or a round trip failed.
fn measure_bare(
    h: &Harness,
    echo: &EchoServer,
    request: &[u8],
    reply_len: usize,
    evictor: &Evictor,
    runs: usize,
) -> anyhow::Result<(Measurement, Measurement)> {
    let stream = RefCell::new(echo.address().connect().context("connecting to the echo")?);
    let mut back = vec![0u8; reply_len];
    for _ in 0..WARMUP_CALLS {
        round_trip(&mut *stream.borrow_mut(), request, &mut back).context("warm-up round trip")?;
    }
    let failed = RefCell::new(None);
    let once = |back: &mut [u8]| {
        if let Err(e) = round_trip(&mut *stream.borrow_mut(), request, back) {
            failed.borrow_mut().get_or_insert(e);
        }
    };
    let hot = h.measure(
        |n| {
            for _ in 0..n {
                once(&mut back);
            }
        },
        empty_loop,
    );
    let mut evict_request = request.to_vec();
    evict_request[0] = EVICT_TAG;
    let mut ack = vec![0u8; reply_len];
    let mut evict_both = || {
        if let Err(e) = round_trip(&mut *stream.borrow_mut(), &evict_request, &mut ack) {
            failed.borrow_mut().get_or_insert(e);
        }
        evictor.evict();
    };
    // The warm-up call is followed by an eviction like every other, so the first timed call is cold without
    // one before it. Only the cold calls' median is kept (FloorNumbers): the harness's counted pairs after
    // them, two more cold calls and evictions whose kernel counts nothing reads, are not run.
    let mut uncounted = h.clone();
    uncounted.config.counted_pairs = 0;
    let cold = uncounted.measure_runs_with_reset(|_| once(&mut back), |_| {}, |_| evict_both(), 1, runs);
    if let Some(e) = failed.into_inner() {
        anyhow::bail!("a bare round trip failed: {e}");
    }
    Ok((hot, cold))
}

/// gRPC's [`METHOD`], hot (back to back, through the harness's batches) and cold (each call alone, after the
/// server's `Evict` and this process's eviction): both sides' totals of each. A note goes to `notes` if the
/// client ran more than one thread.
///
/// Errors: connecting failed, a call failed, or the sides' call counts disagree.
fn measure_grpc(
    h: &Harness,
    server: &GrpcServer,
    evictor: &Evictor,
    runs: usize,
    notes: &mut Vec<String>,
) -> anyhow::Result<(MethodTotals, MethodTotals)> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let stub = RefCell::new(Stub::new(rt.block_on(connect(server.address())).context("connecting")?, h.clock));
    let take = |stub: &RefCell<Stub>| -> anyhow::Result<MethodTotals> {
        let (client, server_side) = rt.block_on(stub.borrow_mut().take_tallies()).context("taking the tallies")?;
        Ok(totals(&h.clock, &h.clock, &client, &server_side)?[METHOD.index()])
    };
    for _ in 0..WARMUP_CALLS {
        rt.block_on(stub.borrow_mut().call(METHOD)).context("warm-up call")?;
    }
    take(&stub)?;
    let failed = RefCell::new(None);
    let once = || {
        if let Err(e) = rt.block_on(stub.borrow_mut().call(METHOD)) {
            failed.borrow_mut().get_or_insert(e);
        }
    };
    h.measure(
        |n| {
            for _ in 0..n {
                once();
            }
        },
        empty_loop,
    );
    let hot = take(&stub)?;
    let evict_both = || {
        if let Err(e) = rt.block_on(stub.borrow_mut().evict()) {
            failed.borrow_mut().get_or_insert(e);
        }
        evictor.evict();
    };
    // As in measure_bare: the warm-up call's eviction makes the first timed call cold.
    h.measure_runs_with_reset(|_| once(), |_| {}, |_| evict_both(), 1, runs);
    let cold = take(&stub)?;
    notes.extend(one_thread_note());
    if let Some(e) = failed.into_inner() {
        anyhow::bail!("a call failed during measurement: {e}");
    }
    // Closing the connection ends the server: the client's tasks live in its runtime.
    drop(stub);
    drop(rt);
    Ok((hot, cold))
}

pub use overhead_schema::experiments::rpc::FloorResult;

/// One process's floor: the bare round trip's medians (ns) and gRPC's totals, hot and cold.
#[derive(Debug, Clone, Copy, PartialEq)]
struct FloorNumbers {
    bare_hot_ns: f64,
    bare_cold_ns: f64,
    grpc_hot: MethodTotals,
    grpc_cold: MethodTotals,
}

impl FloorNumbers {
    /// gRPC's delta per call, hot and cold (ns).
    fn deltas(&self) -> (f64, f64) {
        let d = |t: &MethodTotals| t.delta_per_call_ns().unwrap_or(f64::NAN);
        (d(&self.grpc_hot), d(&self.grpc_cold))
    }

    /// The reconciliation ([`FloorResult`]), with the sizes the process used.
    fn result(&self, request_bytes: usize, reply_bytes: usize, evict_bytes: usize) -> FloorResult {
        let (hot, cold) = self.deltas();
        let (h, c) = (&self.grpc_hot, &self.grpc_cold);
        FloorResult {
            grpc_hot_client_ns: h.client_per_call_ns(),
            grpc_hot_server_ns: h.server_per_call_ns(),
            grpc_hot_delta_ns: h.delta_per_call_ns(),
            grpc_hot_calls: h.calls as f64,
            grpc_cold_client_ns: c.client_per_call_ns(),
            grpc_cold_server_ns: c.server_per_call_ns(),
            grpc_cold_delta_ns: c.delta_per_call_ns(),
            grpc_cold_calls: c.calls as f64,
            transport_ns: self.bare_hot_ns,
            framing_runtime_ns: hot - self.bare_hot_ns,
            bare_cold_ns: self.bare_cold_ns,
            cold_minus_hot_ns: cold - hot,
            bare_cold_minus_hot_ns: self.bare_cold_ns - self.bare_hot_ns,
            request_bytes: request_bytes as f64,
            reply_bytes: reply_bytes as f64,
            evict_bytes: evict_bytes as f64,
        }
    }

    /// The hot/cold table ([`COLUMNS`], µs per call): the bare socket (its round trip is all delta: no server
    /// work), then gRPC's method.
    fn table(&self) -> LabelledTable {
        let us = |ns: Option<f64>| ns.map(|v| v / 1e3);
        let (hot, cold) = self.deltas();
        let bare = vec![
            us(Some(self.bare_hot_ns)),
            None,
            us(Some(self.bare_hot_ns)),
            us(Some(self.bare_cold_ns)),
            None,
            us(Some(self.bare_cold_ns)),
            us(Some(self.bare_cold_ns - self.bare_hot_ns)),
        ];
        let (h, c) = (&self.grpc_hot, &self.grpc_cold);
        let grpc = vec![
            us(h.client_per_call_ns()),
            us(h.server_per_call_ns()),
            us(h.delta_per_call_ns()),
            us(c.client_per_call_ns()),
            us(c.server_per_call_ns()),
            us(c.delta_per_call_ns()),
            us(Some(cold - hot)),
        ];
        LabelledTable {
            title: "Walfield's floor: bare socket and gRPC, hot and cold caches".into(),
            unit: "µs per call".into(),
            columns: COLUMNS.iter().map(|c| c.to_string()).collect(),
            rows: vec![("bare socket".into(), bare), (format!("gRPC {}", METHOD.label()), grpc)],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cold calls shrink with a slow eviction to what fits the budget, never below three nor above what the
    /// mode asks.
    #[test]
    fn cold_calls_fit_the_time_budget() {
        let ms = Duration::from_millis;
        assert_eq!(cold_runs_within(9, ms(12), ms(600)), 9, "a fast eviction keeps them all");
        assert_eq!(cold_runs_within(9, ms(100), ms(600)), 6);
        assert_eq!(cold_runs_within(9, ms(2000), ms(600)), MIN_COLD_RUNS, "a slow one keeps three");
        assert_eq!(cold_runs_within(2, ms(2000), ms(600)), 2, "never more than asked");
        assert_eq!(cold_runs_within(25, Duration::ZERO, ms(600)), 25);
    }
    use crate::rpc::tests::two_cores;

    /// Per transport, the same CPU and the other one, with the eviction size of the machine's caches (twice
    /// its 32 MiB last level).
    #[test]
    fn plan_is_each_transport_on_the_same_and_the_other_cpu() {
        let planned = Floor.points(&two_cores(Mode::Quick), &overhead_runtime_os::Os);
        let names: Vec<String> = planned
            .iter()
            .map(|p| match p {
                Planned::Run(s) => s.name(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            names,
            [
                "rpc.floor/runtime:os/transport:unix/evict_mib:64/placement:same_cpu",
                "rpc.floor/runtime:os/transport:unix/evict_mib:64/placement:other_core",
                "rpc.floor/runtime:os/transport:tcp/evict_mib:64/placement:same_cpu",
                "rpc.floor/runtime:os/transport:tcp/evict_mib:64/placement:other_core",
            ]
        );
    }

    /// The reconciliation's arithmetic on a fixed floor: 10 µs of bare round trip, a 40 µs hot delta (30 µs of
    /// framing and runtime), a 55 µs cold delta (15 µs unaccounted).
    #[test]
    fn the_delta_splits_into_transport_framing_and_cold() {
        let t = |calls: u64, client_us: f64, server_us: f64| MethodTotals {
            calls,
            client_ns: calls as f64 * client_us * 1e3,
            server_ns: calls as f64 * server_us * 1e3,
        };
        let floor = FloorNumbers {
            bare_hot_ns: 10e3,
            bare_cold_ns: 14e3,
            grpc_hot: t(100, 50.0, 10.0),
            grpc_cold: t(10, 70.0, 15.0),
        };
        let extras = overhead_record::result::to_extra(&floor.result(108, 18, 1 << 20));
        let near = |k: &str, v: f64| assert!((extras[k] - v).abs() < 1e-6, "{k}: {} ≠ {v}", extras[k]);
        near("transport_ns", 10e3);
        near("grpc_hot_delta_ns", 40e3);
        near("framing_runtime_ns", 30e3);
        near("grpc_cold_delta_ns", 55e3);
        near("cold_minus_hot_ns", 15e3);
        near("bare_cold_minus_hot_ns", 4e3);
        near("grpc_cold_calls", 10.0);
        let table = floor.table();
        assert_eq!(table.columns, COLUMNS);
        assert_eq!(table.rows[0].1[1], None, "the bare echo does no timed work");
        assert!((table.rows[1].1[6].unwrap() - 15.0).abs() < 1e-9);
        assert!((table.rows[0].1[6].unwrap() - 4.0).abs() < 1e-9);
    }
}
