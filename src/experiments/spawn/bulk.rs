//! `spawn.bulk`: one construct of many empty tasks, executed by all the CPUs.

use std::hint::black_box;

use crate::experiments::context::{in_context, runtime_of};
use crate::experiments::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned};
use crate::harness::{Harness, Measurement};
use crate::record::{Metric, PointSpec};
use crate::runtimes::{openmp, rayon_rt, tokio_rt, Runtime};

use super::fanout::{fiber_spawn_all, on_worker, os_pinning_notes, os_threads, rayon_scope, tokio_spawn_all};
use super::{measure_warm, one_cpu_only, pool_notes};
use crate::runtimes::Capability;

/// Empty tasks per construct (seed 001 §6.3 spawned `ITER × proc_no` at once).
pub const TASKS: u64 = 1000;
/// `spawn.bulk`'s parameters: empty tasks per construct, and the team size.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct Params {
    tasks: u64,
    threads: usize,
}

/// Seed 001 §6.3 (Fig. 6): `pparfor i; 1; lim` of `tasks` empty activities at once, run by the CPUs of
/// the point (1…CPUs); the time per spawn is the construct's time over `tasks` (`construct_ns` is the
/// whole construct). There is no contention from new descriptors, only from executing them. Per
/// runtime: `os` creates `tasks` kernel threads in one scope, thread `i` pinned to CPU `i mod CPUs`;
/// `rayon` one `scope` with `tasks` spawns from worker 0 of a pinned pool; `tokio` a parent task that
/// spawns `tasks` tasks and awaits them all; `fiber-*` (one CPU) `tasks` fiber spawns, then the joins.
/// The control is a batch without constructs (for `tokio`, the same parent task with nothing to spawn).
///
/// `openmp`: one `#pragma omp parallel` region of a pinned libgomp team in which one thread (`single`)
/// creates `tasks` empty `#pragma omp task`s, joined at the end of `single` ([`openmp::Team::bulk`]). Its
/// control is the same region and `single` looping `tasks` times without creating a task
/// ([`openmp::Team::single_loop`]), so the region's fork-join and the `single` cancel; what remains per
/// spawn is creating and queueing one task, running it (by any thread, at the barrier, or by its creator
/// once libgomp's queue is full), and the barrier's wait for the last task, less one empty iteration. The
/// control per construct is in `extra` as `control_construct_ns` (the other runtimes' control is empty).
pub struct Bulk;

impl Experiment for Bulk {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: "spawn.bulk",
            summary: "one construct of 1000 empty tasks run by 1…CPUs CPUs; time per spawn",
            source: "seed 001 §6.3, Fig. 6",
            metric: Metric::PerOp,
            requires: &[Capability::ForkJoin],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &str) -> Vec<Planned> {
        ctx.thread_counts(1)
            .into_iter()
            .map(|threads| {
                let spec = ctx.spec_of(self.id(), runtime, &Params { tasks: TASKS, threads }, ctx.team_cpus(threads));
                one_cpu_only(spec, runtime, threads)
            })
            .collect()
    }
    fn run(&self, spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
        let Params { tasks, .. } = spec.params_as()?;
        anyhow::ensure!(tasks > 0, "{}: spawn.bulk needs at least one task", spec.name());
        let empty = || {
            black_box(());
        };
        let (m, notes) = construct(&runtime_of(&spec.runtime)?, &spec.cpus, tasks, h, empty)?;
        let control_construct_ns = m.control_summary().map_or(f64::NAN, |s| s.median);
        let mut outcome = Outcome::from(m.per(tasks as f64));
        outcome.notes = notes;
        let median = outcome.measurement.summary().map_or(f64::NAN, |s| s.median);
        outcome.extra.insert("tasks".into(), tasks as f64);
        outcome.extra.insert("construct_ns".into(), median * tasks as f64);
        if spec.runtime == "openmp" {
            outcome.extra.insert("control_construct_ns".into(), control_construct_ns);
        }
        Ok(outcome)
    }
}

/// Measures constructs of `tasks` tasks of `task` on `runtime` over `cpus` (ns per construct), with the
/// notes on refused pinning. `openmp` runs C's empty task instead of `task` (a Rust closure cannot be an
/// `omp task` body of the kernel).
///
/// Errors: the runtime's threads could not be started (for `openmp`: no OpenMP in this build, or libgomp
/// gave another team size).
fn construct<F>(
    runtime: &Runtime,
    cpus: &[usize],
    tasks: u64,
    h: &Harness,
    task: F,
) -> anyhow::Result<(Measurement, Vec<String>)>
where
    F: Fn() + Send + Sync + Copy + 'static,
{
    let nothing = |_: u64| {};
    let mut notes = Vec::new();
    let m = match runtime {
        Runtime::Os => {
            notes = os_pinning_notes(cpus)?;
            measure_warm(
                h,
                |n| {
                    for _ in 0..n {
                        os_threads(cpus, tasks, &task);
                    }
                },
                nothing,
            )
        }
        Runtime::Rayon => {
            let (pool, refused) = rayon_rt::pool(cpus)?;
            notes.extend(pool_notes(&refused));
            pool.install(|| {
                measure_warm(
                    h,
                    |n| {
                        for _ in 0..n {
                            rayon_scope(tasks, &task);
                        }
                    },
                    nothing,
                )
            })
        }
        Runtime::Tokio => {
            let (rt, refused) = tokio_rt::multi_thread(cpus)?;
            notes.extend(pool_notes(&refused));
            // Each batch is one parent task (in the control too); its handle vector, allocated once per
            // batch, is reused by every construct of the batch.
            measure_warm(
                h,
                |n| {
                    on_worker(&rt, async move {
                        let mut handles = Vec::with_capacity(tasks as usize);
                        for _ in 0..n {
                            tokio_spawn_all(tasks, task, &mut handles).await;
                        }
                    })
                },
                |_| on_worker(&rt, async {}),
            )
        }
        Runtime::OpenMp => {
            // The task body is C's empty task: `task` cannot cross into the C kernel.
            let team = openmp::Team::pinned(cpus)?;
            let m = measure_warm(
                h,
                |n| {
                    for _ in 0..n {
                        team.bulk(tasks);
                    }
                },
                |n| {
                    for _ in 0..n {
                        team.single_loop(tasks);
                    }
                },
            );
            notes = team.notes();
            if cpus.len() == 1 {
                notes.push(
                    "a team of one thread runs each task at once in its creator (libgomp: undeferred), so per \
                     spawn is one task run inline through the task machinery, never queued"
                        .into(),
                );
            }
            m
        }
        Runtime::Fiber(backend) => in_context(Runtime::Fiber(*backend), h, move |h| {
            let mut handles = Vec::with_capacity(tasks as usize);
            measure_warm(
                h,
                |n| {
                    for _ in 0..n {
                        fiber_spawn_all(tasks, task, &mut handles);
                    }
                },
                |_| {},
            )
        })?,
    };
    Ok((m, notes))
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::*;
    use crate::clock::{calibrate, Calibration};
    use crate::harness::{HarnessConfig, Mode};

    /// The measured construct runs exactly `tasks` tasks per construct on every runtime: the count of
    /// task runs over a measurement is `tasks` times the constructs the harness ran.
    #[test]
    fn every_construct_runs_exactly_the_tasks_asked_for() {
        let time = calibrate(false, Calibration { span: std::time::Duration::from_millis(10), spans: 1 });
        let mut config = HarnessConfig::for_mode(Mode::Quick);
        (config.target_batch_ns, config.warmup, config.repetitions) = (0.0, 1, 2);
        let h = Harness::new(&time, config);
        let allowed = crate::machine::allowed_cpus();
        let cpus = &allowed[..allowed.len().min(2)];
        const TASKS: u64 = 250;
        for runtime in ["os", "rayon", "tokio", "fiber-asm"] {
            let runs: &'static AtomicU64 = Box::leak(Box::new(AtomicU64::new(0)));
            let count = move || {
                runs.fetch_add(1, Ordering::Relaxed);
            };
            let rt = runtime_of(runtime).unwrap();
            let cpus = if runtime == "fiber-asm" { &cpus[..1] } else { cpus };
            if let Runtime::Fiber(b) = rt {
                if b.available().is_err() {
                    continue;
                }
            }
            let (m, _) = construct(&rt, cpus, TASKS, &h, count).unwrap();
            // 1 untimed construct, then with target 0 the sizing batch (N = 1) and its confirming batch end at
            // once, then 1 warm-up and 2 kept test batches.
            assert_eq!(m.batch_ops, 1, "{runtime}");
            assert_eq!(runs.load(Ordering::Relaxed), 6 * TASKS, "{runtime}");
        }
    }
}
