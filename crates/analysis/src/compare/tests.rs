//! `compare` on sides with known errors and run levels.

use super::*;
use crate::run_level::{RunLevel, RunLevelSource, PRIOR_RUNS};
use overhead_record::{PointRunSummary, RunConfig};
use overhead_stats::Z95;

/// A side of one record: `(name, median, half-width)` points, with the run level `level`.
fn side(label: &str, points: &[(&str, f64, f64)], level: RunLevel) -> ComparedRuns {
    let points = points
        .iter()
        .map(|&(n, m, h)| {
            (n.to_string(), PointRunSummary { median_ns: m, ci_low_ns: m - h, ci_high_ns: m + h, processes: 0 })
        })
        .collect();
    ComparedRuns { label: label.into(), runs: vec![run(label, points, Some(0.25))], level }
}

fn run(label: &str, points: BTreeMap<String, PointRunSummary>, speed_ns: Option<f64>) -> RunSummary {
    RunSummary {
        label: label.into(),
        started_utc: String::new(),
        config: Some(RunConfig {
            machine: "m".into(),
            kernel: "k".into(),
            build: "b".into(),
            options: "default".into(),
        }),
        speed_ns,
        max_other_share: Some(0.01),
        max_steal_share: Some(0.0),
        points,
        process_wall_ms: BTreeMap::new(),
        host_state_rtt_ns: Default::default(),
    }
}

fn none() -> RunLevel {
    RunLevel::fixed(&[("base", 0.0, 0.0), ("sync", 0.0, 0.0), ("x", 0.0, 0.0), ("y", 0.0, 0.0)])
}

fn scaled(s: &ComparedRuns, label: &str, f: f64) -> ComparedRuns {
    let mut s = s.clone();
    s.label = label.into();
    for p in s.runs.iter_mut().flat_map(|r| r.points.values_mut()) {
        (p.median_ns, p.ci_low_ns, p.ci_high_ns) = (p.median_ns * f, p.ci_low_ns * f, p.ci_high_ns * f);
    }
    s
}

#[test]
fn a_copy_with_every_time_times_1_1_is_plus_10_percent_everywhere() {
    // No run level, and one of 1% per family: ±1% CIs and that cannot hide 10% (the defaults, measured on a
    // noisy host, can: see the_run_level_widens_the_ratio_ci_and_says_where_it_came_from).
    for level in [none(), RunLevel::fixed(&[("base", 0.25, 0.01), ("sync", 0.25, 0.01)])] {
        let a = side("a", &[("base.loop/runtime:os", 1.0, 0.01), ("sync.faa/runtime:os/threads:2", 30.0, 0.3)], level);
        let c = compare(&[a.clone(), scaled(&a, "b", 1.1)]);
        for p in &c.points {
            let v = p.others[0].as_ref().unwrap();
            let r = v.ratio.unwrap();
            assert!((r.ratio - 1.1).abs() < 1e-12, "{p:?}");
            assert!(v.significant && r.low > 1.0 && r.high > 1.1, "±1% CIs and the run level cannot hide 10%: {r:?}");
        }
        assert_eq!(c.families.len(), 2);
        assert!(c.families.iter().all(|f| (f.others[0].unwrap().ratio.ratio - 1.1).abs() < 1e-12));
        assert!(c.only_in.is_empty());
    }
}

#[test]
fn without_a_run_level_the_ratio_ci_adds_the_log_errors_in_quadrature() {
    let a = side("a", &[("x.a", 100.0, 10.0)], none());
    let c = compare(&[a.clone(), scaled(&a, "b", 1.0)]);
    let r = c.points[0].others[0].as_ref().unwrap().ratio.unwrap();
    let se = (1.1f64 / 0.9).ln() / (2.0 * Z95) * 2f64.sqrt();
    assert!((r.high - (Z95 * se).exp()).abs() < 1e-9 && (r.low * r.high - 1.0).abs() < 1e-12, "{r:?}");
    let wide = side("a", &[("x.a", 100.0, 150.0)], none());
    assert!(compare(&[wide, a]).points[0].others[0].as_ref().unwrap().ratio.is_none(), "a CI reaching below zero");
}

#[test]
fn the_run_level_widens_the_ratio_ci_and_says_where_it_came_from() {
    let points = [("x.a", 100.0, 1.0)];
    let narrow = compare(&[side("a", &points, none()), side("b", &points, none())]);
    let wide = compare(&[side("a", &points, RunLevel::fixed(&[("x", 0.0, 0.02)])), side("b", &points, none())]);
    let half = |c: &Comparison| {
        let r = c.points[0].others[0].as_ref().unwrap().ratio.unwrap();
        (r.high / r.low).ln() / 2.0
    };
    // Two within-run terms (a plain file's CI: the normal quantile, infinite df) and the baseline's shift,
    // estimated with the prior's 4 degrees of freedom: Student's t at the Welch–Satterthwaite df of the sum.
    let (w, shift) = (((101.0f64 / 99.0).ln() / (2.0 * Z95)).powi(2), 0.02f64.powi(2));
    let df = (2.0 * w + shift).powi(2) / (shift * shift / PRIOR_RUNS);
    let t = statrs::distribution::StudentsT::new(0.0, 1.0, df).unwrap();
    let expected = statrs::distribution::ContinuousCDF::inverse_cdf(&t, 0.975) * (2.0 * w + shift).sqrt();
    assert!((half(&wide) - expected).abs() < 1e-9, "{} vs {expected}", half(&wide));
    assert!(expected > Z95 * (2.0 * w + shift).sqrt(), "an estimated variance widens the quantile past 1.96");
    assert!(half(&narrow) < half(&wide));
    assert!(wide.sides[0].run_level.starts_with("assumed") && wide.sides[0].run_level_runs == 0);
}

#[test]
fn a_family_ci_stops_narrowing_at_its_shared_shift() {
    let tau = 0.01;
    let half_width = |n: usize| {
        let names: Vec<String> = (0..n).map(|k| format!("sync.p{k}/runtime:os")).collect();
        let points: Vec<(&str, f64, f64)> = names.iter().map(|n| (n.as_str(), 100.0, 2.0)).collect();
        let level = || RunLevel::fixed(&[("sync", 1.0, tau)]);
        let c = compare(&[side("a", &points, level()), side("b", &points, level())]);
        let f = c.families[0].others[0].unwrap();
        let (r, count) = (f.ratio, f.points);
        assert_eq!(count, n);
        (r.high / r.low).ln() / 2.0
    };
    // Both shifts estimated with 4 degrees of freedom each: together 8 by Welch–Satterthwaite.
    let t8 = statrs::distribution::StudentsT::new(0.0, 1.0, 2.0 * PRIOR_RUNS).unwrap();
    let floor = statrs::distribution::ContinuousCDF::inverse_cdf(&t8, 0.975) * (2.0 * tau * tau).sqrt();
    let (h1, h10, h1000) = (half_width(1), half_width(10), half_width(1000));
    assert!(h1 > h10 && h10 > h1000, "{h1} {h10} {h1000}");
    assert!(h1000 > floor && h1000 < floor * 1.02, "1000 points: {h1000}, the shift alone {floor}");
}

#[test]
fn replicates_average_and_their_spread_narrows_the_interval() {
    let level = || RunLevel::fixed(&[("x", 1.0, 0.02)]);
    let one = side("a", &[("x.a", 100.0, 2.0)], level());
    let mut three = one.clone();
    three.runs =
        vec![one.runs[0].clone(), scaled(&one, "a2", 1.02).runs[0].clone(), scaled(&one, "a3", 0.98).runs[0].clone()];
    let b = scaled(&one, "b", 1.05);
    let single = compare(&[one, b.clone()]);
    let replicated = compare(&[three, b]);
    let r1 = single.points[0].others[0].as_ref().unwrap().ratio.unwrap();
    let r3 = replicated.points[0].others[0].as_ref().unwrap().ratio.unwrap();
    assert!((r3.ratio - 1.05 / (1.02f64 * 0.98).powf(1.0 / 3.0)).abs() < 1e-9, "{r3:?}");
    assert!(r3.high / r3.low < r1.high / r1.low);
    assert_eq!(replicated.sides[0].runs, 3);
}

#[test]
fn the_speed_ratio_is_a_finding_and_adjusts_only_families_the_history_chose() {
    let mut level = RunLevel::fixed(&[("sched", 0.0, 0.0), ("sync", 0.0, 0.0)]);
    level.families.get_mut("sched").unwrap().speed_slope = Some(1.0);
    level.source = RunLevelSource::History { runs: 6, groups: 1 };
    let a = side("a", &[("sched.yield/runtime:os", 100.0, 1.0), ("sync.faa/runtime:os", 100.0, 1.0)], level);
    let mut b = scaled(&a, "b", 0.98);
    b.runs[0].speed_ns = Some(0.25 * 0.98);
    let c = compare(&[a, b]);
    assert!(c.speed_findings[0].contains("b's machine ran 2.0% faster than a's"), "{}", c.speed_findings[0]);
    let sched = c.points.iter().find(|p| p.name.starts_with("sched")).unwrap().others[0].clone().unwrap();
    let sync = c.points.iter().find(|p| p.name.starts_with("sync")).unwrap().others[0].clone().unwrap();
    assert!(sched.speed_adjusted && (sched.ratio.unwrap().ratio - 1.0).abs() < 1e-9, "{sched:?}");
    assert!(!sync.speed_adjusted && (sync.ratio.unwrap().ratio - 0.98).abs() < 1e-9, "{sync:?}");
    assert_eq!(c.speed_decisions.len(), 1);
}

#[test]
fn an_uncertain_speed_slope_widens_the_adjusted_ratio() {
    let run = |slope_var: f64| {
        let mut level = RunLevel::fixed(&[("sched", 0.0, 0.0)]);
        let family = level.families.get_mut("sched").unwrap();
        (family.speed_slope, family.speed_slope_var) = (Some(1.0), (slope_var, 5.0));
        let a = side("a", &[("sched.yield/runtime:os", 100.0, 1.0)], level);
        let mut b = scaled(&a, "b", 0.9);
        b.runs[0].speed_ns = Some(0.25 * 0.9);
        let r = compare(&[a, b]).points[0].others[0].clone().unwrap().ratio.unwrap();
        (r.high / r.low).ln()
    };
    // A slope known to ±0.5 over a 10% speed difference adds (0.5 · ln 0.9)² to the ratio's variance.
    assert!(run(0.25) > run(0.0) * 1.5, "{} vs {}", run(0.25), run(0.0));
}

#[test]
fn points_of_one_record_only_are_listed_apart() {
    let a = side("a", &[("x.a", 1.0, 0.1), ("x.b", 1.0, 0.1)], none());
    let b = side("b", &[("x.a", 1.0, 0.1), ("y.c", 2.0, 0.1)], none());
    let c = compare(&[a, b]);
    assert_eq!(c.points.len(), 2);
    assert!(c.points[1].others[0].is_none());
    assert_eq!(c.only_in, vec![("a".to_string(), vec!["x.b".to_string()]), ("b".into(), vec!["y.c".into()])]);
    assert_eq!(family_of("sync.faa/runtime:os"), "sync");
    assert_eq!(family_of("BM_memcpy/64"), "BM_memcpy");
}

#[test]
fn records_of_another_build_are_a_finding_and_one_build_is_not() {
    let a = side("a", &[("sync.faa/runtime:os", 100.0, 1.0)], none());
    let same = scaled(&a, "same", 1.0);
    let mut other = scaled(&a, "other", 1.0);
    other.runs[0].config.as_mut().unwrap().build = "b2".into();
    let c = compare(&[a, same, other]);
    assert_eq!(c.build_findings.len(), 1, "{:?}", c.build_findings);
    assert!(
        c.build_findings[0].starts_with("other (b2) and a (b) come from different builds"),
        "{}",
        c.build_findings[0]
    );
}

#[test]
fn on_nulls_the_control_keeps_false_flags_rare_and_the_raw_tests_show_what_it_controls() {
    // 400 points whose sides differ only by their within-run errors (±3% CIs from 5 processes): any flag
    // is false. Twenty comparisons: flags after the control stay at most 5% of points (most comparisons
    // flag none), while about 5% fall below p = 0.05 before it.
    let mut rng = overhead_stats::synthetic::Rng::new(5);
    let (mut flagged, mut raw, mut compared) = (0, 0, 0);
    for _ in 0..20 {
        let mut draw = |label: &str| {
            let points: BTreeMap<String, PointRunSummary> = (0..400)
                .map(|i| {
                    let sd = 0.03 / 2.776; // a ±3% CI from 5 processes: t(4)·se
                    let m = 100.0 * (sd * rng.normal()).exp();
                    let p = PointRunSummary { median_ns: m, ci_low_ns: m * 0.97, ci_high_ns: m * 1.03, processes: 5 };
                    (format!("x.p{i}"), p)
                })
                .collect();
            ComparedRuns { label: label.into(), runs: vec![run(label, points, Some(0.25))], level: none() }
        };
        let (a, b) = (draw("a"), draw("b"));
        let m = compare(&[a, b]).multiplicity[0];
        (flagged, raw, compared) = (flagged + m.flagged, raw + m.raw, compared + m.compared);
    }
    assert!(flagged as f64 <= 0.05 * compared as f64, "{flagged} of {compared} flagged");
    assert!(raw as f64 > 0.01 * compared as f64, "{raw} of {compared} below 0.05 unadjusted");
}

/// A cross-core point whose estimates stand for different host states in the two records is left out and
/// counted; one in the same state (within 15%), or with no state on one side, is compared as usual.
#[test]
fn a_point_in_another_host_state_is_left_out_and_counted() {
    let a = side("a", &[("mem.c2c/runtime:os", 50.0, 2.0), ("sched.switch/runtime:os", 3000.0, 50.0)], none());
    let mut b = scaled(&a, "b", 5.0);
    let mut a = a;
    a.runs[0].host_state_rtt_ns.insert("mem.c2c/runtime:os".into(), 53.0);
    b.runs[0].host_state_rtt_ns.insert("mem.c2c/runtime:os".into(), 380.0);
    b.runs[0].host_state_rtt_ns.insert("sched.switch/runtime:os".into(), 55.0);
    let c = compare(&[a.clone(), b.clone()]);
    let c2c = c.points.iter().find(|p| p.name.starts_with("mem.c2c")).unwrap().others[0].clone().unwrap();
    assert_eq!(c2c.host_states_differ, Some((53.0, 380.0)));
    assert!(c2c.ratio.is_none() && !c2c.significant);
    let switch = c.points.iter().find(|p| p.name.starts_with("sched")).unwrap().others[0].clone().unwrap();
    assert!(switch.host_states_differ.is_none() && switch.ratio.is_some(), "no state on the baseline: compared");
    assert_eq!(c.multiplicity[0].state_mismatched, 1);
    assert_eq!(c.multiplicity[0].compared, 1);
    // Its family leaves it out too: the host's move is not the family's change. Alone in its family, the
    // family has no ratio; the sched family, five times slower, has its own.
    let family = |c: &Comparison, name: &str| c.families.iter().find(|f| f.family == name).unwrap().others[0];
    assert!(family(&c, "mem").is_none(), "the mem family holds only the point in another state");
    assert!(family(&c, "sched").is_some_and(|f| (f.ratio.ratio - 5.0).abs() < 0.5), "{:?}", family(&c, "sched"));
    // The same state, read 10% apart in two runs: compared.
    b.runs[0].host_state_rtt_ns.insert("mem.c2c/runtime:os".into(), 58.0);
    let c = compare(&[a, b]);
    assert_eq!(c.multiplicity[0].state_mismatched, 0);
    assert_eq!(c.multiplicity[0].compared, 2);
    assert!(family(&c, "mem").is_some(), "in one state the family counts it again");
}
