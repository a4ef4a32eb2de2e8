//! The run-level estimator on synthetic runs with known variances.

use std::collections::BTreeMap;

use super::*;
use overhead_record::{PointRunSummary, RunConfig};
use overhead_stats::synthetic::Rng;

/// Runs of one configuration: `points` points of family `family`, point k with within-run standard error
/// `se` (log scale), its own run-level deviation `sigma` and the family's shift `tau` per run; the reported
/// median is the truth times the three errors, its CI ±1.96·se around it.
pub fn simulate(
    rng: &mut Rng,
    config: &str,
    runs: usize,
    family: &str,
    points: usize,
    (se, sigma, tau): (f64, f64, f64),
    level: f64,
) -> Vec<RunSummary> {
    // Each point's true value and its fixed "own" deviations per run.
    (0..runs)
        .map(|r| {
            let shift = tau * rng.normal();
            let points: BTreeMap<String, PointRunSummary> = (0..points)
                .map(|k| {
                    let log = (10.0 + k as f64).ln() + level.ln() + shift + sigma * rng.normal() + se * rng.normal();
                    let m = log.exp();
                    let name = format!("{family}.x/runtime:os/k:{k}");
                    (
                        name,
                        PointRunSummary {
                            median_ns: m,
                            ci_low_ns: m * (-Z95 * se).exp(),
                            ci_high_ns: m * (Z95 * se).exp(),
                            processes: 0,
                        },
                    )
                })
                .collect();
            RunSummary {
                label: format!("{config}-{r}"),
                started_utc: String::new(),
                config: Some(RunConfig {
                    machine: "m".into(),
                    kernel: "k".into(),
                    build: "b".into(),
                    options: config.into(),
                }),
                speed_ns: None,
                max_other_share: None,
                max_steal_share: None,
                points,
                process_wall_ms: BTreeMap::new(),
                host_state_rtt_ns: Default::default(),
            }
        })
        .collect()
}

#[test]
fn six_runs_recover_a_known_run_level_within_30_percent() {
    // sd beyond the within-run error: the point's own 2% and the family's shared 1.5%.
    let (se, sigma, tau) = (0.015, 0.02, 0.015);
    let mut worst: f64 = 0.0;
    for seed in 1..=20 {
        let mut rng = Rng::new(seed);
        let runs = simulate(&mut rng, "a", 6, "sync", 150, (se, sigma, tau), 1.0);
        let level = RunLevel::estimate(&[runs.iter().collect()], RunLevelSource::History { runs: 6, groups: 1 });
        let f = level.family("sync");
        let (lambda, tau2) = f.data.expect("data");
        let run_level_sd = (lambda * se * se + tau2).sqrt();
        let truth = (sigma * sigma + tau * tau).sqrt();
        worst = worst.max((run_level_sd / truth - 1.0).abs());
        assert!(f.df == 5.0);
    }
    assert!(worst < 0.3, "the run-level sd was off by {:.0}% in the worst of 20 seeds", worst * 100.0);
}

#[test]
fn the_moderated_estimate_lies_between_the_defaults_and_the_data() {
    let mut rng = Rng::new(7);
    let runs = simulate(&mut rng, "a", 6, "sync", 150, (0.01, 0.04, 0.05), 1.0);
    let level = RunLevel::estimate(&[runs.iter().collect()], RunLevelSource::History { runs: 6, groups: 1 });
    let f = level.family("sync");
    let (lambda_data, tau2_data) = f.data.unwrap();
    let (lambda_default, tau_default) = default_of("sync");
    assert!(f.lambda > lambda_default && f.lambda < lambda_data, "{f:?}");
    assert!(f.shift_var > tau_default.powi(2) && f.shift_var < tau2_data, "{f:?}");
    // A point's own data move its variance off its family's prior.
    let name = runs[0].points.keys().next().unwrap();
    assert!(level.point_var(name, 1e-4) > 1e-4 * f.lambda * 0.1);
}

#[test]
fn two_configurations_in_the_history_do_not_inflate_the_run_level() {
    let mut rng = Rng::new(3);
    let params = (0.01, 0.01, 0.01);
    let a = simulate(&mut rng, "a", 6, "msg", 100, params, 1.0);
    // The same points measured in another configuration, 50% slower: a real difference, not noise.
    let b = simulate(&mut rng, "b", 6, "msg", 100, params, 1.5);
    let alone = RunLevel::estimate(&[a.iter().collect()], RunLevelSource::History { runs: 6, groups: 1 });
    let both =
        RunLevel::estimate(&[a.iter().collect(), b.iter().collect()], RunLevelSource::History { runs: 12, groups: 2 });
    let (fa, fb) = (alone.family("msg").data.unwrap(), both.family("msg").data.unwrap());
    let sd = |(l, t): (f64, f64)| (l * 1e-4 + t).sqrt();
    assert!(sd(fb) < 1.3 * sd(fa) && sd(fb) < 0.03, "alone {fa:?}, with another configuration {fb:?}");
    // Mixed into one group, the difference would have been taken for noise.
    let mixed: Vec<&RunSummary> = a.iter().chain(&b).collect();
    let wrong = RunLevel::estimate(&[mixed], RunLevelSource::History { runs: 12, groups: 1 });
    assert!(sd(wrong.family("msg").data.unwrap()) > 0.1, "the check can fail");
}

#[test]
fn without_repetitions_the_defaults_hold_and_say_so() {
    let level = RunLevel::assumed();
    let (lambda, tau) = default_of("mem");
    assert_eq!(level.family("mem").shift_var, tau * tau);
    assert_eq!(level.point_var("mem.c2c/runtime:os", 2e-4), lambda * 2e-4);
    assert_eq!(default_of("no-such-family"), default_of("other"));
    assert!(level.source.describe().starts_with("assumed"));
    // One run per configuration is no repetition.
    let mut rng = Rng::new(1);
    let one = simulate(&mut rng, "a", 1, "sync", 10, (0.01, 0.01, 0.01), 1.0);
    let level = RunLevel::estimate(&[one.iter().collect()], RunLevelSource::History { runs: 1, groups: 1 });
    assert!(level.families.is_empty());
}

#[test]
fn the_speed_covariate_is_chosen_only_where_the_speed_explains_the_shift() {
    let mut rng = Rng::new(11);
    let mut runs = simulate(&mut rng, "a", 8, "sched", 50, (0.005, 0.0, 0.0), 1.0);
    let mut flat = runs.clone();
    // sched follows the speed one to one; in `flat` the speed moves and the points do not.
    for (k, r) in runs.iter_mut().enumerate() {
        let speed = 0.23 * (1.0 + 0.02 * (k as f64 - 3.5));
        r.speed_ns = Some(speed);
        for p in r.points.values_mut() {
            let f = speed / 0.23;
            (p.median_ns, p.ci_low_ns, p.ci_high_ns) = (p.median_ns * f, p.ci_low_ns * f, p.ci_high_ns * f);
        }
    }
    for (k, r) in flat.iter_mut().enumerate() {
        r.speed_ns = Some(0.23 * (1.0 + 0.02 * (k as f64 - 3.5)));
    }
    let level = RunLevel::estimate(&[runs.iter().collect()], RunLevelSource::History { runs: 8, groups: 1 });
    let f = level.family("sched");
    assert!(f.speed_slope.is_some_and(|s| (s - 1.0).abs() < 0.1), "{f:?}");
    assert!(f.speed_decision.starts_with("used"), "{}", f.speed_decision);
    assert!(f.data.unwrap().1 < 1e-5, "the adjusted shift is small: {f:?}");
    let level = RunLevel::estimate(&[flat.iter().collect()], RunLevelSource::History { runs: 8, groups: 1 });
    assert!(level.family("sched").speed_slope.is_none(), "{:?}", level.family("sched"));
}

#[test]
fn runs_flagged_as_shared_are_left_out_of_the_run_level_and_counted() {
    let entry = |id: u32, other: f64| {
        let mut s =
            overhead_record::fixture::run_summary("r", &[("base.loop/runtime:os", 100.0 + f64::from(id))], 0.01);
        s.max_other_share = Some(other);
        s
    };
    let quiet: Vec<RunSummary> = (0..3).map(|i| entry(i, 0.01)).collect();
    let level = of_history(quiet.iter());
    assert_eq!((level.source.runs(), level.shared_left_out), (3, 0));
    let mut mixed = quiet.clone();
    mixed.push(entry(3, 0.45));
    mixed.push(entry(4, 0.30));
    let level = of_history(mixed.iter());
    assert_eq!((level.source.runs(), level.shared_left_out), (3, 2), "the two shared runs are not repetitions");
    assert!(level.description().contains("2 run(s) the machine-state check flagged as shared left out"));
    assert!(!quiet[0].was_shared() && mixed[3].was_shared());
}
