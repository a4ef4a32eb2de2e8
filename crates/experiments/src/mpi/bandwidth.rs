//! `mpi.bw`: osu_bw's window of non-blocking sends between two ranks.

use super::pingpong::two_rank_points;
use super::{follow, lead_measure, RANKS};
use crate::{Experiment, ExperimentInfo, Outcome, PairSpan, PlanContext, Planned, Point};
use overhead_harness::{Harness, Mode};
use overhead_record::Metric;
use overhead_runtime_external::mpi::shim::Op;

/// Messages in flight per window: osu_bw's default.
pub const WINDOW: usize = 64;

pub use overhead_schema::experiments::mpi::BwParams;

pub use overhead_schema::experiments::mpi::BandwidthResult;

fn payloads(mode: Mode) -> Vec<usize> {
    match mode {
        Mode::Quick => vec![1 << 20],
        Mode::Default => vec![64 * 1024, 1 << 20],
        Mode::Full => vec![4096, 16 * 1024, 64 * 1024, 256 * 1024, 1 << 20],
    }
}

/// osu_bw (OSU micro-benchmarks): rank 0 posts a window of [`WINDOW`] MPI_Isend of `payload` bytes and
/// waits for them all, rank 1 as many MPI_Irecv, then a 4-byte acknowledgement goes back; the time per
/// operation is one message (ns), the bandwidth `payload` over it (MB/s). The acknowledgement is part of
/// each window, as in osu_bw.
pub struct Bandwidth;

impl Bandwidth {
    /// Public ID (docs/ARCHITECTURE.md "Experiments").
    pub const ID: &'static str = overhead_schema::experiments::mpi::BW;
}

impl Experiment for Bandwidth {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Bandwidth::ID,
            summary: "MPI bandwidth between two ranks: windows of 64 MPI_Isend/MPI_Irecv and an ack, 4 KiB–1 MiB \
                      messages; ns per message, MB/s in the report",
            source: "OSU micro-benchmarks osu_bw",
            metric: Metric::PerOp,
            requires: RANKS,
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        let mut out = Vec::new();
        for (i, payload) in payloads(ctx.mode).into_iter().enumerate() {
            let params = BwParams { payload, window: WINDOW };
            out.extend(two_rank_points(ctx, self.id(), runtime, &params, PairSpan::first_at_every_class(i)));
        }
        out
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let BwParams { payload, window } = point.params()?;
        anyhow::ensure!(window >= 1, "{}: a window of at least one message", point.spec.name());
        let measurement = lead_measure(h, Op::Window, payload as u64, window as u64)?.per(window as f64);
        let median = measurement.summary().map_or(f64::NAN, |s| s.median);
        let result = BandwidthResult { payload_bytes: payload as f64, mb_per_s: payload as f64 / median * 1e3 };
        Ok(Outcome::from(measurement).with_result(&result))
    }
    fn follow(&self, _point: &Point<'_>) -> anyhow::Result<()> {
        follow()
    }
}
