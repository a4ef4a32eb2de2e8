//! What fails a comparison in CI (`overhead compare … --fail-on slower[:PCT]`): a flagged slowdown of at
//! least a threshold, per family — or per point with `--fail-on-points` — as benchmark gates in CI ask "did
//! this change make something slower?". Only flagged changes count: a flag has survived the control for
//! multiple comparisons (Benjamini–Hochberg at 5%), so the gate's false alarms are as rare as the flags'.

use overhead_record::{SideRatio, SideScope};

use super::compare::Comparison;

/// The default threshold: 5% slower.
pub const DEFAULT_SLOWER: f64 = 0.05;

/// A gate: fail on a flagged slowdown of at least `threshold` (0.05 = 5%) in a family, or in a point when
/// `points` is set; and, with `max_unjudged`, when more than that share of the points could not be judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gate {
    pub threshold: f64,
    pub points: bool,
    /// The largest share of points (0–1) the gate may leave unjudged before it fails (`--fail-on-unjudged
    /// PCT`); `None`: unjudged points are counted and said, never a failure.
    pub max_unjudged: Option<f64>,
}

/// How many points a comparison could judge: a point is unjudged when it has no ratio with an interval
/// (too few processes on a side, a CI that reaches zero, different host states, missing on a side). A gate
/// that passes with most points unjudged has said nothing; the verdict line says how many.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Judged {
    /// Point comparisons made (a point against each other side or record).
    pub points: usize,
    /// Of them, those without a ratio and interval.
    pub unjudged: usize,
}

impl Judged {
    /// The unjudged share, 0–1 (0 with no point).
    pub fn unjudged_share(&self) -> f64 {
        if self.points == 0 {
            0.0
        } else {
            self.unjudged as f64 / self.points as f64
        }
    }

    /// "the gate judged 366 of 594 points; 228 not judged (38.4%)".
    pub fn verdict_line(&self) -> String {
        let judged = self.points - self.unjudged;
        if self.unjudged == 0 {
            format!("the gate judged all {} points", self.points)
        } else {
            format!(
                "the gate judged {judged} of {} points; {} not judged ({:.1}%: too few processes, an interval \
                 reaching zero, different host states, or missing on a side)",
                self.points,
                self.unjudged,
                self.unjudged_share() * 100.0
            )
        }
    }

    /// The points of a run's sides against its baseline (`sides.ratios`, the point rows).
    pub fn of_sides(ratios: &[SideRatio]) -> Judged {
        let points = ratios.iter().filter(|r| r.scope == SideScope::Point);
        let (total, unjudged) = points.fold((0, 0), |(t, u), r| (t + 1, u + usize::from(r.not_compared.is_some())));
        Judged { points: total, unjudged }
    }

    /// The baseline's points against each other record.
    pub fn of_comparison(c: &Comparison) -> Judged {
        let versus = c.points.iter().flat_map(|p| &p.others);
        let (total, unjudged) = versus.fold((0, 0), |(t, u), v| {
            let judged = v.as_ref().is_some_and(|v| v.ratio.is_some() && v.host_states_differ.is_none());
            (t + 1, u + usize::from(!judged))
        });
        Judged { points: total, unjudged }
    }
}

/// What failed when too many points went unjudged.
pub fn unjudged_failure(judged: Judged, gate: Gate) -> Option<String> {
    let limit = gate.max_unjudged?;
    (judged.unjudged_share() > limit).then(|| {
        format!(
            "{} of {} points not judged ({:.1}%), more than --fail-on-unjudged {:.1}%",
            judged.unjudged,
            judged.points,
            judged.unjudged_share() * 100.0,
            limit * 100.0
        )
    })
}

impl Gate {
    /// `slower`, `slower:5%` or `slower:5` (percent).
    ///
    /// Errors: anything else, in words naming what was expected.
    pub fn parse(spec: &str, points: bool) -> Result<Gate, String> {
        let bad = || format!("--fail-on {spec}: expected slower or slower:PCT (e.g. slower:5%)");
        let threshold = match spec.split_once(':') {
            None if spec == "slower" => DEFAULT_SLOWER,
            Some(("slower", pct)) => {
                let pct: f64 = pct.trim_end_matches('%').parse().map_err(|_| bad())?;
                if !(pct.is_finite() && pct >= 0.0) {
                    return Err(bad());
                }
                pct / 100.0
            }
            _ => return Err(bad()),
        };
        Ok(Gate { threshold, points, max_unjudged: None })
    }

    /// The gate failing also when more than `pct` percent of the points are unjudged (`--fail-on-unjudged
    /// PCT`, `5` or `5%`).
    ///
    /// Errors: not a percentage from 0 to 100, in words naming the flag.
    pub fn with_max_unjudged(mut self, pct: &str) -> Result<Gate, String> {
        let bad = || format!("--fail-on-unjudged {pct}: expected a percentage from 0 to 100 (e.g. 5 or 5%)");
        let value: f64 = pct.trim_end_matches('%').parse().map_err(|_| bad())?;
        if !(0.0..=100.0).contains(&value) {
            return Err(bad());
        }
        self.max_unjudged = Some(value / 100.0);
        Ok(self)
    }

    fn fails(&self, scope: SideScope, ratio: f64, flagged: bool) -> bool {
        let in_scope = scope == SideScope::Family || self.points;
        in_scope && flagged && ratio.is_finite() && ratio >= 1.0 + self.threshold
    }
}

/// One change that fails the gate: "family sched: b ÷ a = 1.120".
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// `family` or `point`.
    pub scope: &'static str,
    pub name: String,
    /// The side or record compared with the baseline.
    pub against: String,
    /// Its ratio to the baseline (1.12 = 12% slower).
    pub ratio: f64,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}: {} is {:+.1}% slower than the baseline (flagged)",
            self.scope,
            self.name,
            self.against,
            (self.ratio - 1.0) * 100.0
        )
    }
}

/// The failures among a run's sides against its baseline (`sides.ratios`).
pub fn side_failures(ratios: &[SideRatio], gate: Gate) -> Vec<Failure> {
    ratios
        .iter()
        .filter(|r| gate.fails(r.scope, r.ratio, r.flagged))
        .map(|r| Failure {
            scope: if r.scope == SideScope::Family { "family" } else { "point" },
            name: r.name.clone(),
            against: r.side.clone(),
            ratio: r.ratio,
        })
        .collect()
}

/// The failures among records compared with a baseline.
pub fn comparison_failures(c: &Comparison, gate: Gate) -> Vec<Failure> {
    let labels = &c.labels[1..];
    let families = c.families.iter().flat_map(|f| {
        f.others.iter().zip(labels).filter_map(move |(v, label)| {
            let v = v.as_ref()?;
            gate.fails(SideScope::Family, v.ratio.ratio, v.flagged).then(|| Failure {
                scope: "family",
                name: f.family.clone(),
                against: label.clone(),
                ratio: v.ratio.ratio,
            })
        })
    });
    let points = c.points.iter().flat_map(|p| {
        p.others.iter().zip(labels).filter_map(move |(v, label)| {
            let v = v.as_ref()?;
            let ratio = v.ratio?.ratio;
            gate.fails(SideScope::Point, ratio, v.significant).then(|| Failure {
                scope: "point",
                name: p.name.clone(),
                against: label.clone(),
                ratio,
            })
        })
    });
    families.chain(points).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use overhead_record::fixture::side_ratio as ratio;

    #[test]
    fn a_gate_is_read_from_its_spec_and_refuses_others_by_name() {
        assert_eq!(Gate::parse("slower", false).unwrap().threshold, 0.05);
        assert_eq!(Gate::parse("slower:10%", false).unwrap().threshold, 0.10);
        assert_eq!(
            Gate::parse("slower:2.5", true).unwrap(),
            Gate { threshold: 0.025, points: true, max_unjudged: None }
        );
        for bad in ["faster", "slower:x", "slower:-3%", ""] {
            assert!(Gate::parse(bad, false).unwrap_err().contains("expected slower"), "{bad}");
        }
    }

    #[test]
    fn only_flagged_slowdowns_past_the_threshold_fail_and_points_only_when_asked() {
        let ratios = [
            ratio(SideScope::Family, "sched", 1.12, true),
            ratio(SideScope::Family, "msg", 1.03, true),
            ratio(SideScope::Family, "sync", 1.20, false),
            ratio(SideScope::Family, "mem", 0.80, true),
            ratio(SideScope::Point, "sched.switch/runtime:os", 1.30, true),
        ];
        let families = side_failures(&ratios, Gate::parse("slower", false).unwrap());
        assert_eq!(families.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), ["sched"]);
        assert!(families[0].to_string().contains("family sched: b is +12.0% slower"), "{}", families[0]);
        let with_points = side_failures(&ratios, Gate::parse("slower:5%", true).unwrap());
        assert_eq!(with_points.len(), 2);
        assert!(side_failures(&ratios, Gate::parse("slower:15%", false).unwrap()).is_empty());
    }

    /// The two-side A/A record of the 16-CPU machine: 594 points, 228 not compared; the gate says so, and
    /// fails on it only when asked to, past its threshold.
    #[test]
    fn unjudged_points_are_counted_and_fail_only_past_the_threshold() {
        let mut ratios: Vec<SideRatio> =
            (0..594).map(|i| ratio(SideScope::Point, &format!("p{i}"), 1.0, false)).collect();
        for r in ratios.iter_mut().take(228) {
            r.not_compared = Some("1 process on a side".into());
        }
        ratios.push(ratio(SideScope::Family, "msg", 1.0, false));
        let judged = Judged::of_sides(&ratios);
        assert_eq!(judged, Judged { points: 594, unjudged: 228 });
        assert!(judged.verdict_line().starts_with("the gate judged 366 of 594 points; 228 not judged (38.4%"));
        let gate = Gate::parse("slower", false).unwrap();
        assert_eq!(unjudged_failure(judged, gate), None, "without --fail-on-unjudged, counted only");
        assert!(unjudged_failure(judged, gate.with_max_unjudged("40").unwrap()).is_none());
        let failure = unjudged_failure(judged, gate.with_max_unjudged("5%").unwrap()).unwrap();
        assert!(failure.contains("228 of 594 points not judged"), "{failure}");
        assert!(Judged::of_sides(&ratios[228..]).verdict_line().contains("all 366 points"));
        for bad in ["x", "-1", "101"] {
            assert!(gate.with_max_unjudged(bad).unwrap_err().contains("--fail-on-unjudged"), "{bad}");
        }
    }
}
