//! `overhead crosscheck`: the peer tools beside our matching points (docs/METHOD.md §20).

use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use super::run::{default_out_dir, ensure_writable};
use super::{CrosscheckArgs, TimeSourceChoice, UsageError};
use overhead_clock::{calibrate, Calibration};
use overhead_crosscheck::{crosscheck as run_crosscheck, CrosscheckOptions};
use overhead_experiments::PlanContext;
use overhead_harness::Mode;
use overhead_machine::MachineInfo;
use overhead_orchestrator::{build_plan, select_experiments, select_runtimes, RoundPolicy, RunOptions};
use overhead_record::{ProcessCosts, ToolInfo};

/// Runs the crosscheck and prints its section; exit 0 when it finished (whatever the verdicts), 130 when
/// interrupted.
pub fn crosscheck(args: CrosscheckArgs, build: &overhead_record::BuildStamp) -> anyhow::Result<ExitCode> {
    if args.rounds < 2 {
        return Err(UsageError(format!(
            "--rounds {}: expected at least 2 (a verdict needs rounds to compare)",
            args.rounds
        ))
        .into());
    }
    for path in &args.crossbeam {
        if !path.is_file() {
            return Err(UsageError(format!("--crossbeam {}: no such program; build it first", path.display())).into());
        }
    }
    let machine = MachineInfo::detect();
    let cpus = machine.allowed_cpus.clone();
    let ctx = PlanContext { cpus, topology: machine.topology.clone(), mode: Mode::Default, hosts: Vec::new() };
    let plan = build_plan(
        &select_experiments(&[]).map_err(UsageError)?,
        &select_runtimes(&[]).map_err(UsageError)?,
        false,
        &ctx,
    );
    let out_dir = args.out.clone().unwrap_or_else(|| {
        let dir = default_out_dir(&machine.host_name);
        dir.with_file_name(format!(
            "crosscheck-{}",
            dir.file_name().map_or(String::new(), |n| n.to_string_lossy().into_owned())
        ))
    });
    ensure_writable(&out_dir)?;
    let interrupted = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&interrupted);
    ctrlc::set_handler(move || flag.store(true, std::sync::atomic::Ordering::SeqCst))?;
    let time_source = calibrate(args.time.time_source == TimeSourceChoice::Clock, Calibration::DEFAULT);
    let run = RunOptions {
        mode: Mode::Default,
        plan,
        machine,
        time_source,
        out_dir,
        point_timeout: Duration::from_secs(120),
        rounds: RoundPolicy::for_mode(Mode::Default),
        command_line: std::env::args().collect(),
        launch: overhead_launch::LaunchSettings::default(),
        tool: ToolInfo::from_stamp(build),
        costs: ProcessCosts::default(),
        sides: Vec::new(),
        side_skips: Default::default(),
    };
    let outcome =
        run_crosscheck(CrosscheckOptions { run, rounds: args.rounds, crossbeam: args.crossbeam }, &interrupted)?;
    print!("{}", overhead_report::crosscheck_text(&outcome.record));
    println!("{}", outcome.path.display());
    if outcome.record.interrupted {
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}
