//! The plan on machines this one is not (docs/METHOD.md "The plan grows with the topology"): its size at 2, 16,
//! 64 and 256 CPUs in every mode, and one representative per topology class.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use crate::plan::{build_plan, select_experiments, select_runtimes};
use overhead_experiments::{PlanContext, Planned};
use overhead_harness::Mode;
use overhead_machine::testing::simulated;
use overhead_machine::{PairClass, Placement, Topology};
use overhead_record::PointSpec;

/// The machines of the table: 2 CPUs (this project's guest), 16 (one package, one L3, no SMT: the issue's
/// Xeon guest), 64 and 256 (two packages, one NUMA node each, SMT, two and eight L3 domains a package).
fn machines() -> [(usize, Topology); 4] {
    [
        (2, simulated(1, 1, 1, 2, 1)),
        (16, simulated(1, 1, 1, 16, 1)),
        (64, simulated(2, 1, 2, 8, 2)),
        (256, simulated(2, 1, 8, 8, 2)),
    ]
}

fn context(topology: &Topology, mode: Mode) -> PlanContext {
    PlanContext {
        cpus: topology.cpus.iter().map(|c| c.cpu).collect(),
        topology: topology.clone(),
        mode,
        hosts: Vec::new(),
    }
}

/// The points a run of the default runtimes would measure.
fn planned(topology: &Topology, mode: Mode) -> Vec<PointSpec> {
    let experiments = select_experiments(&[]).unwrap();
    let runtimes = select_runtimes(&[]).unwrap();
    build_plan(&experiments, &runtimes, false, &context(topology, mode))
        .into_iter()
        .filter_map(|p| match p {
            Planned::Run(spec) => Some(spec),
            Planned::Skip(..) => None,
        })
        .collect()
}

/// The table of METHOD (run with `--nocapture` to print it), and its shape: the default and quick plans at
/// 256 CPUs are at most 30% larger than at 16 (two more thread counts, SMT and other-package pairs), and no
/// larger than at 64 CPUs of the same levels, while `--full` keeps its grids and grows with the CPUs.
#[test]
fn the_plan_grows_with_the_topology_not_the_cpus() {
    let mut sizes: BTreeMap<(usize, &str), usize> = BTreeMap::new();
    for (cpus, topology) in machines() {
        for (mode, name) in [(Mode::Quick, "quick"), (Mode::Default, "default"), (Mode::Full, "full")] {
            sizes.insert((cpus, name), planned(&topology, mode).len());
        }
    }
    eprintln!("| CPUs | quick | default | full |\n| ---: | ---: | ---: | ---: |");
    for (cpus, _) in machines() {
        eprintln!(
            "| {cpus} | {} | {} | {} |",
            sizes[&(cpus, "quick")],
            sizes[&(cpus, "default")],
            sizes[&(cpus, "full")]
        );
    }
    for mode in ["quick", "default"] {
        let (small, large) = (sizes[&(16, mode)], sizes[&(256, mode)]);
        assert!(large * 10 <= small * 13, "{mode}: {large} points at 256 CPUs against {small} at 16");
        assert!(sizes[&(2, mode)] <= small && small <= large, "{sizes:?}");
        assert_eq!(sizes[&(64, mode)], large, "{mode}: the same levels at 64 and 256 CPUs, the same plan");
    }
    assert!(sizes[&(256, "full")] > 2 * sizes[&(16, "full")], "--full keeps every count: {sizes:?}");
}

/// Two-party points: per experiment, runtime and parameters, exactly one point of each placement class the
/// machine has, whatever its CPU count.
#[test]
fn each_placement_class_has_exactly_one_pair() {
    for (cpus, topology) in machines() {
        let mut by_cell: BTreeMap<String, Vec<Placement>> = BTreeMap::new();
        for spec in planned(&topology, Mode::Default) {
            // Free parties have no pair to check: the scheduler places them.
            let Some(placement) = spec.placement.filter(|p| *p != Placement::Free) else { continue };
            let cell: Vec<String> =
                spec.params.iter().filter(|(k, _)| k != "placement").map(|(k, v)| format!("{k}:{v}")).collect();
            by_cell
                .entry(format!("{}/{}/{}", spec.experiment, spec.runtime, cell.join("/")))
                .or_default()
                .push(placement);
            if spec.cpus.len() == 2 {
                assert_eq!(topology.placement(spec.cpus[0], spec.cpus[1]), placement, "{}", spec.name());
            }
        }
        let has: HashSet<Placement> =
            (0..cpus).map(|b| topology.placement(0, b)).filter(|&p| p != Placement::SameCpu).collect();
        assert!(by_cell.keys().any(|k| k.starts_with("msg.ipc/")), "{cpus} CPUs: no msg.ipc cell");
        for (cell, placements) in &by_cell {
            let distinct: HashSet<Placement> = placements.iter().copied().collect();
            assert_eq!(distinct.len(), placements.len(), "{cpus} CPUs, {cell}: a class twice: {placements:?}");
            assert!(distinct.iter().all(|p| *p == Placement::SameCpu || has.contains(p)), "{cell}: {placements:?}");
            if cell.starts_with("msg.ipc/runtime:os/transport:pipe/payload:8/") {
                let others: HashSet<Placement> = distinct.into_iter().filter(|&p| p != Placement::SameCpu).collect();
                assert_eq!(others, has, "{cpus} CPUs: {cell} covers every class");
            }
        }
    }
}

/// The pairwise matrices sample one CPU of each pair class (SMT sibling, same L3, other L3, …) around the
/// home CPU outside `--full`, and take every CPU in it.
#[test]
fn matrices_take_one_cpu_per_pair_class_outside_full() {
    for (cpus, topology) in machines() {
        let classes: BTreeSet<PairClass> = (1..cpus).filter_map(|b| PairClass::of(&topology, 0, b)).collect();
        for mode in [Mode::Quick, Mode::Default, Mode::Full] {
            for spec in planned(&topology, mode) {
                if !["mem.c2c", "clock.offset", "clock.rate"].contains(&spec.experiment.as_str()) {
                    continue;
                }
                if mode == Mode::Full {
                    assert_eq!(spec.cpus.len(), cpus, "{}", spec.name());
                    continue;
                }
                let sampled: Vec<PairClass> =
                    spec.cpus[1..].iter().filter_map(|&b| PairClass::of(&topology, spec.cpus[0], b)).collect();
                assert_eq!(sampled.len(), classes.len(), "{cpus} CPUs, {}: {:?}", spec.name(), spec.cpus);
                assert_eq!(sampled.iter().copied().collect::<BTreeSet<_>>(), classes, "{cpus} CPUs, {}", spec.name());
            }
        }
    }
}

/// Teams of one L3 domain's and one package's size sit exactly on that L3 and that package.
#[test]
fn thread_counts_follow_the_levels_and_teams_fill_them() {
    let (_, big) = &machines()[3];
    let ctx = context(big, Mode::Default);
    assert_eq!(ctx.thread_counts(1), [1, 2, 8, 64, 256]);
    assert_eq!(ctx.rank_counts(), [2, 128], "MPI ranks: the smallest job and one per core");
    assert_eq!(context(big, Mode::Full).rank_counts().len(), 255, "--full: every count from 2");
    let llc_of = |cpu: usize| big.cpu(cpu).unwrap().llc;
    assert!(ctx.team_cpus(8).iter().all(|&c| llc_of(c) == llc_of(0)), "{:?}", ctx.team_cpus(8));
    let package = ctx.team_cpus(64);
    assert!(package.iter().all(|&c| big.cpu(c).unwrap().package == 0), "{package:?}");
    let cores: BTreeSet<usize> = package.iter().map(|&c| big.cpu(c).unwrap().core).collect();
    assert_eq!(cores.len(), 64, "one thread per core");
    assert_eq!(context(&machines()[1].1, Mode::Quick).thread_counts(1), [1, 2, 16]);
    assert_eq!(context(big, Mode::Quick).thread_counts(1), [1, 2, 256], "--quick: the ends");
    assert_eq!(context(&machines()[0].1, Mode::Quick).thread_counts(1), [1, 2]);
}

/// `sync.oversub` oversubscribes one package's cores outside `--full` (every CPU in it), so that its
/// processes on 256 CPUs start hundreds of activities, not thousands; on one package it keeps every CPU.
#[test]
fn oversubscription_stays_in_one_package_outside_full() {
    for (cpus, topology) in machines() {
        let package_cores = if cpus >= 64 { cpus / 4 } else { cpus };
        for (mode, expected) in [(Mode::Default, package_cores), (Mode::Quick, package_cores), (Mode::Full, cpus)] {
            let oversub: Vec<PointSpec> =
                planned(&topology, mode).into_iter().filter(|s| s.experiment == "sync.oversub").collect();
            assert!(!oversub.is_empty());
            for s in &oversub {
                assert_eq!(s.cpus.len(), expected, "{cpus} CPUs, {mode:?}: {}", s.name());
                let packages: BTreeSet<usize> = s.cpus.iter().map(|&c| topology.cpu(c).unwrap().package).collect();
                assert!(mode == Mode::Full || packages.len() == 1, "{}", s.name());
            }
        }
    }
}

/// A point's placement is one value: wherever its name says `placement:`, the spec's placement is that
/// placement (a free stream's, an other-host pair's too), and the plan makes no name whose placement the
/// schema does not know; a flavor of a runtime with flavors names itself first.
#[test]
fn a_named_placement_is_the_points_placement_and_a_flavor_comes_first() {
    for (cpus, topology) in machines() {
        for mode in [Mode::Quick, Mode::Default, Mode::Full] {
            for spec in planned(&topology, mode) {
                if let Some(named) = spec.param("placement") {
                    let parsed = Placement::named(named);
                    assert!(parsed.is_some(), "{cpus} CPUs: {}: no such placement", spec.name());
                    assert_eq!(spec.placement, parsed, "{cpus} CPUs: {}", spec.name());
                }
                if let Some(at) = spec.params.iter().position(|(k, _)| k == "flavor") {
                    assert_eq!(at, 0, "{}", spec.name());
                }
            }
        }
    }
}
