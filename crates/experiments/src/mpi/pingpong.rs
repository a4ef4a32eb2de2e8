//! `mpi.pingpong`: osu_latency's ping-pong between two ranks, payload × placement, as a round trip.

use serde::Serialize;

use super::{follow, lead_measure, NOT_ON_ONE_CPU, RANKS};
use crate::{Experiment, ExperimentInfo, Outcome, PairSpan, PlanContext, Planned, Point};
use overhead_harness::{Harness, Mode};
use overhead_record::Metric;
use overhead_runtime_external::mpi::shim::Op;

pub use overhead_schema::experiments::mpi::PingPongParams;

/// Payloads (bytes), osu_latency's range 0 B–1 MiB: powers of 4 in `--full`, three sizes by default, one
/// in `--quick`.
pub fn payloads(mode: Mode) -> Vec<usize> {
    match mode {
        Mode::Quick => vec![8],
        Mode::Default => vec![8, 64 * 1024, 1 << 20],
        Mode::Full => std::iter::once(0).chain((0..10).map(|k| 4usize << (2 * k))).chain([1 << 20]).collect(),
    }
}

/// osu_latency (OSU micro-benchmarks): rank 0 sends `payload` bytes with MPI_Send and waits for them to come
/// back with MPI_Recv; rank 1 does the mirror. One operation is one round trip (osu_latency reports half
/// of it). On this machine the ranks sit on two CPUs of one placement class (never one CPU:
/// [`NOT_ON_ONE_CPU`]); with `--hosts`, also on two hosts (`placement:other_host`), where the transport is
/// whatever the site's MPI chooses between hosts (TCP on the namespaces of `scripts/netns-hosts.sh`).
pub struct PingPong;

impl PingPong {
    /// Public ID (docs/ARCHITECTURE.md "Experiments").
    pub const ID: &'static str = overhead_schema::experiments::mpi::PINGPONG;
}

impl Experiment for PingPong {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: PingPong::ID,
            summary: "MPI ping-pong round trip between two ranks (MPI_Send/MPI_Recv) × payload 0 B–1 MiB, on two CPUs \
                      and across hosts",
            source: "OSU micro-benchmarks osu_latency; Souvatzis (networked case); Walfield 2008 (payload)",
            metric: Metric::Rtt,
            requires: RANKS,
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        let mut out = Vec::new();
        for (i, payload) in payloads(ctx.mode).into_iter().enumerate() {
            let params = PingPongParams { payload };
            out.extend(two_rank_points(ctx, self.id(), runtime, &params, PairSpan::first_at_every_class(i)));
        }
        out
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let PingPongParams { payload } = point.params()?;
        Ok(lead_measure(h, Op::PingPong, payload as u64, 0)?.into())
    }
    fn follow(&self, _point: &Point<'_>) -> anyhow::Result<()> {
        follow()
    }
}

/// The two-rank points of an `mpi.*` experiment: the placement classes of `span` between two CPUs of this
/// machine (never the same CPU: [`NOT_ON_ONE_CPU`]), and, across hosts, `placement:other_host`.
pub fn two_rank_points<P: Serialize>(
    ctx: &PlanContext,
    experiment: &str,
    runtime: &dyn overhead_runtime_api::RuntimeUnderTest,
    params: &P,
    span: PairSpan,
) -> Vec<Planned> {
    let mut out: Vec<Planned> = ctx
        .spanned_pair_points(span, experiment, runtime, params)
        .into_iter()
        .map(|p| match p {
            Planned::Run(spec) if spec.placement == Some(overhead_machine::Placement::SameCpu) => {
                Planned::Skip(spec, NOT_ON_ONE_CPU.into())
            }
            other => other,
        })
        .collect();
    out.extend(ctx.other_host_pair(experiment, runtime, params));
    out
}
