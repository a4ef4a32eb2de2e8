//! `sync.oversub`: barriers with many more activities than CPUs, with and without spawning them first
//! (seed 001 §8.2 experiment 2, Fig. 10).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::experiments::context::runtime_of;
use crate::experiments::fits::{fit_series, FitSpec, Model};
use crate::experiments::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned};
use crate::harness::{Harness, Measurement, Mode, TeamReport};
use crate::machine::pin_current_thread;
use crate::record::{FitRecord, Metric, PointRecord, PointSpec};
use crate::runtimes::yield_barrier::YieldBarrier;
use crate::runtimes::Capability;
use crate::runtimes::{rayon_rt, tokio_rt, Runtime};

/// `spawn & sync` against the number of activities: quadratic, to show the spin-with-yield barrier's
/// quadratic term (and its absence with a blocking barrier).
pub const SPAWN_SYNC_FIT: FitSpec = FitSpec { x: "activities", x_unit: "", model: Model::Quadratic };

/// `just spawn` and `just sync` against the number of activities: linear, as in the seed.
pub const LINEAR_FIT: FitSpec = FitSpec { x: "activities", x_unit: "", model: Model::Linear };

/// What one operation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    /// Spawn A activities that do nothing and wait for all of them ("just spawn").
    JustSpawn,
    /// Spawn A activities that pass one barrier together, and wait for all of them ("spawn & sync").
    SpawnSync,
    /// One barrier episode of A activities spawned before ("just sync").
    JustSync,
}

impl Variant {
    const ALL: [Variant; 3] = [Variant::JustSpawn, Variant::SpawnSync, Variant::JustSync];

    fn name(self) -> &'static str {
        match self {
            Variant::JustSpawn => "just_spawn",
            Variant::SpawnSync => "spawn_sync",
            Variant::JustSync => "just_sync",
        }
    }

    /// Activities per CPU for this variant: the fitted `spawn_sync` gets three counts (enough for its
    /// quadratic; every doubling in `--full`), the others two (they are linear and only calibrate the
    /// picture), to keep a default run within its time budget.
    fn per_cpu(self, mode: Mode) -> &'static [usize] {
        match (mode, self) {
            (Mode::Full, _) => &[1, 2, 4, 8, 16, 32, 64],
            (Mode::Default, Variant::SpawnSync) => &[1, 4, 16],
            (Mode::Default, _) => &[1, 16],
            (Mode::Quick, Variant::SpawnSync) => &[1, 2, 8],
            (Mode::Quick, _) => &[1, 8],
        }
    }
}

crate::record::params::param_enum!(Variant);

/// The barrier the activities pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
enum BarrierKind {
    /// The seed's `sync`: spin on the flag, yielding every time it is down ([`YieldBarrier`]).
    Yield,
    /// Waiters sleep: std's `Barrier` for threads, `tokio::sync::Barrier` for tasks.
    Blocking,
}

/// `sync.oversub`'s parameters: `barrier` is absent for `just_spawn`, which passes none; `activities` is
/// the total over all `cpus`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Params {
    variant: Variant,
    barrier: Option<BarrierKind>,
    cpus: usize,
    activities: usize,
}

/// Seed 001 §8.2 experiment 2 (Fig. 10): A activities (k per CPU, round-robin over the usable CPUs, far
/// more than CPUs; parameter `activities` = A, `cpus` the CPU count) and a barrier, three ways, against
/// the empty loop. k = 1, 4, 16 for `spawn_sync` and 1, 16 for the others; 1…64 by doubling in `--full`;
/// fewer in `--quick`.
/// * `variant:just_spawn`: per operation, spawn A activities that do nothing and wait until all have
///   ended (the seed's "just spawn", its calibration line).
/// * `variant:spawn_sync`: per operation, spawn A activities that pass one barrier together, and wait
///   until all have ended ("spawn & sync"). With the seed's spin-with-yield barrier the activities that
///   arrived early keep yielding while the spawner is still creating the rest; under a round-robin
///   scheduler (the seed's RMK) the i-th spawn waits for i/CPUs spinners to yield: a quadratic term in
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

impl Experiment for Oversub {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: "sync.oversub",
            summary: "activities ≫ CPUs: just spawn, spawn & sync, just sync, with a spin-with-yield vs. a blocking \
                      barrier; quadratic fit of spawn & sync",
            source: "seed 001 §8.2 experiment 2, Fig. 10",
            metric: Metric::PerOp,
            requires: &[Capability::ActivityBarrier],
        }
    }

    fn points(&self, ctx: &PlanContext, runtime: &str) -> Vec<Planned> {
        if runtime == "openmp" {
            let reason = "an OpenMP team is sized and pinned to the CPUs (one thread each); oversubscribing it \
                          (OMP_NUM_THREADS ≫ CPUs) makes libgomp's spinning barrier the seed's spin-with-yield case, \
                          which the os runtime measures directly";
            return vec![Planned::Skip(ctx.spec(self.id(), runtime, &[], vec![ctx.home_cpu()]), reason.into())];
        }
        let cpus = ctx.cpus.len();
        let rayon = Runtime::parse(runtime) == Some(Runtime::Rayon);
        let mut out = Vec::new();
        for variant in Variant::ALL {
            let barriers: &[Option<BarrierKind>] = if variant == Variant::JustSpawn {
                &[None]
            } else {
                &[Some(BarrierKind::Yield), Some(BarrierKind::Blocking)]
            };
            for &barrier in barriers {
                for &k in variant.per_cpu(ctx.mode) {
                    let params = Params { variant, barrier, cpus, activities: k * cpus };
                    let spec = ctx.spec_of(self.id(), runtime, &params, ctx.cpus.clone());
                    let skip = match (rayon, variant, barrier) {
                        (true, Variant::JustSync, _) => Some(
                            "rayon: a job's yield runs other jobs nested on its stack, and a nested job that \
                             passed an episode cannot return to let those below it reach the next one",
                        ),
                        (true, _, Some(BarrierKind::Blocking)) => {
                            Some("rayon: a job blocked in a barrier holds its worker; with more jobs than workers the rest never run")
                        }
                        _ => None,
                    };
                    out.push(match skip {
                        Some(reason) => Planned::Skip(spec, reason.into()),
                        None => Planned::Run(spec),
                    });
                }
            }
        }
        out
    }

    fn run(&self, spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
        let Params { variant, barrier, activities, .. } = spec.params_as()?;
        let barrier = match (variant, barrier) {
            (Variant::JustSpawn, _) => BarrierKind::Blocking,
            (_, Some(barrier)) => barrier,
            (_, None) => anyhow::bail!("{}: sync.oversub {} needs a barrier", spec.name(), variant.name()),
        };
        anyhow::ensure!(activities > 0, "{}: sync.oversub needs at least one activity", spec.name());
        let refused = AtomicUsize::new(0);
        let measurement = match runtime_of(&spec.runtime)? {
            Runtime::Os => os::measure(variant, barrier, activities, &spec.cpus, &refused, h),
            Runtime::Tokio => {
                let (rt, workers_refused) = tokio_rt::multi_thread(&spec.cpus)?;
                refused.fetch_add(workers_refused.load(Ordering::Relaxed), Ordering::Relaxed);
                tasks::measure(variant, barrier, activities, &rt, h)
            }
            Runtime::Rayon => {
                anyhow::ensure!(
                    matches!((variant, barrier), (Variant::JustSpawn, _) | (Variant::SpawnSync, BarrierKind::Yield)),
                    "rayon implements only just_spawn and spawn_sync with the yield barrier"
                );
                let (pool, workers_refused) = rayon_rt::pool(&spec.cpus)?;
                refused.fetch_add(workers_refused.load(Ordering::Relaxed), Ordering::Relaxed);
                jobs::measure(variant, activities, &pool, h)
            }
            Runtime::Fiber(_) | Runtime::OpenMp => {
                return Err(crate::experiments::context::unimplemented_runtime(spec))
            }
        };
        let mut outcome = Outcome::from(measurement);
        let refused = refused.load(Ordering::Relaxed);
        if refused > 0 {
            outcome.notes.push(format!("{refused} pinning request(s) refused; those activities ran unpinned"));
        }
        Ok(outcome)
    }

    fn fits(&self, points: &[&PointRecord]) -> Vec<FitRecord> {
        let (spawn_sync, rest): (Vec<&PointRecord>, Vec<&PointRecord>) =
            points.iter().partition(|p| p.spec.param("variant") == Some(Variant::SpawnSync.name()));
        let mut fits = fit_series(&spawn_sync, SPAWN_SYNC_FIT);
        fits.extend(fit_series(&rest, LINEAR_FIT));
        fits
    }
}

/// Kernel threads, pinned round-robin over the point's CPUs.
mod os {
    use super::*;

    /// Pins the calling activity to the `i`-th CPU round-robin; a refusal is counted, not fatal.
    fn pin(cpus: &[usize], i: usize, refused: &AtomicUsize) {
        if pin_current_thread(cpus[i % cpus.len()]).is_err() {
            refused.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Spawns `activities` pinned threads running `body(i)` and joins them.
    fn fork_join(activities: usize, cpus: &[usize], refused: &AtomicUsize, body: impl Fn(usize) + Sync) {
        std::thread::scope(|s| {
            for i in 0..activities {
                let body = &body;
                s.spawn(move || {
                    pin(cpus, i, refused);
                    body(i)
                });
            }
        });
    }

    /// The CPUs of `activities` threads, round-robin over `cpus`, for a team that exists for the whole
    /// point (`just_sync`).
    fn round_robin(activities: usize, cpus: &[usize]) -> Vec<usize> {
        (0..activities).map(|i| cpus[i % cpus.len()]).collect()
    }

    pub(super) fn measure(
        variant: Variant,
        barrier: BarrierKind,
        a: usize,
        cpus: &[usize],
        refused: &AtomicUsize,
        h: &Harness,
    ) -> Measurement {
        match (variant, barrier) {
            (Variant::JustSpawn, _) => {
                h.measure(|n| (0..n).for_each(|_| fork_join(a, cpus, refused, |_| {})), empty_loop)
            }
            (Variant::SpawnSync, BarrierKind::Yield) => h.measure(
                |n| {
                    for _ in 0..n {
                        let b = YieldBarrier::new(a);
                        fork_join(a, cpus, refused, |_| {
                            b.wait(&mut false);
                        });
                    }
                },
                empty_loop,
            ),
            (Variant::SpawnSync, BarrierKind::Blocking) => h.measure(
                |n| {
                    for _ in 0..n {
                        let b = std::sync::Barrier::new(a);
                        fork_join(a, cpus, refused, |_| {
                            b.wait();
                        });
                    }
                },
                empty_loop,
            ),
            (Variant::JustSync, barrier) => {
                let report = just_sync(barrier, &round_robin(a, cpus), h);
                refused.fetch_add(report.pin_failures.len(), Ordering::Relaxed);
                report.measurement
            }
        }
    }

    /// `just_sync` with the harness's thread team: the A threads exist for the whole point, as
    /// `sync.barrier`'s (seed 001 calls this experiment "a direct extension of the previous one").
    fn just_sync(barrier: BarrierKind, team: &[usize], h: &Harness) -> TeamReport {
        let control = |_: usize, n: u64| empty_loop(n);
        match barrier {
            BarrierKind::Yield => {
                let b = YieldBarrier::new(team.len());
                // Each thread's sense, kept across batches, alone on its line.
                let senses: Vec<Padded> = (0..team.len()).map(|_| Padded::default()).collect();
                h.measure_team(
                    team,
                    |thread, n| {
                        let mut sense = senses[thread].load(Ordering::Relaxed);
                        for _ in 0..n {
                            b.wait(&mut sense);
                        }
                        senses[thread].store(sense, Ordering::Relaxed);
                    },
                    control,
                )
            }
            BarrierKind::Blocking => {
                let b = std::sync::Barrier::new(team.len());
                h.measure_team(
                    team,
                    |_, n| {
                        for _ in 0..n {
                            b.wait();
                        }
                    },
                    control,
                )
            }
        }
    }

    type Padded = crossbeam_utils::CachePadded<std::sync::atomic::AtomicBool>;
}

/// tokio tasks on the multi-thread scheduler; the spawner is a task too.
mod tasks {
    use super::*;
    use ::tokio::runtime::Runtime as TokioRuntime;
    use ::tokio::task::JoinHandle;

    /// Runs `parent` as a task and waits for it from the calling thread (one per batch).
    fn as_task<F: std::future::Future<Output = ()> + Send + 'static>(rt: &TokioRuntime, parent: F) {
        rt.block_on(rt.spawn(parent)).expect("spawner task panicked");
    }

    async fn join_all(handles: &mut Vec<JoinHandle<()>>) {
        for handle in handles.drain(..) {
            handle.await.expect("activity panicked");
        }
    }

    /// The seed's barrier in a task: arrive, then `yield_now` until released.
    async fn yield_wait(b: &YieldBarrier, sense: &mut bool) {
        if !b.arrive(sense) {
            while !b.released(*sense) {
                ::tokio::task::yield_now().await;
            }
        }
    }

    /// One batch of `just_sync`: A tasks held by a semaphore gate until all are spawned, each running
    /// `body` (n episodes, or the empty loop), joined.
    async fn gated<F, Fut>(a: usize, body: F)
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        let gate = Arc::new(::tokio::sync::Semaphore::new(0));
        let mut handles = Vec::with_capacity(a);
        for _ in 0..a {
            let (gate, work) = (gate.clone(), body());
            handles.push(::tokio::spawn(async move {
                gate.acquire().await.expect("gate never closed").forget();
                work.await
            }));
        }
        gate.add_permits(a);
        join_all(&mut handles).await;
    }

    pub(super) fn measure(
        variant: Variant,
        barrier: BarrierKind,
        a: usize,
        rt: &TokioRuntime,
        h: &Harness,
    ) -> Measurement {
        let control = |n: u64| as_task(rt, async move { empty_loop(n) });
        match (variant, barrier) {
            (Variant::JustSpawn, _) => h.measure(
                |n| {
                    as_task(rt, async move {
                        let mut handles = Vec::with_capacity(a);
                        for _ in 0..n {
                            handles.extend((0..a).map(|_| ::tokio::spawn(async {})));
                            join_all(&mut handles).await;
                        }
                    })
                },
                control,
            ),
            (Variant::SpawnSync, BarrierKind::Yield) => h.measure(
                |n| {
                    as_task(rt, async move {
                        let mut handles = Vec::with_capacity(a);
                        for _ in 0..n {
                            // A fresh barrier per spawn, as the seed's lived in the spawn descriptor.
                            let b = Arc::new(YieldBarrier::new(a));
                            handles.extend((0..a).map(|_| {
                                let b = b.clone();
                                ::tokio::spawn(async move { yield_wait(&b, &mut false).await })
                            }));
                            join_all(&mut handles).await;
                        }
                    })
                },
                control,
            ),
            (Variant::SpawnSync, BarrierKind::Blocking) => h.measure(
                |n| {
                    as_task(rt, async move {
                        let mut handles = Vec::with_capacity(a);
                        for _ in 0..n {
                            let b = Arc::new(::tokio::sync::Barrier::new(a));
                            handles.extend((0..a).map(|_| {
                                let b = b.clone();
                                ::tokio::spawn(async move {
                                    b.wait().await;
                                })
                            }));
                            join_all(&mut handles).await;
                        }
                    })
                },
                control,
            ),
            (Variant::JustSync, BarrierKind::Yield) => h.measure(
                |n| {
                    as_task(rt, async move {
                        let b = Arc::new(YieldBarrier::new(a));
                        gated(a, || {
                            let b = b.clone();
                            async move {
                                let mut sense = false;
                                for _ in 0..n {
                                    yield_wait(&b, &mut sense).await;
                                }
                            }
                        })
                        .await
                    })
                },
                |n| as_task(rt, gated(a, move || async move { empty_loop(n) })),
            ),
            (Variant::JustSync, BarrierKind::Blocking) => h.measure(
                |n| {
                    as_task(rt, async move {
                        let b = Arc::new(::tokio::sync::Barrier::new(a));
                        gated(a, || {
                            let b = b.clone();
                            async move {
                                for _ in 0..n {
                                    b.wait().await;
                                }
                            }
                        })
                        .await
                    })
                },
                |n| as_task(rt, gated(a, move || async move { empty_loop(n) })),
            ),
        }
    }
}

/// rayon jobs in a scope on the pool.
mod jobs {
    use super::*;

    pub(super) fn measure(variant: Variant, a: usize, pool: &rayon::ThreadPool, h: &Harness) -> Measurement {
        let control = |n: u64| pool.install(|| empty_loop(n));
        match variant {
            Variant::JustSpawn => h.measure(
                |n| {
                    pool.install(|| {
                        for _ in 0..n {
                            rayon::scope(|s| (0..a).for_each(|_| s.spawn(|_| {})));
                        }
                    })
                },
                control,
            ),
            _ => h.measure(
                |n| {
                    pool.install(|| {
                        for _ in 0..n {
                            let b = YieldBarrier::new(a);
                            rayon::scope(|s| {
                                for _ in 0..a {
                                    s.spawn(|_| {
                                        let mut sense = false;
                                        if !b.arrive(&mut sense) {
                                            while !b.released(sense) {
                                                std::hint::black_box(rayon::yield_now());
                                            }
                                        }
                                    });
                                }
                            });
                        }
                    })
                },
                control,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{calibrate, Calibration};
    use crate::harness::HarnessConfig;
    use crate::record::fixture::point;

    /// The experiment's fits: quadratic through `spawn_sync`, recovering the coefficients; linear
    /// through the others.
    #[test]
    fn fits_quadratic_spawn_sync_and_linear_rest() {
        let mut points = Vec::new();
        for a in [2u32, 4, 8, 16, 32] {
            let x = f64::from(a);
            let act = a.to_string();
            let ss = |barrier| [("variant", "spawn_sync"), ("barrier", barrier), ("cpus", "2"), ("activities", &act)];
            points.push(point("sync.oversub", "os", &ss("yield"), 1000.0 + 50.0 * x + 3.0 * x * x));
            points.push(point("sync.oversub", "os", &ss("blocking"), 1000.0 + 60.0 * x));
            let js = [("variant", "just_spawn"), ("cpus", "2"), ("activities", act.as_str())];
            points.push(point("sync.oversub", "os", &js, 500.0 + 40.0 * x));
        }
        let refs: Vec<&PointRecord> = points.iter().collect();
        let fits = Oversub.fits(&refs);
        assert_eq!(fits.len(), 3);
        let of = |variant: &str, barrier: Option<&str>| {
            fits.iter()
                .find(|f| {
                    f.series.iter().any(|(k, v)| k == "variant" && v == variant)
                        && barrier.is_none_or(|b| f.series.iter().any(|(k, v)| k == "barrier" && v == b))
                })
                .unwrap()
        };
        let spin = of("spawn_sync", Some("yield"));
        assert!((spin.c.unwrap() - 3.0).abs() < 1e-6 && (spin.b - 50.0).abs() < 1e-5, "{spin:?}");
        assert!(of("spawn_sync", Some("blocking")).c.unwrap().abs() < 1e-6);
        let spawn = of("just_spawn", None);
        assert!(spawn.c.is_none() && (spawn.b - 40.0).abs() < 1e-6, "{spawn:?}");
    }

    #[test]
    fn rayon_skips_what_would_never_complete() {
        let ctx = crate::experiments::plan::tests::two_cpu_context(Mode::Quick);
        for p in Oversub.points(&ctx, "rayon") {
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
        let time = calibrate(false, Calibration { span: std::time::Duration::from_millis(10), spans: 1 });
        let mut config = HarnessConfig::for_mode(Mode::Quick);
        config.target_batch_ns = 2e5;
        config.repetitions = 3;
        config.warmup = 1;
        let h = Harness::new(&time, config);
        let cpus = crate::machine::allowed_cpus();
        let cpus = &cpus[..cpus.len().min(2)];
        let (rt, _) = tokio_rt::multi_thread(cpus).unwrap();
        let (pool, _) = rayon_rt::pool(cpus).unwrap();
        let refused = AtomicUsize::new(0);
        let a = 4 * cpus.len();
        for variant in Variant::ALL {
            for barrier in [BarrierKind::Yield, BarrierKind::Blocking] {
                let m = os::measure(variant, barrier, a, cpus, &refused, &h);
                assert_eq!(m.samples_ns.len(), 3);
                let m = tasks::measure(variant, barrier, a, &rt, &h);
                assert_eq!(m.samples_ns.len(), 3);
            }
            if variant != Variant::JustSync {
                assert_eq!(jobs::measure(variant, a, &pool, &h).samples_ns.len(), 3);
            }
        }
    }
}
