//! `sync.oversub`: barriers with many more activities than CPUs, with and without spawning them first
//! (Ben-Asher & Feitelson 1991 §8.2 experiment 2, Fig. 10).

use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use overhead_harness::{Harness, Mode};
use overhead_record::Metric;
use overhead_runtime_api::activity_barrier::{BarrierKind, Oversubscribed, Variant};
use overhead_runtime_api::{Capability, RuntimeUnderTest};

/// Activities per CPU for `variant`: the fitted `spawn_sync` gets three counts (enough for its
/// quadratic; every doubling in `--full`), the others two (they are linear and only calibrate the
/// picture), to keep a default run within its time budget.
fn per_cpu(variant: Variant, mode: Mode) -> &'static [usize] {
    match (mode, variant) {
        (Mode::Full, _) => &[1, 2, 4, 8, 16, 32, 64],
        (Mode::Default, Variant::SpawnSync) => &[1, 4, 16],
        (Mode::Default, _) => &[1, 16],
        (Mode::Quick, Variant::SpawnSync) => &[1, 2, 8],
        (Mode::Quick, _) => &[1, 8],
    }
}

pub use overhead_schema::experiments::sync::OversubParams as Params;

/// Ben-Asher & Feitelson 1991 §8.2 experiment 2 (Fig. 10): A activities (k per CPU, round-robin over the usable CPUs, far
/// more than CPUs; parameter `activities` = A, `cpus` the CPU count) and a barrier, three ways, against
/// the empty loop. k = 1, 4, 16 for `spawn_sync` and 1, 16 for the others; 1…64 by doubling in `--full`;
/// fewer in `--quick`.
/// * `variant:just_spawn`: per operation, spawn A activities that do nothing and wait until all have
///   ended (the study's "just spawn", its calibration line).
/// * `variant:spawn_sync`: per operation, spawn A activities that pass one barrier together, and wait
///   until all have ended ("spawn & sync"). With the study's spin-with-yield barrier the activities that
///   arrived early keep yielding while the spawner is still creating the rest; under a round-robin
///   scheduler (the study's RMK) the i-th spawn waits for i/CPUs spinners to yield: a quadratic term in
///   A, fitted as `a + b·A + c·A²`. With a blocking barrier the early ones sleep and the term should go
///   away. How big it is depends on the kernel's yield: Linux's EEVDF moves a yielding thread's
///   deadline a whole slice back, so spinners delay the spawner much less than round robin did.
/// * `variant:just_sync`: per operation, one barrier episode of A activities that exist already ("just
///   sync"). Threads: the harness's team of A threads, started once for the point, passing the barrier
///   `n` times per batch (the slowest thread's time, as `sync.barrier`). Tasks: each batch spawns the A
///   tasks held at a gate, opens it, and they pass the barrier `n` times; the control batch spawns,
///   gates and joins the same tasks running the empty loop, so only the episodes remain.
///
/// `barrier:yield` is [`YieldBarrier`], `barrier:blocking` std's `Barrier` (threads) or
/// `tokio::sync::Barrier` (tasks). Runtimes: `os` (threads pinned round-robin; each activity's pinning
/// is part of its spawn), `tokio` (multi-thread scheduler, one pinned worker per CPU; the spawner is
/// itself a task, which never gives up its worker while spawning, so the spinners cannot slow it down),
/// `rayon` (a scope on the pool; `rayon::yield_now` in the barrier runs pending jobs nested on the
/// waiter's stack; the blocking barrier and `just_sync` are skipped: a job that blocks holds its
/// worker, and nested yields cannot return to a later episode, so either never completes with more
/// jobs than workers).
pub struct Oversub;

impl Oversub {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::sync::OVERSUB;
}

impl Experiment for Oversub {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Oversub::ID,
            summary: "activities ≫ CPUs: just spawn, spawn & sync, just sync, with a spin-with-yield vs. a blocking \
                      barrier; quadratic fit of spawn & sync",
            source: "Ben-Asher & Feitelson 1991 §8.2 experiment 2, Fig. 10",
            metric: Metric::PerOp,
            requires: &[Capability::ActivityBarrier],
        }
    }

    fn points(&self, ctx: &PlanContext, runtime: &dyn RuntimeUnderTest) -> Vec<Planned> {
        let Some(limits) = runtime.offers().activity_barrier.has() else { return Vec::new() };
        let team = oversubscribed_cpus(ctx);
        let cpus = team.len();
        let mut out = Vec::new();
        for variant in Variant::ALL {
            let barriers: &[Option<BarrierKind>] = if variant == Variant::JustSpawn {
                &[None]
            } else {
                &[Some(BarrierKind::Yield), Some(BarrierKind::Blocking)]
            };
            for &barrier in barriers {
                for &k in per_cpu(variant, ctx.mode) {
                    let params = Params { variant, barrier, cpus, activities: k * cpus };
                    let spec = ctx.spec_of(self.id(), runtime, &params, team.clone());
                    out.push(match limits.refuses(variant, barrier) {
                        Some(reason) => Planned::Skip(spec, reason.into()),
                        None => Planned::Run(spec),
                    });
                }
            }
        }
        out
    }

    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let Params { variant, barrier, activities, .. } = point.params()?;
        let barrier = match (variant, barrier) {
            (Variant::JustSpawn, _) => BarrierKind::Blocking,
            (_, Some(barrier)) => barrier,
            (_, None) => anyhow::bail!("{}: sync.oversub {} needs a barrier", spec.name(), variant.name()),
        };
        anyhow::ensure!(activities > 0, "{}: sync.oversub needs at least one activity", spec.name());
        point
            .in_process(|r| r.activity_barrier())?
            .activity_barrier(Oversubscribed { variant, barrier, activities, cpus: &spec.cpus }, h)
    }
}

/// The CPUs the activities are oversubscribed on: every usable CPU in `--full`; otherwise one package's cores
/// (one CPU a core, nearest the home CPU first: `PlanContext::team_cpus`) where the machine has more than one
/// package, every usable CPU where it has one. Ben-Asher & Feitelson's question is what k activities a CPU
/// cost against one, which one package answers; on every CPU of a 256-CPU machine each process starts
/// thousands of threads and the plan's minimum no longer fits its run (docs/METHOD.md §9a).
fn oversubscribed_cpus(ctx: &PlanContext) -> Vec<usize> {
    match (ctx.mode, ctx.domain_threads().1) {
        (Mode::Quick | Mode::Default, Some(package)) if package < ctx.cpus.len() => ctx.team_cpus(package),
        _ => ctx.cpus.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rayon_skips_what_would_never_complete() {
        let ctx = crate::plan::tests::two_cpu_context(Mode::Quick);
        for p in Oversub.points(&ctx, &overhead_runtime_parallel::rayon_rt::Rayon) {
            match p {
                Planned::Run(s) => {
                    assert_ne!(s.param("variant"), Some("just_sync"));
                    assert_ne!(s.param("barrier"), Some("blocking"));
                }
                Planned::Skip(_, reason) => assert!(reason.starts_with("rayon")),
            }
        }
    }

    /// Every variant, barrier and runtime completes a tiny measurement with more activities than CPUs.
    #[test]
    fn every_variant_completes_oversubscribed() {
        let h = overhead_harness::testing::quick_harness();
        let cpus = overhead_machine::allowed_cpus();
        let cpus = &cpus[..cpus.len().min(2)];
        let a = 4 * cpus.len();
        for runtime in overhead_runtime_registry::registry() {
            let (Some(activity_barrier), Some(limits)) =
                (runtime.activity_barrier(), runtime.offers().activity_barrier.has())
            else {
                continue;
            };
            for variant in Variant::ALL {
                for barrier in [BarrierKind::Yield, BarrierKind::Blocking] {
                    let asked = (variant != Variant::JustSpawn).then_some(barrier);
                    if limits.refuses(variant, asked).is_some() {
                        continue;
                    }
                    let outcome = activity_barrier
                        .activity_barrier(Oversubscribed { variant, barrier, activities: a, cpus }, &h)
                        .unwrap();
                    assert_eq!(outcome.measurement.samples_ns.len(), h.config.repetitions, "{}", runtime.name());
                }
            }
        }
    }
}
