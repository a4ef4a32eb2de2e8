//! What fails a comparison in CI (`overhead compare … --fail-on slower[:PCT]`): a flagged slowdown of at
//! least a threshold, per family — or per point with `--fail-on-points` — as benchmark gates in CI ask "did
//! this change make something slower?". Only flagged changes count: a flag has survived the control for
//! multiple comparisons (Benjamini–Hochberg at 5%), so the gate's false alarms are as rare as the flags'.

use overhead_record::{SideRatio, SideScope};

use super::compare::Comparison;

/// The default threshold: 5% slower.
pub const DEFAULT_SLOWER: f64 = 0.05;

/// A gate: fail on a flagged slowdown of at least `threshold` (0.05 = 5%) in a family, or in a point when
/// `points` is set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gate {
    pub threshold: f64,
    pub points: bool,
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
        Ok(Gate { threshold, points })
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
        assert_eq!(Gate::parse("slower:2.5", true).unwrap(), Gate { threshold: 0.025, points: true });
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
}
