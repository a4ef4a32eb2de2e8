//! `mpi.barrier` and `mpi.allreduce`: osu_barrier's and osu_allreduce's collectives against the number of
//! ranks, on this machine and across hosts.

use super::{follow, lead_measure, RANKS};
use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use overhead_harness::{Harness, Mode};
use overhead_machine::Placement;
use overhead_record::{Metric, PointSpec};
use overhead_runtime_api::RuntimeUnderTest;
use overhead_runtime_external::mpi::shim::Op;

pub use overhead_schema::experiments::mpi::CollectiveParams;

/// osu_barrier (OSU micro-benchmarks): MPI_Barrier on every rank, one operation per barrier episode.
pub struct Barrier;

/// osu_allreduce: MPI_Allreduce of `bytes` / 4 floats with MPI_SUM on every rank, 8 B and 1 MiB. Unlike
/// osu_allreduce, no barrier separates the timed operations: a batch is n allreduces back to back, as the
/// barrier's is n barriers, so the time is the collective's throughput on a team that stays in step.
pub struct Allreduce;

impl Barrier {
    /// Public ID (docs/ARCHITECTURE.md "Experiments").
    pub const ID: &'static str = overhead_schema::experiments::mpi::BARRIER;
}

impl Allreduce {
    /// Public ID (docs/ARCHITECTURE.md "Experiments").
    pub const ID: &'static str = overhead_schema::experiments::mpi::ALLREDUCE;
}

impl Experiment for Barrier {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Barrier::ID,
            summary: "MPI_Barrier against the number of ranks, one per CPU, and one rank per host across hosts",
            source: "OSU micro-benchmarks osu_barrier; Ben-Asher & Feitelson 1991 §8.2 (barrier)",
            metric: Metric::PerOp,
            requires: RANKS,
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn RuntimeUnderTest) -> Vec<Planned> {
        collective_points(ctx, self.id(), runtime, &[0])
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let CollectiveParams { bytes, .. } = point.params()?;
        Ok(lead_measure(h, Op::Barrier, bytes as u64, 0)?.into())
    }
    fn follow(&self, _point: &Point<'_>) -> anyhow::Result<()> {
        follow()
    }
}

impl Experiment for Allreduce {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Allreduce::ID,
            summary: "MPI_Allreduce (float sum) of 8 B and 1 MiB against the number of ranks, one per CPU, and one \
                      rank per host across hosts",
            source: "OSU micro-benchmarks osu_allreduce",
            metric: Metric::PerOp,
            requires: RANKS,
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn RuntimeUnderTest) -> Vec<Planned> {
        let sizes: &[usize] = if ctx.mode == Mode::Quick { &[8] } else { &[8, 1 << 20] };
        collective_points(ctx, self.id(), runtime, sizes)
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let CollectiveParams { bytes, .. } = point.params()?;
        Ok(lead_measure(h, Op::Allreduce, bytes as u64, 0)?.into())
    }
    fn follow(&self, _point: &Point<'_>) -> anyhow::Result<()> {
        follow()
    }
}

/// A collective's points: for each size, the ranks of [`PlanContext::rank_counts`] (2 and one rank per core;
/// every level in `--full`) on this machine's cores first ([`PlanContext::team_cpus`], one rank per CPU),
/// and with `--hosts` one rank per host.
fn collective_points(
    ctx: &PlanContext,
    experiment: &str,
    runtime: &dyn RuntimeUnderTest,
    sizes: &[usize],
) -> Vec<Planned> {
    let mut out = Vec::new();
    for &bytes in sizes {
        let counts = ctx.rank_counts();
        if counts.is_empty() {
            let spec = ctx.spec_of(experiment, runtime, &CollectiveParams { bytes, ranks: 2 }, vec![ctx.home_cpu()]);
            out.push(Planned::Skip(
                spec,
                format!("needs two usable CPUs for two ranks; this run may use only CPU {}", ctx.home_cpu()),
            ));
        }
        for ranks in counts {
            out.push(Planned::Run(ctx.spec_of(
                experiment,
                runtime,
                &CollectiveParams { bytes, ranks },
                ctx.team_cpus(ranks),
            )));
        }
        if ctx.hosts.len() >= 2 {
            out.push(Planned::Run(across_hosts(ctx, experiment, runtime, bytes)));
        }
    }
    out
}

/// One rank per host, each on a different CPU number (the hosts may be namespaces of one machine:
/// [`PlanContext::other_host_pair`]), `placement:other_host`.
fn across_hosts(ctx: &PlanContext, experiment: &str, runtime: &dyn RuntimeUnderTest, bytes: usize) -> PointSpec {
    let ranks = ctx.hosts.len();
    let cpus: Vec<usize> = (0..ranks).map(|i| ctx.cpus[i % ctx.cpus.len()]).collect();
    let mut spec = ctx.spec_of(experiment, runtime, &CollectiveParams { bytes, ranks }, cpus);
    spec.params.push(("placement".into(), Placement::OtherHost.name().into()));
    spec.placement = Some(Placement::OtherHost);
    spec.hosts = ctx.hosts.clone();
    spec
}
