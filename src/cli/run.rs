//! `overhead run`: validate everything the user gave before measuring anything, then run.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use super::{RunArgs, TimeSourceChoice, UsageError};
use crate::clock::{calibrate, Calibration};
use crate::experiments::PlanContext;
use crate::harness::Mode;
use crate::machine::{allowed_cpus, parse_cpu_list, MachineInfo};
use crate::orchestrator::{build_plan, run as run_plan, select_experiments, validate_runtimes, RunOptions};
use crate::report::{render, Format};
use crate::runtimes::IMPLEMENTED;

/// Runs the main job. Exit 0 when the run finished, 130 when interrupted (the record keeps what finished).
pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let mode = args.mode();
    let experiments = select_experiments(&args.only).map_err(UsageError)?;
    let runtimes: Vec<String> = if args.runtime.is_empty() {
        IMPLEMENTED.iter().map(|r| r.to_string()).collect()
    } else {
        args.runtime.clone()
    };
    validate_runtimes(&runtimes).map_err(UsageError)?;
    let cpus = usable_cpus(args.cpus.as_deref())?;
    let machine = MachineInfo::detect();
    let out_dir = args.out.clone().unwrap_or_else(|| default_out_dir(&machine.host_name));
    ensure_writable(&out_dir)?;

    let interrupted = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&interrupted);
    ctrlc::set_handler(move || flag.store(true, std::sync::atomic::Ordering::SeqCst))?;

    let ctx = PlanContext { cpus, topology: machine.topology.clone(), mode };
    let plan = build_plan(&experiments, &runtimes, !args.runtime.is_empty(), &ctx);
    let time_source = calibrate(args.time.time_source == TimeSourceChoice::Clock, Calibration::DEFAULT);
    let options = RunOptions {
        mode,
        plan,
        machine,
        time_source,
        out_dir,
        point_timeout: Duration::from_secs(if mode == Mode::Full { 300 } else { 120 }),
        command_line: std::env::args().collect(),
    };
    let outcome = run_plan(options, &interrupted)?;
    print!("{}", render(&outcome.record, Format::Table));
    println!("{}", outcome.path.display());
    if outcome.record.interrupted {
        eprintln!("interrupted: the record keeps the {} finished points", outcome.record.points.len());
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}

/// The CPUs the run may use: `--cpus` checked against the CPUs this process may run on, or all of them.
fn usable_cpus(list: Option<&str>) -> Result<Vec<usize>, UsageError> {
    let allowed = allowed_cpus();
    let Some(list) = list else {
        return Ok(allowed);
    };
    let wanted = parse_cpu_list(list).map_err(|e| UsageError(format!("--cpus {list:?}: {e}")))?;
    if wanted.is_empty() {
        return Err(UsageError(format!("--cpus {list:?} names no CPU")));
    }
    if let Some(bad) = wanted.iter().find(|c| !allowed.contains(c)) {
        return Err(UsageError(format!(
            "--cpus {list:?}: CPU {bad} is not available; this process may use CPUs {}",
            allowed.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
        )));
    }
    Ok(wanted)
}

/// `overhead-results/<host>-<UTC time>/`.
fn default_out_dir(host: &str) -> PathBuf {
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
    let host: String = host.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    PathBuf::from("overhead-results").join(format!("{host}-{stamp}"))
}

/// Creates `dir` and proves a file can be written in it, before anything is measured.
fn ensure_writable(dir: &Path) -> Result<(), UsageError> {
    let refuse = |e: std::io::Error| UsageError(format!("--out {}: cannot write there: {e}", dir.display()));
    std::fs::create_dir_all(dir).map_err(refuse)?;
    tempfile::NamedTempFile::new_in(dir).map_err(refuse)?;
    Ok(())
}
