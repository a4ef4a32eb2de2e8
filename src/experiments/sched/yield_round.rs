//! `sched.yield`: the cost of a scheduling round, measured by yielding under load (seed 001 §5.1).

use std::cell::Cell;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use crate::experiments::context::{in_context, runtime_of};
use crate::experiments::fits::{fit_series, FitSpec, Model};
use crate::experiments::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned};
use crate::harness::{Harness, Mode};
use crate::machine::pin_current_thread;
use crate::record::{FitRecord, Metric, PointRecord, PointSpec};
use crate::runtimes::Capability;
use crate::runtimes::{fiber, rayon_rt, tokio_rt, Runtime};

/// The fit through each runtime's rounds: seed 001 Fig. 3's `a + b·load`.
pub const FIT: FitSpec = FitSpec { x: "load", x_unit: "extra yielding activities per CPU", model: Model::Linear };
/// `sched.yield`'s parameters: CPUs of the point and extra yielding activities per CPU (a cell skipped for
/// a whole runtime has no load).
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct Params {
    cpus: usize,
    load: Option<usize>,
}

/// Seed 001 §5.1 (Fig. 3): one measuring activity per CPU yields in a loop while `load` extra
/// activities per CPU do nothing but yield too; the empty loop is the control. The time per iteration
/// is one **yield round**: the measuring activity gives up its CPU, every other runnable activity on
/// that CPU (the `load` extra ones) runs once, up to its own yield, and the measuring one runs again.
/// Fitting `a + b·load` separates the constant cost of a yield that finds nothing else to run (`a`, the
/// seed's 140 µs for the library's `get_work` task) from the cost of one more switch per activity
/// time-shared (`b`, the seed's 72 µs per RMK context switch).
///
/// Parameters: `cpus` (measuring activities, one per CPU) and `load` (0, 1, 4; every load 0…8 in
/// `--full`, 0, 4 in `--quick`). Runtimes:
/// * `os`: kernel threads pinned to their CPU, each yield a `sched_yield`; the loading threads are
///   pinned there too and started (and seen running) before the measurement, as the seed's `ready`
///   semaphore did.
/// * `tokio`: the multi-thread scheduler with one pinned worker per CPU; every yield is
///   `tokio::task::yield_now`. tokio places tasks itself (work stealing), so the load is
///   `cpus × load` tasks spread over the workers rather than pinned per CPU. Each batch spawns the
///   measuring tasks and joins them; the control batch spawns and joins the same tasks running the
///   empty loop, so the spawn and join cancel.
/// * `rayon`: `rayon::yield_now` inside one job per worker (`ThreadPool::broadcast`) at `load:0`
///   only: rayon's yield runs one pending job to completion on the caller's stack, so a job that
///   yields cannot be resumed until the job it picked up has finished, and yielding load jobs never
///   let each other go; the loaded points are skipped with that reason.
/// * `fiber-*`: one CPU (`cpus:1`), the fibers' `yield_now` through the FIFO ready queue.
pub struct Yield;

impl Experiment for Yield {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: "sched.yield",
            summary: "yield round: one activity per CPU yields among `load` extra yielding activities per CPU; \
                      fit a + b·load",
            source: "seed 001 §5.1, Fig. 3",
            metric: Metric::PerOp,
            requires: &[Capability::Yield],
        }
    }

    fn points(&self, ctx: &PlanContext, runtime: &str) -> Vec<Planned> {
        let loads: Vec<usize> = match ctx.mode {
            Mode::Full => (0..=8).collect(),
            Mode::Default => vec![0, 1, 4],
            Mode::Quick => vec![0, 4],
        };
        let all = ctx.cpus.len();
        let point = |cpus: usize, load: usize| {
            ctx.spec_of(self.id(), runtime, &Params { cpus, load: Some(load) }, ctx.team_cpus(cpus))
        };
        let mut cpu_counts = vec![all];
        if ctx.mode == Mode::Full && all > 1 {
            cpu_counts.insert(0, 1);
        }
        let mut out = Vec::new();
        match Runtime::parse(runtime) {
            Some(Runtime::Fiber(_)) => {
                out.extend(loads.iter().map(|&load| Planned::Run(point(1, load))));
                if all > 1 {
                    let reason = "the fiber runtime runs all its fibers on one thread: only cpus:1 is measured";
                    let spec = ctx.spec_of(self.id(), runtime, &Params { cpus: all, load: None }, ctx.team_cpus(all));
                    out.push(Planned::Skip(spec, reason.into()));
                }
            }
            Some(Runtime::OpenMp) => {
                let spec = ctx.spec_of(self.id(), runtime, &Params { cpus: all, load: None }, ctx.team_cpus(all));
                out.push(Planned::Skip(spec, crate::runtimes::openmp::NO_YIELD.into()));
            }
            Some(Runtime::Rayon) => {
                for &cpus in &cpu_counts {
                    for &load in &loads {
                        if load == 0 {
                            out.push(Planned::Run(point(cpus, load)));
                        } else {
                            let reason = "rayon::yield_now runs one pending job to completion on the yielding job's \
                                          stack; a yielding job is not resumed until that job ends, so yielding \
                                          load jobs cannot time-share";
                            out.push(Planned::Skip(point(cpus, load), reason.into()));
                        }
                    }
                }
            }
            _ => {
                for &cpus in &cpu_counts {
                    out.extend(loads.iter().map(|&load| Planned::Run(point(cpus, load))));
                }
            }
        }
        out
    }

    fn run(&self, spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
        let params: Params = spec.params_as()?;
        let load = params.load.ok_or_else(|| anyhow::anyhow!("{}: sched.yield needs a load", spec.name()))?;
        match runtime_of(&spec.runtime)? {
            Runtime::Os => Ok(os_rounds(&spec.cpus, load, h)),
            Runtime::Tokio => tokio_rounds(&spec.cpus, load, h),
            Runtime::Rayon => rayon_idle_yield(&spec.cpus, load, h),
            Runtime::OpenMp => Err(crate::experiments::context::unimplemented_runtime(spec)),
            Runtime::Fiber(backend) => {
                anyhow::ensure!(spec.cpus.len() == 1, "the fiber runtime runs on one CPU; got {:?}", spec.cpus);
                Ok(in_context(Runtime::Fiber(backend), h, move |h| fiber_rounds(load, h))?.into())
            }
        }
    }

    fn fits(&self, points: &[&PointRecord]) -> Vec<FitRecord> {
        fit_series(points, FIT)
    }
}

/// Kernel threads: `load` yielding threads pinned to each CPU, then a team of one measuring thread per
/// CPU timing `sched_yield` loops.
fn os_rounds(cpus: &[usize], load: usize, h: &Harness) -> Outcome {
    let stop = AtomicBool::new(false);
    let started = AtomicUsize::new(0);
    let (report, refused) = std::thread::scope(|s| {
        let loaders: Vec<_> = cpus
            .iter()
            .flat_map(|&cpu| std::iter::repeat_n(cpu, load))
            .map(|cpu| {
                let (stop, started) = (&stop, &started);
                s.spawn(move || {
                    let refused =
                        pin_current_thread(cpu).err().map(|e| format!("load thread for CPU {cpu} not pinned: {e}"));
                    started.fetch_add(1, Ordering::Release);
                    while !stop.load(Ordering::Relaxed) {
                        std::thread::yield_now();
                    }
                    refused
                })
            })
            .collect();
        while started.load(Ordering::Acquire) < loaders.len() {
            std::thread::yield_now();
        }
        let report = h.measure_team(
            cpus,
            |_, n| {
                for _ in 0..n {
                    std::thread::yield_now();
                }
            },
            |_, n| empty_loop(n),
        );
        stop.store(true, Ordering::Relaxed);
        let refused: Vec<String> =
            loaders.into_iter().filter_map(|t| t.join().expect("load thread panicked")).collect();
        (report, refused)
    });
    let mut outcome = Outcome::from(report);
    outcome.notes.extend(refused);
    outcome
}

/// tokio's multi-thread scheduler: `cpus × load` yielding tasks, then per batch one measuring task per
/// CPU yielding `n` times (control: the same tasks running the empty loop).
fn tokio_rounds(cpus: &[usize], load: usize, h: &Harness) -> anyhow::Result<Outcome> {
    let (rt, refused) = tokio_rt::multi_thread(cpus)?;
    let stop = Arc::new(AtomicBool::new(false));
    let started = Arc::new(AtomicUsize::new(0));
    let loaders: Vec<_> = (0..cpus.len() * load)
        .map(|_| {
            let (stop, started) = (stop.clone(), started.clone());
            rt.spawn(async move {
                started.fetch_add(1, Ordering::Release);
                while !stop.load(Ordering::Relaxed) {
                    ::tokio::task::yield_now().await;
                }
            })
        })
        .collect();
    while started.load(Ordering::Acquire) < loaders.len() {
        std::thread::yield_now();
    }
    let team = cpus.len();
    let measurement = h.measure(
        |n| {
            rt.block_on(async {
                let tasks: Vec<_> = (0..team)
                    .map(|_| {
                        ::tokio::spawn(async move {
                            for _ in 0..n {
                                ::tokio::task::yield_now().await;
                            }
                        })
                    })
                    .collect();
                for t in tasks {
                    t.await.expect("measuring task panicked");
                }
            })
        },
        |n| {
            rt.block_on(async {
                let tasks: Vec<_> = (0..team).map(|_| ::tokio::spawn(async move { empty_loop(n) })).collect();
                for t in tasks {
                    t.await.expect("control task panicked");
                }
            })
        },
    );
    stop.store(true, Ordering::Relaxed);
    rt.block_on(async {
        for t in loaders {
            t.await.expect("load task panicked");
        }
    });
    let mut outcome = Outcome::from(measurement);
    let refused = refused.load(Ordering::Relaxed);
    if refused > 0 {
        outcome.notes.push(format!("{refused} tokio worker thread(s) not pinned"));
    }
    Ok(outcome)
}

/// rayon at load 0: one job per worker (`broadcast`) calling `rayon::yield_now`, which finds nothing
/// pending; the cost of a yield that has nothing to run.
fn rayon_idle_yield(cpus: &[usize], load: usize, h: &Harness) -> anyhow::Result<Outcome> {
    anyhow::ensure!(load == 0, "rayon's yield cannot time-share loading jobs; only load 0 is measured");
    let (pool, refused) = rayon_rt::pool(cpus)?;
    let measurement = h.measure(
        |n| {
            pool.broadcast(|_| {
                for _ in 0..n {
                    std::hint::black_box(rayon::yield_now());
                }
            });
        },
        |n| {
            pool.broadcast(|_| empty_loop(n));
        },
    );
    let mut outcome = Outcome::from(measurement);
    let refused = refused.load(Ordering::Relaxed);
    if refused > 0 {
        outcome.notes.push(format!("{refused} rayon worker thread(s) not pinned"));
    }
    Ok(outcome)
}

/// Fibers: `load` yielding fibers beside the measuring one, all on this thread.
fn fiber_rounds(load: usize, h: &Harness) -> crate::harness::Measurement {
    let stop = Rc::new(Cell::new(false));
    let loaders: Vec<_> = (0..load)
        .map(|_| {
            let stop = stop.clone();
            fiber::spawn(move || {
                while !stop.get() {
                    fiber::yield_now();
                }
            })
        })
        .collect();
    let m = h.measure(
        |n| {
            for _ in 0..n {
                fiber::yield_now();
            }
        },
        empty_loop,
    );
    stop.set(true);
    for l in loaders {
        let _ = l.join();
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::fixture::point;

    /// The experiment's own fits: one `a + b·load` per runtime and CPU count, recovering the line.
    #[test]
    fn fits_one_line_per_runtime_and_cpu_count() {
        let mut points = Vec::new();
        for load in [0, 1, 2, 4, 8] {
            let x = f64::from(load);
            points.push(point("sched.yield", "os", &[("cpus", "2"), ("load", &load.to_string())], 300.0 + 700.0 * x));
            points.push(point(
                "sched.yield",
                "fiber-asm",
                &[("cpus", "1"), ("load", &load.to_string())],
                5.0 + 9.0 * x,
            ));
        }
        let refs: Vec<&PointRecord> = points.iter().collect();
        let fits = Yield.fits(&refs);
        assert_eq!(fits.len(), 2);
        let os = fits.iter().find(|f| f.runtime == "os").unwrap();
        assert!((os.a - 300.0).abs() < 1e-6 && (os.b - 700.0).abs() < 1e-6, "{os:?}");
        assert_eq!(os.series, vec![("cpus".to_string(), "2".to_string())]);
        assert_eq!((os.x.as_str(), os.c, os.points), ("load", None, 5));
    }

    #[test]
    fn fibers_measure_one_cpu_and_rayon_only_the_unloaded_yield() {
        let ctx = crate::experiments::plan::tests::two_cpu_context(Mode::Default);
        let fiber = Yield.points(&ctx, "fiber-asm");
        assert!(fiber.iter().all(|p| match p {
            Planned::Run(s) => s.param("cpus") == Some("1") && s.cpus.len() == 1,
            Planned::Skip(s, _) => s.param("cpus") == Some("2"),
        }));
        let rayon = Yield.points(&ctx, "rayon");
        let run: Vec<_> = rayon.iter().filter_map(|p| if let Planned::Run(s) = p { Some(s) } else { None }).collect();
        assert_eq!(run.len(), 1);
        assert_eq!(run[0].param("load"), Some("0"));
        assert_eq!(rayon.len(), 3, "one run and two skipped loads");
    }
}
