//! Each side planned in its own environment (docs/METHOD.md §17): a side that sets `JAVA_HOME` to another JDK,
//! or runs another build, may run points this process cannot plan (virtual threads need JDK ≥ 21) and skip
//! points this process runs. Every side is asked for its plan with its own environment and binary
//! (`overhead run --plan-json`, the run's own selection); a point that any side can run is in the run's plan,
//! and on a side that cannot run it the point is a skipped cell with that side's reason.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde::{Deserialize, Serialize};

use overhead_experiments::Planned;
use overhead_record::PointSpec;

use super::sides::SideRun;

/// One line of `overhead run --plan-json`: a point, and why it cannot run here when it cannot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanLine {
    pub spec: PointSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip: Option<String>,
}

/// `plan` as `--plan-json` prints it: one JSON line per point or skipped cell, in plan order.
pub fn plan_json(plan: &[Planned]) -> String {
    plan.iter()
        .map(|p| {
            let line = match p {
                Planned::Run(spec) => PlanLine { spec: spec.clone(), skip: None },
                Planned::Skip(spec, reason) => PlanLine { spec: spec.clone(), skip: Some(reason.clone()) },
            };
            serde_json::to_string(&line).expect("a plan line serialises") + "\n"
        })
        .collect()
}

/// Per point name, the sides (by index) that cannot run it and their reasons.
pub type SideSkips = BTreeMap<String, Vec<(usize, String)>>;

/// The plan of `side` in its own environment: `own` when it is this binary with no environment of its own
/// (planning it again would say the same), else its binary's `run --plan-json` with `args` (the run's
/// selection: mode, `--only`, `--runtime`, `--cpus`, hosts).
///
/// Errors: the side's binary could not be started, failed, or printed no plan (an older build without
/// `--plan-json`): said with the side's name, so the run can go on with the first side's plan. Its points
/// read under today's names (`overhead_record::legacy::upgrade_spec`).
pub fn plan_of(side: &SideRun, this: &Path, own: &[Planned], args: &[String]) -> Result<Vec<Planned>, String> {
    if side.exe == this && side.spec.env.is_empty() {
        return Ok(own.to_vec());
    }
    let mut command = Command::new(&side.exe);
    command.arg("run").arg("--plan-json").args(args);
    command.envs(side.spec.env.iter().map(|(k, v)| (k, v)));
    let out = command
        .output()
        .map_err(|e| format!("side {}: {} could not start ({e})", side.spec.name, side.exe.display()))?;
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or_default().to_string();
        return Err(format!("side {}: no plan of its own ({why})", side.spec.name));
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            read_plan_line(l).map_err(|e| format!("side {}: a plan line that does not read ({e})", side.spec.name))
        })
        .collect()
}

/// One line of a side's `--plan-json`, its point under today's name: an older build names some points as its
/// records did (tokio's without `flavor:`); read as today's, they pair with this build's points, and its probe,
/// which ignores parameters it does not know, measures what it always measured under them.
///
/// Errors: the line is not a plan line.
fn read_plan_line(text: &str) -> Result<Planned, serde_json::Error> {
    let mut line: PlanLine = serde_json::from_str(text)?;
    overhead_record::legacy::upgrade_spec(&mut line.spec);
    Ok(match line.skip {
        None => Planned::Run(line.spec),
        Some(reason) => Planned::Skip(line.spec, reason),
    })
}

/// Whether `spec` lies in the cell `cell` (a skipped cell's spec names its experiment and runtime, and may
/// name some parameters): same experiment and runtime, and every parameter of the cell has the spec's value.
fn in_cell(spec: &PointSpec, cell: &PointSpec) -> bool {
    spec.experiment == cell.experiment
        && spec.runtime == cell.runtime
        && cell.params.iter().all(|(k, v)| spec.param(k) == Some(v.as_str()))
}

/// The reason `plan` gives for not running `spec`: its skipped cell's, or that it is not in the plan.
fn reason_in(plan: &[Planned], spec: &PointSpec) -> String {
    plan.iter()
        .find_map(|p| match p {
            Planned::Skip(cell, reason) if in_cell(spec, cell) => Some(reason.clone()),
            _ => None,
        })
        .unwrap_or_else(|| "not in its plan".to_string())
}

/// The run's plan from every side's (`plans[0]` the first side's): the first side's points in its order, each
/// cell it skips replaced by the points another side plans in that cell (in that side's order), and every
/// other point another side plans that the first neither runs nor skips (a newer build's point, an
/// experiment the first lacks) after the last point of its experiment, or at the end; and, per point, the
/// sides that cannot run it with their reasons. A cell no side can run stays skipped with the first side's
/// reason.
pub fn merge(plans: &[Vec<Planned>]) -> (Vec<Planned>, SideSkips) {
    let Some((first, others)) = plans.split_first() else { return (Vec::new(), SideSkips::new()) };
    let mut merged: Vec<Planned> = Vec::new();
    for planned in first {
        match planned {
            Planned::Run(spec) => merged.push(Planned::Run(spec.clone())),
            Planned::Skip(cell, reason) => {
                let mut elsewhere: Vec<PointSpec> = Vec::new();
                for plan in others {
                    for p in plan {
                        if let Planned::Run(spec) = p {
                            if in_cell(spec, cell) && !elsewhere.iter().any(|e| e.name() == spec.name()) {
                                elsewhere.push(spec.clone());
                            }
                        }
                    }
                }
                if elsewhere.is_empty() {
                    merged.push(Planned::Skip(cell.clone(), reason.clone()));
                }
                merged.extend(elsewhere.into_iter().map(Planned::Run));
            }
        }
    }
    for plan in others {
        for p in plan {
            let Planned::Run(spec) = p else { continue };
            let named = |m: &Planned| matches!(m, Planned::Run(s) if s.name() == spec.name());
            if merged.iter().any(named) {
                continue;
            }
            let of_experiment = |m: &Planned| match m {
                Planned::Run(s) | Planned::Skip(s, _) => s.experiment == spec.experiment,
            };
            let at = merged.iter().rposition(of_experiment).map_or(merged.len(), |i| i + 1);
            merged.insert(at, Planned::Run(spec.clone()));
        }
    }
    let mut skips = SideSkips::new();
    for planned in &merged {
        let Planned::Run(spec) = planned else { continue };
        let name = spec.name();
        for (side, plan) in plans.iter().enumerate() {
            let runs = plan.iter().any(|p| matches!(p, Planned::Run(s) if s.name() == name));
            if !runs {
                skips.entry(name.clone()).or_default().push((side, reason_in(plan, spec)));
            }
        }
    }
    (merged, skips)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(runtime: &str, mechanism: Option<&str>) -> PointSpec {
        let params = mechanism.map(|m| vec![("mechanism".to_string(), m.to_string())]).unwrap_or_default();
        PointSpec {
            experiment: "sched.switch".into(),
            runtime: runtime.into(),
            params,
            cpus: vec![0],
            placement: None,
            hosts: Vec::new(),
        }
    }

    /// JDK 17 (the first side) skips java-virtual's cell; JDK 25 runs two of its points and cannot run a
    /// java-platform point the first side runs: the run plans all three, each side skipping what it cannot.
    #[test]
    fn a_point_any_side_can_run_is_planned_and_skipped_where_it_cannot_run() {
        let jdk17 = vec![
            Planned::Run(spec("java-platform", Some("park"))),
            Planned::Run(spec("java-platform", Some("spin"))),
            Planned::Skip(spec("java-virtual", None), "virtual threads need JDK ≥ 21; java is JDK 17".into()),
        ];
        let jdk25 = vec![
            Planned::Run(spec("java-platform", Some("park"))),
            Planned::Skip(spec("java-platform", Some("spin")), "no spin here".into()),
            Planned::Run(spec("java-virtual", Some("yield"))),
            Planned::Run(spec("java-virtual", Some("park"))),
        ];
        let (plan, skips) = merge(&[jdk17.clone(), jdk25]);
        let names: Vec<String> = plan
            .iter()
            .map(|p| match p {
                Planned::Run(s) => s.name(),
                Planned::Skip(s, _) => format!("skip {}", s.name()),
            })
            .collect();
        assert_eq!(
            names,
            [
                "sched.switch/runtime:java-platform/mechanism:park",
                "sched.switch/runtime:java-platform/mechanism:spin",
                "sched.switch/runtime:java-virtual/mechanism:yield",
                "sched.switch/runtime:java-virtual/mechanism:park",
            ]
        );
        assert_eq!(skips["sched.switch/runtime:java-platform/mechanism:spin"], [(1, "no spin here".to_string())]);
        let virtual_yield = &skips["sched.switch/runtime:java-virtual/mechanism:yield"];
        assert_eq!(virtual_yield, &[(0, "virtual threads need JDK ≥ 21; java is JDK 17".to_string())]);
        assert!(!skips.contains_key("sched.switch/runtime:java-platform/mechanism:park"));
        // One side alone: its own plan, nothing skipped per side.
        let (alone, none) = merge(std::slice::from_ref(&jdk17));
        assert_eq!(alone, jdk17);
        assert!(none.is_empty());
    }

    /// An older build's tokio point, named before the flavors, reads as the flavor it measures.
    #[test]
    fn an_older_builds_plan_line_reads_under_todays_name() {
        let old = r#"{"spec":{"experiment":"spawn.bulk","runtime":"tokio","params":[["tasks","1000"],["threads","1"]],"cpus":[0],"placement":null}}"#;
        let Planned::Run(spec) = read_plan_line(old).unwrap() else { panic!("a point to run") };
        assert_eq!(spec.name(), "spawn.bulk/runtime:tokio/flavor:multi_thread/tasks:1000/threads:1");
        assert!(read_plan_line("not json").is_err());
    }

    /// A point only a newer side plans, in a cell the first side neither runs nor skips, joins the plan after
    /// the last point of its experiment, and the first side is said not to have it.
    #[test]
    fn a_point_only_another_side_plans_joins_after_its_experiment() {
        let older = vec![Planned::Run(spec("os", Some("futex"))), Planned::Run(spec("tokio", Some("yield")))];
        let mut other_experiment = spec("os", Some("futex"));
        other_experiment.experiment = "sched.yield".into();
        let newer = vec![
            Planned::Run(spec("os", Some("futex"))),
            Planned::Run(spec("tokio", Some("yield"))),
            Planned::Run(spec("tokio", Some("spin"))),
            Planned::Run(other_experiment.clone()),
        ];
        let (plan, skips) = merge(&[older, newer]);
        let names: Vec<String> = plan
            .iter()
            .map(|p| match p {
                Planned::Run(s) | Planned::Skip(s, _) => s.name(),
            })
            .collect();
        assert_eq!(
            names,
            [
                "sched.switch/runtime:os/mechanism:futex",
                "sched.switch/runtime:tokio/mechanism:yield",
                "sched.switch/runtime:tokio/mechanism:spin",
                "sched.yield/runtime:os/mechanism:futex",
            ]
        );
        assert_eq!(skips["sched.switch/runtime:tokio/mechanism:spin"], [(0, "not in its plan".to_string())]);
        assert_eq!(skips["sched.yield/runtime:os/mechanism:futex"], [(0, "not in its plan".to_string())]);
    }

    #[test]
    fn a_plan_goes_through_its_json_lines() {
        let plan = vec![Planned::Run(spec("os", Some("futex"))), Planned::Skip(spec("go", None), "no go".into())];
        let text = plan_json(&plan);
        let back: Vec<PlanLine> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(back[0], PlanLine { spec: spec("os", Some("futex")), skip: None });
        assert_eq!(back[1].skip.as_deref(), Some("no go"));
    }
}
