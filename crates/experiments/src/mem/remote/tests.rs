use super::*;
use overhead_harness::Mode;
use overhead_machine::allowed_cpus;
use overhead_machine::testing::simulated;

fn planned(cpus: Vec<usize>, topology: Topology) -> Vec<Planned> {
    plan(
        &PlanContext { cpus, topology, mode: Mode::Default, hosts: Vec::new() },
        "mem.remote",
        &overhead_runtime_os::Os,
    )
}

fn case_of(p: &Planned) -> (&PointSpec, Option<&str>) {
    match p {
        Planned::Run(s) => (s, None),
        Planned::Skip(s, why) => (s, Some(why.as_str())),
    }
}

#[test]
fn many_cpus_give_every_row_with_the_seed_reference() {
    let p = planned((0..16).collect(), simulated(1, 2, 2, 2, 2));
    assert_eq!(p.len(), 8);
    let names: Vec<String> = p.iter().map(|p| case_of(p).0.param("case").unwrap().to_string()).collect();
    assert_eq!(names, Case::ALL.map(|c| c.name().to_string()));
    for planned in &p {
        let (spec, skip) = case_of(planned);
        assert_eq!(skip, None, "{spec:?}");
        let numa = spec.param("case").unwrap().starts_with("numa");
        assert_eq!(spec.param("reference"), Some(if numa { "clock" } else { "activity" }), "{}", spec.name());
    }
    let spec = |i: usize| case_of(&p[i]).0;
    // One CPU per core first: 0, 2, 4, …; A is thread 0.
    assert_eq!(spec(0).cpus, [0, 2]);
    assert_eq!(spec(0).placement, None);
    assert_eq!(spec(1).cpus, [0, 2, 4]);
    assert_eq!(spec(1).name(), "mem.remote/runtime:os/case:local_one_remote/reference:activity/placement:other_core");
    assert_eq!(spec(2).cpus.len(), 16, "A, B and every other CPU a remote activity");
    assert_eq!(spec(3).cpus, [0, 2, 4], "A, C and the owner of C's page");
    assert_eq!(spec(5).cpus.len(), 16);
    // NUMA: CPUs 0–7 on node 0, 8–15 on node 1.
    assert_eq!(spec(6).cpus, [0]);
    assert_eq!(spec(7).cpus.len(), 2);
    assert!(spec(7).cpus[1] >= 8);
    assert_eq!(spec(7).placement, Some(Placement::OtherNumaNode));
}

#[test]
fn two_cpus_fall_back_to_the_clock_and_skip_what_needs_more() {
    let topology = simulated(1, 1, 1, 2, 1);
    let p = planned(vec![0, 1], topology);
    let by_case = |c: Case| p.iter().map(case_of).find(|(s, _)| s.param("case") == Some(c.name())).unwrap();
    let (s, skip) = by_case(Case::LocalFree);
    assert_eq!((s.param("reference"), s.cpus.as_slice(), skip), (Some("activity"), &[0, 1][..], None));
    for c in [Case::LocalOneRemote, Case::RemoteUsed, Case::RemoteUnused, Case::RemoteHeavy] {
        let (s, skip) = by_case(c);
        assert_eq!((s.param("reference"), s.cpus.as_slice(), skip), (Some("clock"), &[0, 1][..], None), "{c:?}");
    }
    assert_eq!(by_case(Case::RemoteUsed).0.placement, Some(Placement::OtherCore));
    let (_, skip) = by_case(Case::LocalManyRemote);
    assert!(skip.unwrap().contains("needs 4 usable CPUs"), "{skip:?}");
    for c in [Case::NumaLocal, Case::NumaRemote] {
        let (_, skip) = by_case(c);
        assert!(skip.unwrap().contains("one NUMA node"), "{skip:?}");
    }
}

#[test]
fn one_cpu_measures_local_free_against_the_clock_and_skips_the_rest() {
    let p = planned(vec![5], simulated(1, 1, 1, 1, 1));
    assert_eq!(p.len(), 8);
    let (s, skip) = case_of(&p[0]);
    assert_eq!((s.param("reference"), s.cpus.as_slice(), skip), (Some("clock"), &[5][..], None));
    for planned in &p[1..] {
        let (s, skip) = case_of(planned);
        let why = skip.unwrap_or_else(|| panic!("{} runs on one CPU", s.name()));
        assert!(why.contains("CPU") || why.contains("NUMA"), "{why}");
    }
    let (_, skip) = case_of(&p[1]);
    assert!(skip.unwrap().contains("only CPU 5"), "{skip:?}");
}

#[test]
fn the_reference_arithmetic_cancels_the_start_skew() {
    // A counted 1 000 000 between its snapshots; B 740 000, whatever it had done before the first.
    let a = Snapshot { early: 125_000, late: 1_125_000 };
    let b = Snapshot { early: 60_000, late: 800_000 };
    assert_eq!(relative_rate(a, b), Some(0.74));
    let skewed = Snapshot { early: 400_000, late: 1_140_000 };
    assert_eq!(relative_rate(a, skewed), relative_rate(a, b));
    assert_eq!(relative_rate(a, Snapshot { early: 0, late: 500 }), None, "not started at the early snapshot");
    assert_eq!(relative_rate(a, Snapshot { early: 9, late: 9 }), None, "did not move");
    // The clock: 250 000 increments in 1 ms together, 1 000 000 in 2 ms alone: half the rate.
    let joint = Snapshot { early: 5_000, late: 255_000 };
    let solo = Snapshot { early: 1_000, late: 1_001_000 };
    assert_eq!(clock_relative_rate(joint, 1e6, solo, 2e6), Some(0.5));
    assert_eq!(clock_relative_rate(joint, 0.0, solo, 2e6), None);
}

/// The outcome's arithmetic on synthetic snapshots (two remotes against A, one warm-up window), and
/// the report's Table 3 row from it.
#[test]
fn outcome_of_synthetic_windows() {
    let h = overhead_harness::testing::quick_harness();
    let cpu = allowed_cpus()[0];
    let setup = Setup::new(Case::RemoteHeavy, Reference::Activity, &[cpu, cpu, cpu]).unwrap();
    assert_eq!(setup.measured, [1, 2]);
    let ms = (h.clock.hz / 1e3) as u64;
    let window = |a: (u64, u64), r1: (u64, u64), r2: (u64, u64)| Seen {
        lanes: [a, r1, r2].map(|(early, late)| Snapshot { early, late }).into(),
        ticks: ms,
    };
    let run = TeamRun {
        joint: vec![
            window((1, 2), (0, 0), (0, 0)),
            // A counted 10 000; R1 1 000 (0.1), R2 2 000 (0.2), over 1 ms: 1 000 and 500 ns per increment.
            window((1_000, 11_000), (500, 1_500), (100, 2_100)),
            window((1_000, 11_000), (0, 900), (100, 2_100)),
        ],
        solo: Vec::new(),
        notes: Vec::new(),
    };
    let o = rates_outcome(&setup, &run, 1, &h).unwrap();
    let close = |a: f64, b: f64| (a - b).abs() < 1e-6 * b.abs().max(1.0);
    assert!(close(o.extra["relative_rate"], 0.15) && close(o.extra["relative_rate_min"], 0.1));
    assert!(close(o.extra["relative_rate_max"], 0.2));
    assert_eq!((o.extra["windows"], o.extra["dropped_windows"]), (1.0, 1.0), "R1 had not started in window 2");
    let ns = h.clock.ticks_to_ns(ms as f64);
    assert_eq!(o.measurement.samples_ns.len(), 1);
    assert!(close(o.measurement.samples_ns[0], 2.0 / (1_000.0 / ns + 2_000.0 / ns)));
    assert_eq!(o.measurement.control_ns, [0.0]);
    assert_eq!(o.measurement.batch_ops, 1_500);
    assert_eq!(o.details.tables["rates"].rows[1].0, format!("thread 2 (CPU {cpu})"));
    assert!(o.notes.iter().any(|n| n.contains("1 of 2 kept windows dropped")), "{:?}", o.notes);

    // What the report's mem section reads (overhead-report's `sections::mem`, whose tests render it).
    let mut p = overhead_record::fixture::point(
        "mem.remote",
        "os",
        &[("case", "remote_heavy"), ("reference", "activity")],
        o.measurement.samples_ns[0],
    );
    p.extra = o.extra;
    let r = p.result_as::<RemoteResult>().unwrap();
    assert!(close(r.relative_rate, 0.15), "{r:?}");
}

#[test]
fn marks_are_whole_chunks_with_a_lead_in() {
    // 1 ns per increment, 1 ms window.
    let Bound::Counts { early, late } = marks(Snapshot { early: 1, late: 100_001 }, 1e5, 1e6) else { panic!() };
    assert_eq!(early % INLINE, 0);
    assert_eq!(late - early, 1_000_000);
    assert_eq!(early, 125_000);
}

#[test]
fn the_chase_is_one_cycle_through_every_line() {
    for n in [1usize, 2, 3, 64, 1000] {
        let next = cycle(n, 42);
        let mut seen = vec![false; n];
        let mut i = 0usize;
        for _ in 0..n {
            assert!(!seen[i], "line {i} visited twice in a cycle of {n}");
            seen[i] = true;
            i = next[i] as usize;
        }
        assert_eq!(i, 0, "back at the start after {n} steps");
    }
    let page = chase_buffer(allowed_cpus()[0], 1 << 16, 7).unwrap();
    let start = page.as_ptr() as usize;
    // SAFETY: a live chase buffer of 1024 lines; a full cycle returns to the start.
    assert_eq!(unsafe { chase(start, (page.bytes() / 64) as u64) }, start);
}

/// Real runs of every team case on whatever CPUs exist (cycled), with both references: the outcome
/// has a sample and a finite rate per kept window and the notes say which reference was used.
/// Nothing about the rates' values is asserted: the machine may be loaded.
#[test]
fn team_cases_run_end_to_end() {
    let h = overhead_harness::testing::quick_harness();
    let cpus: Vec<usize> = allowed_cpus().into_iter().cycle().take(4).collect();
    let cases = [Case::LocalFree, Case::LocalOneRemote, Case::RemoteUsed, Case::RemoteUnused, Case::RemoteHeavy];
    let mut measured = 0;
    for case in cases {
        for reference in [Reference::Activity, Reference::Clock] {
            let width = super::cpus_with_reference(case) - usize::from(reference == Reference::Clock);
            let setup = Setup::new(case, reference, &cpus[..width]).unwrap();
            let run = run_team(&setup, h.clock, 2e5, 3);
            assert_eq!(run.joint.len(), 3);
            assert_eq!(run.solo.len(), if reference == Reference::Clock { setup.measured.len() } else { 0 });
            // A preempted activity can drop a window on a loaded machine; what is kept is well formed.
            if let Ok(o) = rates_outcome(&setup, &run, 1, &h) {
                measured += 1;
                let m = &o.measurement;
                assert!(!m.samples_ns.is_empty() && m.samples_ns.iter().all(|s| s.is_finite() && *s > 0.0));
                assert_eq!(m.control_ns.len(), m.samples_ns.len());
                assert!(o.extra["relative_rate"].is_finite() && o.extra["relative_rate"] > 0.0);
                assert_eq!(case == Case::RemoteHeavy, o.extra.contains_key("relative_rate_min"), "{case:?}");
                assert_eq!(o.details.tables["rates"].rows.len(), setup.measured.len());
            }
        }
    }
    assert!(measured >= cases.len(), "most settings give a rate: {measured} of {}", 2 * cases.len());
}
