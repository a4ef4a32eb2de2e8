//! The paired analysis on synthetic runs with known effects: coverage of the point CI on a drifting machine,
//! the multiple-comparison control on nulls, the family verdict, and what cannot be compared.

use super::*;
use overhead_record::fixture::point;
use overhead_record::{SideRecord, SideSpec, SkipKind, ToolInfo, SIDE_ORDER};
use overhead_stats::synthetic::Rng;

/// A point named after `experiment` whose processes, one per round from 1, have these medians (ns).
fn measured(experiment: &str, medians: &[f64]) -> PointRecord {
    let mut p = point(experiment, "os", &[], medians[0]);
    p.processes = overhead_record::fixture::processes(medians);
    p
}

fn tool() -> ToolInfo {
    ToolInfo { name: "overhead".into(), version: "0".into(), git_commit: None, crates: Vec::new() }
}

/// Sides `a` (baseline, its points elsewhere) and `b` with `points`.
fn sides(points: Vec<PointRecord>) -> Sides {
    let side = |name: &str, points| SideRecord {
        spec: SideSpec { name: name.into(), binary: None, env: Vec::new() },
        tool: tool(),
        points,
        skipped: Vec::new(),
        toolchains: Vec::new(),
    };
    Sides { sides: vec![side("a", Vec::new()), side("b", points)], order: SIDE_ORDER.into(), ratios: Vec::new() }
}

/// One simulated point: `k` rounds; the machine's log speed drifts by `drift` sd per round (shared by the
/// pair when `shared`, else drawn again for each process), each process has its own log effect of sd
/// `own`, and side b is `ratio` times side a. Returns the two points.
struct Machine {
    k: usize,
    drift: f64,
    own: f64,
    shared: bool,
}

impl Machine {
    fn pair(&self, rng: &mut Rng, experiment: &str, ratio: f64) -> (PointRecord, PointRecord) {
        let mut level = 0.0;
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..self.k {
            level += self.drift * rng.normal();
            let other = if self.shared { level } else { level + self.drift * rng.normal() };
            a.push(100.0 * (level + self.own * rng.normal()).exp());
            b.push(100.0 * ratio * (other + self.own * rng.normal()).exp());
        }
        (measured(experiment, &a), measured(experiment, &b))
    }
}

#[test]
fn the_point_ci_covers_the_true_ratio_on_a_drifting_machine_whatever_the_pair_shares() {
    for shared in [true, false] {
        let machine = Machine { k: 5, drift: 0.10, own: 0.05, shared };
        let mut rng = Rng::new(if shared { 7 } else { 8 });
        let runs = 1000;
        let covered = (0..runs)
            .filter(|_| {
                let (a, b) = machine.pair(&mut rng, "sync.faa", 1.05);
                let r = side_ratios(std::slice::from_ref(&a), &[], &sides(vec![b]));
                r[0].ci_low <= 1.05 && 1.05 <= r[0].ci_high
            })
            .count();
        let coverage = covered as f64 / runs as f64;
        assert!(coverage >= 0.93, "coverage {coverage} with the drift shared: {shared}");
    }
}

#[test]
fn on_nulls_the_control_flags_at_most_five_percent_of_points() {
    let machine = Machine { k: 5, drift: 0.10, own: 0.05, shared: true };
    let mut rng = Rng::new(11);
    let (mut flagged, mut compared, mut raw) = (0, 0, 0);
    for _ in 0..20 {
        let (base, side): (Vec<_>, Vec<_>) =
            (0..400).map(|i| machine.pair(&mut rng, &format!("f{}.x{i}", i % 10), 1.0)).unzip();
        let ratios = side_ratios(&base, &[], &sides(side));
        let points: Vec<&SideRatio> = ratios.iter().filter(|r| r.scope == SideScope::Point).collect();
        compared += points.len();
        flagged += points.iter().filter(|r| r.flagged).count();
        raw += points.iter().filter(|r| r.p_value < 0.05).count();
    }
    assert!((flagged as f64) / (compared as f64) <= 0.05, "{flagged} of {compared}");
    // Without the control about 5% would be flagged: the test has something to control.
    assert!((raw as f64) / (compared as f64) > 0.03, "{raw} of {compared} below 0.05 unadjusted");
}

#[test]
fn a_five_percent_change_is_flagged_per_family_with_its_ratio_inside_the_ci() {
    let machine = Machine { k: 5, drift: 0.10, own: 0.03, shared: true };
    let mut rng = Rng::new(3);
    let (base, side): (Vec<_>, Vec<_>) = (0..12).map(|i| machine.pair(&mut rng, &format!("sync.x{i}"), 1.05)).unzip();
    let ratios = side_ratios(&base, &[], &sides(side));
    let family = ratios.iter().find(|r| r.scope == SideScope::Family).expect("a family ratio");
    assert_eq!((family.name.as_str(), family.side.as_str(), family.n), ("sync", "b", 12));
    assert!(family.flagged, "{family:?}");
    assert!(family.ci_low <= 1.05 && 1.05 <= family.ci_high, "{family:?}");
    assert!(family.ci_low > 1.0, "{family:?}");
}

#[test]
fn a_point_with_fewer_than_two_positive_pairs_is_listed_not_compared() {
    let a = measured("sync.faa", &[10.0, -1.0, 12.0]);
    let b = measured("sync.faa", &[11.0, 10.0]);
    let r = &side_ratios(std::slice::from_ref(&a), &[], &sides(vec![b]))[0];
    assert_eq!(r.n, 1);
    assert!(!r.flagged && r.ratio.is_nan());
    assert!(r.not_compared.as_deref().is_some_and(|w| w.contains("1 pair(s)")), "{r:?}");
}

#[test]
fn pairs_are_processes_of_the_same_round_and_a_point_one_side_lacks_is_not_compared() {
    let a = measured("sync.faa", &[10.0, 20.0, 40.0]);
    let mut b = measured("sync.faa", &[20.0, 40.0, 80.0]);
    b.processes.remove(0); // side b's round 1 failed: rounds 2 and 3 pair
    assert_eq!(paired_log_ratios(&a, &b), [2f64.ln(), 2f64.ln()]);
    let other = measured("sync.barrier", &[1.0, 1.0]);
    let ratios = side_ratios(&[a, other], &[], &sides(vec![b]));
    let points: Vec<&str> = ratios.iter().filter(|r| r.scope == SideScope::Point).map(|r| r.name.as_str()).collect();
    assert_eq!(points, ["sync.faa/runtime:os"]);
    assert!((ratios[0].ratio - 2.0).abs() < 1e-12 && ratios[0].p_value == 0.0);
}

#[test]
fn a_point_whose_ratio_is_all_noise_does_not_carry_its_family() {
    // Twenty timer points 5% slower on side b, and one whose time sits near zero (stolen time at rate 0):
    // its pairs read ×0.5 at random. The family stays a 5% slowdown, flagged.
    let machine = Machine { k: 5, drift: 0.05, own: 0.02, shared: true };
    let mut rng = Rng::new(21);
    let (mut base, mut side): (Vec<_>, Vec<_>) =
        (0..20).map(|i| machine.pair(&mut rng, &format!("timer.p{i}"), 1.05)).unzip();
    base.push(measured("timer.stolen", &[1.0, 0.01, 2.0, 0.5, 1.0]));
    side.push(measured("timer.stolen", &[0.02, 3.0, 0.1, 0.9, 0.01]));
    let ratios = side_ratios(&base, &[], &sides(side));
    let family = ratios.iter().find(|r| r.scope == SideScope::Family).unwrap();
    assert!(family.flagged && (family.ratio - 1.05).abs() < 0.02, "{family:?}");
}

/// A round whose two processes met different host states is left out of the point's pairs and counted;
/// a process without a state (an older build's side) pairs as before.
#[test]
fn pairs_in_different_host_states_are_left_out_and_counted() {
    let mut base = measured("mem.c2c", &[50.0, 51.0, 49.0, 50.0, 52.0]);
    let mut side = measured("mem.c2c", &[50.5, 250.0, 49.5, 50.0, 51.0]);
    for (q, s) in base.processes.iter_mut().zip([Some(0), Some(0), Some(0), Some(0), None]) {
        q.state = s;
    }
    for (q, s) in side.processes.iter_mut().zip([Some(0), Some(1), Some(0), Some(0), Some(1)]) {
        q.state = s;
    }
    assert_eq!(paired_log_ratios(&base, &side).len(), 4);
    assert_eq!(state_mismatched_pairs(&base, &side), 1);
    let ratios = side_ratios(std::slice::from_ref(&base), &[], &sides(vec![side]));
    let point = ratios.iter().find(|r| r.scope == SideScope::Point).unwrap();
    assert_eq!((point.n, point.state_mismatched_pairs), (4, 1));
    assert!((point.ratio - 1.0).abs() < 0.03, "the 250 ns round is not in the ratio: {point:?}");
}

/// A side planned in its own environment runs a point the baseline skipped (and skips one the baseline ran):
/// each is "not compared", saying on which side it is missing and why, and no verdict is drawn from it.
#[test]
fn a_point_on_one_side_only_is_not_compared_and_says_where_it_is_missing() {
    let base_only = measured("sched.switch", &[50.0, 51.0, 49.0]);
    let mut side_only = measured("msg.call", &[10.0, 11.0, 10.5]);
    side_only.spec.runtime = "java-virtual".into();
    let mut sides = sides(vec![side_only.clone()]);
    sides.sides[1].skipped.push(SkippedPoint::new(base_only.spec.clone(), SkipKind::Skipped, "no spin"));
    let baseline_skipped = [SkippedPoint::new(side_only.spec.clone(), SkipKind::Skipped, "JDK 17")];
    let ratios = side_ratios(std::slice::from_ref(&base_only), &baseline_skipped, &sides);
    let why = |name: String| ratios.iter().find(|r| r.name == name).and_then(|r| r.not_compared.clone());
    assert_eq!(why(base_only.spec.name()).as_deref(), Some("not on side b: no spin"));
    assert_eq!(why(side_only.spec.name()).as_deref(), Some("not on side a: JDK 17"));
    assert!(ratios.iter().all(|r| !r.flagged));
}
