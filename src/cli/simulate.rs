//! `overhead run --plan --simulate RECORD [--topology FILE]`: the plan for a machine (the record's, or one
//! described in `lscpu -p` form) run through the real schedule on a simulated clock, each process costing what
//! the recorded run's did (docs/METHOD.md "The schedule, simulated").

use std::path::Path;
use std::process::ExitCode;

use super::run::{round_policy, usable_cpus};
use super::{RunArgs, UsageError};
use overhead_experiments::{Experiment, PlanContext, Planned};
use overhead_machine::Topology;
use overhead_orchestrator::{build_plan_where, parse_side, simulate, RecordedCosts, Schedule};
use overhead_runtime_api::RuntimeUnderTest;

/// Simulates the run `args` describe with `record`'s process costs; prints each point with the processes it
/// would get, what the run would say on stderr, and the closing `simulated: …` line.
///
/// Errors: a record that does not load or keeps no process times, a topology file that does not read, a
/// `--cpus`, `--side` or `--budget` that does not; each names the input.
pub fn simulate_run(
    args: &RunArgs,
    record_path: &Path,
    experiments: &[&'static dyn Experiment],
    runtimes: &[&'static dyn RuntimeUnderTest],
) -> anyhow::Result<ExitCode> {
    let shown = record_path.display();
    let record = overhead_record::load(record_path).map_err(|e| UsageError(format!("--simulate {shown}: {e}")))?;
    let costs = RecordedCosts::of(&record).map_err(|e| UsageError(format!("--simulate {shown}: {e}")))?;
    if let Some(path) = &args.simulate_save_costs {
        let json = serde_json::to_string(&costs)?;
        std::fs::write(path, json + "\n")
            .map_err(|e| UsageError(format!("--simulate-save-costs {}: cannot be written: {e}", path.display())))?;
    }
    let topology = match &args.topology {
        Some(path) => described_topology(path)?,
        None => record.machine.topology.clone(),
    };
    let all: Vec<usize> = topology.cpus.iter().map(|c| c.cpu).collect();
    let cpus = usable_cpus(args.cpus.as_deref(), &all)?;
    let ctx = PlanContext { cpus, topology, mode: args.mode(), hosts: Vec::new() };
    // A runtime is available where the recorded machine had it: this machine's toolchains do not matter.
    let available = |runtime: &dyn RuntimeUnderTest| match costs.unavailable_runtimes.contains(runtime.name()) {
        true => Err("not available on the recorded machine".to_string()),
        false => Ok(()),
    };
    let plan: Vec<Planned> = build_plan_where(experiments, runtimes, !args.runtime.is_empty(), &ctx, &available);
    let sides: Vec<String> =
        args.side.iter().map(|v| parse_side(v).map(|s| s.name)).collect::<Result<_, _>>().map_err(UsageError)?;
    let rounds = round_policy(args, &plan, sides.len(), &|| {
        let all_runtimes = overhead_orchestrator::select_runtimes(&[]).map_err(UsageError)?;
        Ok(build_plan_where(overhead_experiments::registry(), &all_runtimes, false, &ctx, &available))
    })?;
    let schedule =
        Schedule::named(&args.simulate_schedule).map_err(|e| UsageError(format!("--simulate-schedule: {e}")))?;
    eprintln!(
        "the recorded run: {} points, {} processes, its last probe ending at {:.1} s; between probes {:.2} ms + {:.4} \
         ms per process done, a rewrite of the record {:.0} ms + {:.3} ms per process done",
        record.points.len(),
        costs.processes,
        costs.wall_s,
        costs.between_ms[0],
        costs.between_ms[1],
        costs.write_ms[0],
        costs.write_ms[1]
    );
    let simulation = simulate(plan, &sides, rounds, schedule, &costs, record)
        .map_err(|e| UsageError(format!("--simulate {shown}: {e}")))?;
    for line in &simulation.said {
        eprintln!("{line}");
    }
    print!("{}", simulation.listing());
    println!("{}", simulation.last_line());
    Ok(ExitCode::SUCCESS)
}

/// The topology `path` describes in `lscpu -p` form.
///
/// Errors: the file cannot be read or does not describe a topology, naming it.
fn described_topology(path: &Path) -> Result<Topology, UsageError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError(format!("--topology {}: cannot be read: {e}", path.display())))?;
    Topology::from_lscpu(&text).map_err(|e| {
        UsageError(format!(
            "--topology {}: {e}; expected `lscpu -p` output, optionally followed by `lscpu -C`'s",
            path.display()
        ))
    })
}
