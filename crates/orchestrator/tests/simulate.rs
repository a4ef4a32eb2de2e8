//! The simulation checked against runs that were made (docs/METHOD.md "The schedule, simulated"): two runs of
//! a 16-CPU machine, kept as their process costs (`data/16cpu-*-costs.json`, what `overhead run --plan
//! --simulate RECORD --simulate-save-costs FILE` writes), replayed through the schedule they ran under; and
//! described machines of 64 and 256 CPUs (`data/*.lscpu`, in `lscpu -p` form) planned and simulated.

use std::path::PathBuf;

use overhead_experiments::{PlanContext, Planned};
use overhead_harness::Mode;
use overhead_machine::Topology;
use overhead_orchestrator::{
    build_plan_where, select_experiments, select_runtimes, simulate, RecordedCosts, RoundPolicy, Schedule, Simulation,
};
use overhead_record::fixture::sample_record;

/// A file of `data/`.
fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// The recorded costs in `data/NAME`.
fn costs(name: &str) -> RecordedCosts {
    serde_json::from_str(&std::fs::read_to_string(data(name)).unwrap()).unwrap()
}

/// The processes a simulation gives in all.
fn processes(simulation: &Simulation) -> usize {
    simulation.points.iter().map(|p| p.processes).sum()
}

/// Whether `simulated` is within 10% of `recorded`.
fn within_ten_percent(simulated: f64, recorded: f64) -> bool {
    (simulated - recorded).abs() <= 0.1 * recorded
}

#[test]
fn the_simulation_reproduces_the_recorded_runs_within_ten_percent() {
    // `overhead run` (86 s, 1,188 processes) and `overhead run --budget 150` (151 s, 2,042 processes).
    for name in ["16cpu-default-costs.json", "16cpu-budget150-costs.json"] {
        let costs = costs(name);
        let policy = costs.policy.expect("the recorded run kept its policy");
        let simulation = simulate(costs.plan(), &[], policy, Schedule::Walk, &costs, sample_record()).unwrap();
        let (wall_s, n) = (simulation.wall.as_secs_f64(), processes(&simulation));
        assert!(within_ten_percent(wall_s, costs.wall_s), "{name}: {wall_s} s simulated, {} s recorded", costs.wall_s);
        assert!(
            within_ten_percent(n as f64, costs.processes as f64),
            "{name}: {n} processes, {} recorded",
            costs.processes
        );
    }
}

#[test]
fn the_allotted_schedule_keeps_its_deadline_and_no_more_points_at_one_process_than_the_walk() {
    let costs = costs("16cpu-default-costs.json");
    let policy = costs.policy.unwrap();
    let run = |schedule| simulate(costs.plan(), &[], policy, schedule, &costs, sample_record()).unwrap();
    let (walked, allotted) = (run(Schedule::Walk), run(Schedule::Allotted));
    let single = |s: &Simulation| s.points.iter().filter(|p| p.processes == 1).count();
    assert!(single(&allotted) <= single(&walked), "{} against {}", single(&allotted), single(&walked));
    // No probe starts past the deadline: the last ends at most one costliest process after it.
    let costliest_s = allotted.points.iter().map(|p| p.ms_per_process).fold(0.0, f64::max) / 1e3;
    assert!(allotted.wall.as_secs_f64() <= policy.deadline_s.unwrap() + costliest_s, "{:?}", allotted.wall);
    assert!(allotted.points.iter().all(|p| p.processes >= 1), "every point keeps its first process");
}

#[test]
fn the_described_machines_read_as_written_and_their_runs_keep_the_deadline() {
    let costs = costs("16cpu-default-costs.json");
    for (name, cpus, llcs) in [("16cpu.lscpu", 16, 1), ("64cpu.lscpu", 64, 4), ("256cpu.lscpu", 256, 16)] {
        let topology = Topology::from_lscpu(&std::fs::read_to_string(data(name)).unwrap()).unwrap();
        let distinct_llcs: std::collections::BTreeSet<_> = topology.cpus.iter().filter_map(|c| c.llc).collect();
        assert_eq!((topology.cpus.len(), distinct_llcs.len()), (cpus, llcs), "{name}");
        if cpus > 16 {
            assert_eq!((topology.packages, topology.numa_nodes, topology.cores), (2, 2, cpus / 2), "{name}");
        }
        let ctx = PlanContext { cpus: (0..cpus).collect(), topology, mode: Mode::Default, hosts: Vec::new() };
        // The runtimes the recorded machine had, whatever this one has.
        let available =
            |r: &dyn overhead_runtime_api::RuntimeUnderTest| match costs.unavailable_runtimes.contains(r.name()) {
                true => Err("not on the recorded machine".to_string()),
                false => Ok(()),
            };
        let runtimes = select_runtimes(&[]).unwrap();
        let plan = build_plan_where(&select_experiments(&[]).unwrap(), &runtimes, false, &ctx, &available);
        let planned = plan.iter().filter(|p| matches!(p, Planned::Run(_))).count();
        let policy = RoundPolicy::for_mode(Mode::Default);
        let simulation = simulate(plan, &[], policy, Schedule::Allotted, &costs, sample_record()).unwrap();
        assert_eq!(simulation.points.len(), planned, "{name}: every planned point is simulated");
        // Every point keeps its first process, whatever the deadline; no probe after those starts past it.
        let first_round_s: f64 = simulation.points.iter().map(|p| p.first_ms).sum::<f64>() / 1e3;
        let costliest_s = simulation.points.iter().map(|p| p.ms_per_process).fold(0.0, f64::max) / 1e3;
        let deadline_s = policy.deadline_s.unwrap();
        assert!(simulation.points.iter().all(|p| p.processes >= 1), "{name}");
        if first_round_s < deadline_s {
            assert!(simulation.wall.as_secs_f64() <= deadline_s + costliest_s, "{name}: {:?}", simulation.wall);
        } else {
            assert!(simulation.points.iter().all(|p| p.processes == 1), "{name}: the first round took the deadline");
        }
        assert!(
            simulation.last_line().starts_with(&format!("simulated: {planned} points, ")),
            "{}",
            simulation.last_line()
        );
    }
}
