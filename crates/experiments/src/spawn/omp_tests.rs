//! The `openmp` points of Ben-Asher & Feitelson's spawning and granularity experiments run on a quick harness and
//! give finite samples (built only when build.rs compiled the OpenMP kernels).

use crate::grain::Sweep;
use crate::{Experiment, Outcome, PlanContext, Planned};
use overhead_harness::{Harness, HarnessConfig, Mode};
use overhead_machine::{allowed_cpus, Topology};
use overhead_record::PointSpec;

use super::{Bulk, ForkJoin, Remote};

fn quick_harness() -> Harness {
    overhead_harness::testing::quick_harness_with(HarnessConfig::for_mode(Mode::Quick))
}

/// A quick plan context on at most two of the CPUs this process may use.
fn ctx() -> PlanContext {
    let allowed = allowed_cpus();
    PlanContext {
        cpus: allowed[..allowed.len().min(2)].to_vec(),
        topology: Topology::detect(),
        mode: Mode::Quick,
        hosts: Vec::new(),
    }
}

/// The planned `openmp` points of `e`, every one of them to run.
fn omp_points(e: &dyn Experiment, ctx: &PlanContext) -> Vec<PointSpec> {
    e.points(ctx, &overhead_runtime_parallel::openmp::OpenMp)
        .into_iter()
        .map(|p| match p {
            Planned::Run(spec) => spec,
            Planned::Skip(spec, why) => panic!("{} skipped: {why}", spec.name()),
        })
        .collect()
}

/// Every repetition kept and every sample finite. The median's sign is not asserted: on two busy CPUs (the test
/// suite's other threads) a control region can take longer than a test one, so a timing is no test here.
fn assert_finite(outcome: &Outcome, name: &str, samples: usize) {
    let m = &outcome.measurement;
    assert_eq!(m.samples_ns.len(), samples, "{name}");
    assert!(m.samples_ns.iter().chain(&m.control_ns).all(|s| s.is_finite()), "{name}: {:?}", m.samples_ns);
    assert!(m.summary().is_some(), "{name}: finite samples have a summary");
}

#[test]
fn forkjoin_points_run_with_a_per_spawn_figure() {
    let h = quick_harness();
    let points = omp_points(&ForkJoin, &ctx());
    assert_eq!(points[0].name(), "spawn.forkjoin/runtime:openmp/mechanism:parallel/threads:1");
    for spec in points {
        let outcome = ForkJoin.run(&crate::Point::resolve(&spec).unwrap(), &h).unwrap();
        assert_finite(&outcome, &spec.name(), h.config.repetitions);
        let episode = outcome.measurement.summary().unwrap().median;
        let tasks = spec.cpus.len() as f64;
        assert_eq!(outcome.extra["tasks"], tasks);
        assert!((outcome.extra["per_spawn_ns"] * tasks - episode).abs() < 1e-6 * episode, "{:?}", outcome.extra);
    }
}

#[test]
fn bulk_points_run_per_spawn_with_the_region_cancelled() {
    let h = quick_harness();
    for spec in omp_points(&Bulk, &ctx()) {
        let outcome = Bulk.run(&crate::Point::resolve(&spec).unwrap(), &h).unwrap();
        assert_finite(&outcome, &spec.name(), h.config.repetitions);
        let per_spawn = outcome.measurement.summary().unwrap().median;
        assert!((outcome.extra["construct_ns"] - 1000.0 * per_spawn).abs() < 1e-6 * outcome.extra["construct_ns"]);
        // The control is a whole region with `single`, not an empty batch: it costs at least a fork-join.
        assert!(outcome.extra["control_construct_ns"] > 10.0, "{:?}", outcome.extra);
    }
}

/// Runs on two CPUs, or on the only one twice (the team then shares it): the point needs two threads.
#[test]
fn remote_point_runs_and_reports_the_executor_share() {
    let h = quick_harness();
    let ctx = ctx();
    let spec = match omp_points(&Remote, &ctx).into_iter().next() {
        Some(spec) if ctx.cpus.len() >= 2 => spec,
        _ => ctx.spec(
            "spawn.remote",
            &overhead_runtime_parallel::openmp::OpenMp,
            &[("generators", "1".into())],
            vec![ctx.cpus[0]; 2],
        ),
    };
    assert_eq!(spec.name(), "spawn.remote/runtime:openmp/generators:1");
    let outcome = Remote.run(&crate::Point::resolve(&spec).unwrap(), &h).unwrap();
    assert_finite(&outcome, &spec.name(), h.config.repetitions);
    let share = outcome.extra["executor_share_pct"];
    assert!((0.0..=100.0).contains(&share), "{share}");
    assert_eq!(outcome.extra["generators"], 1.0);
    assert!(!outcome.extra.contains_key("round_trip_ns"), "OpenMP generators do not wait for each task");
}

/// The sweep on a small work: finite samples of the best count, every table, shares adding up to 100%
/// on the team's CPUs, and the plain loop's time beside the one-task time.
#[test]
fn grain_point_runs_with_shares_on_the_team_cpus() {
    let h = quick_harness();
    let ctx = ctx();
    let [mut spec] = omp_points(&Sweep, &ctx).try_into().expect("one grain.sweep point per runtime");
    spec.params.retain(|(k, _)| k != "work");
    spec.params.push(("work".into(), "50000".into()));
    let outcome = Sweep.run(&crate::Point::resolve(&spec).unwrap(), &h).unwrap();
    let m = &outcome.measurement;
    assert!(!m.samples_ns.is_empty() && m.samples_ns.iter().all(|s| s.is_finite() && *s > 0.0), "{m:?}");
    for key in ["serial_ns", "best_ns", "serial_reads_ns", "speedup"] {
        assert!(outcome.extra[key].is_finite() && outcome.extra[key] > 0.0, "{key}: {:?}", outcome.extra);
    }
    let share = &outcome.details.tables[crate::grain::tables::SHARE];
    let mut team = spec.cpus.clone();
    team.sort_unstable();
    team.dedup();
    for (label, cells) in &share.rows {
        let total: f64 = cells.iter().flatten().sum();
        assert!((total - 100.0).abs() < 1e-9, "shares of {label} add to {total}");
        assert_eq!(cells.last(), Some(&Some(0.0)), "{label}: no task counted off the team's CPUs");
    }
    assert_eq!(share.columns.len(), team.len() + 1);
}
