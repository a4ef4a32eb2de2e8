//! `overhead run`: validate everything the user gave before measuring anything, then run.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use super::{RunArgs, TimeSourceChoice, UsageError};
use overhead_clock::{calibrate, Calibration};
use overhead_experiments::{PlanContext, Planned};
use overhead_harness::Mode;
use overhead_machine::{parse_cpu_list, MachineInfo};
use overhead_orchestrator::{
    build_plan, check_sides, merge_side_plans, parse_side, plan_json, run as run_plan, select_experiments,
    select_runtimes, side_plan_of, RoundPolicy, RunOptions, SideRun, SideSkips,
};
use overhead_record::{BetweenRuns, ProcessCosts, RunRecord, RunSummary};
use overhead_report::export::for_record;
use overhead_report::{time_spent, OutputFormat};

/// Runs the main job. Exit 0 when the run finished, 130 when interrupted (the record keeps what finished).
pub fn run(args: RunArgs, build: &overhead_record::BuildStamp) -> anyhow::Result<ExitCode> {
    let mode = args.mode();
    let experiments = select_experiments(&args.only).map_err(UsageError)?;
    let runtimes = select_runtimes(&args.runtime).map_err(UsageError)?;
    // A simulation is of the described machine: this one's CPUs and toolchains are not asked.
    if let Some(record) = &args.simulate {
        return super::simulate::simulate_run(&args, record, &experiments, &runtimes);
    }
    // The machine is detected once per run (topology included, a few ms): `--cpus` is checked against
    // the allowed CPUs it recorded, the plan gets its topology, and the record all of it.
    let machine = MachineInfo::detect();
    let cpus = usable_cpus(args.cpus.as_deref(), &machine.allowed_cpus)?;
    let launch = launch_settings(&args)?;
    let tool = overhead_record::ToolInfo::from_stamp(build);
    let sides = sides_of(&args.side, &tool)?;
    let ctx = PlanContext { cpus, topology: machine.topology.clone(), mode, hosts: launch.hosts.clone() };
    if args.plan {
        print!("{}", plan_listing(&build_plan(&experiments, &runtimes, !args.runtime.is_empty(), &ctx)));
        return Ok(ExitCode::SUCCESS);
    }
    if args.plan_json {
        print!("{}", plan_json(&build_plan(&experiments, &runtimes, !args.runtime.is_empty(), &ctx)));
        return Ok(ExitCode::SUCCESS);
    }
    let out_dir = args.out.clone().unwrap_or_else(|| default_out_dir(&machine.host_name));
    ensure_writable(&out_dir)?;
    let own_plan = build_plan(&experiments, &runtimes, !args.runtime.is_empty(), &ctx);
    let (plan, side_skips) = plan_sides(&sides, own_plan, &args)?;
    let rounds = round_policy(&args, &plan, sides.len(), &|| {
        Ok(build_plan(
            &select_experiments(&[]).map_err(UsageError)?,
            &select_runtimes(&[]).map_err(UsageError)?,
            false,
            &ctx,
        ))
    })?;
    let costs = if args.no_history { ProcessCosts::default() } else { learned_costs(&machine, mode) };

    let interrupted = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&interrupted);
    ctrlc::set_handler(move || flag.store(true, std::sync::atomic::Ordering::SeqCst))?;

    if mode == Mode::Full && costs.is_empty() {
        eprintln!("{}", full_eta(&plan, &rounds));
    }
    let time_source = calibrate(args.time.time_source == TimeSourceChoice::Clock, Calibration::DEFAULT);
    let options = RunOptions {
        mode,
        plan,
        machine,
        time_source,
        out_dir,
        point_timeout: Duration::from_secs(if mode == Mode::Full { 300 } else { 120 }),
        rounds,
        command_line: std::env::args().collect(),
        launch,
        tool,
        costs,
        sides,
        side_skips,
    };
    let mut outcome = run_plan(options, &interrupted)?;
    if !args.no_history && !outcome.record.interrupted {
        add_to_history(&mut outcome.record, &outcome.path)?;
    }
    write_exports(&outcome.record, &outcome.path, &args.export)?;
    write_html_report(&outcome.record, &outcome.path);
    if args.verbose {
        print!("{}", for_record(OutputFormat::Table).render(&outcome.record)?);
    } else {
        print!("{}", overhead_report::summary::run_summary(&outcome.record, &outcome.path));
    }
    eprint!("{}", time_spent(&outcome.record));
    println!("{}", outcome.path.display());
    if outcome.record.interrupted {
        eprintln!("interrupted: the record keeps the {} finished points", outcome.record.points.len());
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}

/// The rounds' policy for `args`'s mode, `--budget` and `--side`s (`sides` of them; 0 or 1: none) running
/// `plan`: a run narrowed by `--only` or `--runtime` without a budget gets its share of the budget by points
/// of the `whole` plan (docs/METHOD.md §4).
///
/// Errors: a `--budget` that is not a number of seconds ≥ 0; the whole plan's errors.
pub(super) fn round_policy(
    args: &RunArgs,
    plan: &[Planned],
    sides: usize,
    whole: &dyn Fn() -> anyhow::Result<Vec<Planned>>,
) -> anyhow::Result<RoundPolicy> {
    let mut rounds = RoundPolicy::for_mode(args.mode());
    if args.budget.is_none() && !(args.only.is_empty() && args.runtime.is_empty()) {
        rounds = rounds.for_part(runs(plan), runs(&whole()?));
    }
    if let Some(budget) = args.budget {
        if !(budget.is_finite() && budget >= 0.0) {
            return Err(UsageError(format!("--budget {budget}: expected a number of seconds ≥ 0")).into());
        }
        rounds = rounds.with_budget(budget);
    }
    if sides > 1 {
        rounds = rounds.for_sides(sides);
    }
    Ok(rounds)
}

/// The run's plan when it has sides: every side planned in its own environment (docs/METHOD.md §17), a point
/// that any side can run in the plan and skipped on the sides that cannot. A side whose binary cannot say its
/// plan (an older build) is planned like the first side, which stderr says. Without sides, `own` as it is.
///
/// Errors: this binary cannot be found.
fn plan_sides(sides: &[SideRun], own: Vec<Planned>, args: &RunArgs) -> anyhow::Result<(Vec<Planned>, SideSkips)> {
    if sides.len() < 2 {
        return Ok((own, SideSkips::new()));
    }
    let this = std::env::current_exe()?;
    let selection = plan_selection(args);
    let plans: Vec<Vec<Planned>> = sides
        .iter()
        .map(|side| {
            side_plan_of(side, &this, &own, &selection).unwrap_or_else(|e| {
                eprintln!("{e}; it is planned as this process plans");
                own.clone()
            })
        })
        .collect();
    Ok(merge_side_plans(&plans))
}

/// The arguments that select a run's points, for a side's `run --plan-json`: the mode, `--only`,
/// `--runtime`, `--cpus` and the hosts.
fn plan_selection(args: &RunArgs) -> Vec<String> {
    let mut out = Vec::new();
    if args.quick {
        out.push("--quick".to_string());
    }
    if args.full {
        out.push("--full".to_string());
    }
    for (flag, values) in [("--only", &args.only), ("--runtime", &args.runtime)] {
        if !values.is_empty() {
            out.extend([flag.to_string(), values.join(",")]);
        }
    }
    if let Some(cpus) = &args.cpus {
        out.extend(["--cpus".to_string(), cpus.clone()]);
    }
    if let Some(hosts) = &args.hosts {
        out.extend(["--hosts".to_string(), hosts.clone()]);
    }
    if let Some(file) = &args.hostfile {
        out.extend(["--hostfile".to_string(), file.display().to_string()]);
    }
    out
}

/// The hosts of `--hosts` or `--hostfile` and the `--launcher-arg`s.
///
/// Errors: a host list or hostfile that does not parse, or a single host (a run across hosts needs two),
/// naming the input.
fn launch_settings(args: &RunArgs) -> Result<overhead_launch::LaunchSettings, UsageError> {
    let hosts = match (&args.hosts, &args.hostfile) {
        (Some(list), _) => overhead_launch::parse_host_list(list).map_err(UsageError)?,
        (None, Some(file)) => overhead_launch::read_hostfile(file).map_err(UsageError)?,
        (None, None) => Vec::new(),
    };
    if hosts.len() == 1 {
        return Err(UsageError(format!(
            "--hosts names one host ({}); a run across hosts needs two or more (this machine first)",
            hosts[0]
        )));
    }
    Ok(overhead_launch::LaunchSettings { hosts, launcher_args: args.launcher_args.clone() })
}

/// Adds the finished run to the machine's history and writes into its record how far each point moves
/// between runs here, when the history knows a repeated configuration (docs/METHOD.md §13). A history that
/// cannot be opened or written is told on stderr and does not fail the run: the record is already safe.
///
/// Errors: the record could not be written again.
fn add_to_history(record: &mut RunRecord, record_path: &Path) -> anyhow::Result<()> {
    let Some(path) = overhead_history::default_path() else {
        eprintln!("history: no data folder (set XDG_DATA_HOME); this run was not added");
        return Ok(());
    };
    // A run with sides adds each side as a run of its own configuration; the first side's is this record's.
    let summaries = RunSummary::of_sides(record, &record_path.display().to_string());
    let summary = summaries[0].clone();
    let entries = overhead_history::History::open(&path).and_then(|mut history| {
        if let Some(notice) = &history.notice {
            eprintln!("history: {notice}");
        }
        let mut ids = Vec::new();
        for s in &summaries {
            ids.push(history.add(s, &record_path.display().to_string())?.to_string());
        }
        let machine = summary.config.as_ref().map(|c| c.machine.as_str());
        let loaded = history.load(machine)?;
        for d in &loaded.damaged {
            eprintln!("history: skipped a damaged entry: {d}");
        }
        let runs = if ids.len() == 1 { "run" } else { "runs" };
        eprintln!(
            "history: added as {runs} {} of this machine ({} runs in {})",
            ids.join(", "),
            loaded.entries.len(),
            path.display()
        );
        Ok(loaded.entries)
    });
    let entries = match entries {
        Ok(entries) => entries,
        Err(e) => {
            eprintln!("history: this run was not added ({e:#})");
            return Ok(());
        }
    };
    let level = overhead_analysis::run_level::of_history(entries.iter().map(|e| &e.summary));
    if level.source.runs() >= 2 {
        record.between_runs = Some(BetweenRuns {
            source: level.description(),
            runs: level.source.runs(),
            points_pct: level.between_runs_pct(&summary),
        });
        overhead_record::write_atomic(record_path, record)?;
    }
    Ok(())
}

/// The sides of `--side` values, read and checked against this binary before anything is measured.
///
/// Errors: a value that does not read, fewer than two sides, a name given twice, a binary that cannot be
/// driven (missing, not executable, another protocol): a [`UsageError`] naming the side and why.
fn sides_of(values: &[String], tool: &overhead_record::ToolInfo) -> Result<Vec<SideRun>, UsageError> {
    let specs = values.iter().map(|v| parse_side(v)).collect::<Result<Vec<_>, _>>().map_err(UsageError)?;
    let this = std::env::current_exe().map_err(|e| UsageError(format!("--side: this binary cannot be found ({e})")))?;
    check_sides(specs, &this, tool).map_err(UsageError)
}

/// What each point's process cost in this machine's recent runs of `mode`, from the history: what the run
/// plans its time from (docs/METHOD.md §4). A history that cannot be read is told on stderr and the run
/// plans from its own first round.
fn learned_costs(machine: &MachineInfo, mode: Mode) -> ProcessCosts {
    let Some(path) = overhead_history::default_path().filter(|p| p.exists()) else {
        return ProcessCosts::default();
    };
    let loaded = overhead_history::History::open(&path).and_then(|history| {
        if let Some(notice) = &history.notice {
            eprintln!("history: {notice}");
        }
        history.load(Some(&overhead_record::RunConfig::machine_of(machine)))
    });
    match loaded {
        Ok(loaded) => {
            let runs: Vec<&RunSummary> = loaded.entries.iter().map(|e| &e.summary).collect();
            ProcessCosts::learn(&runs, mode)
        }
        Err(e) => {
            eprintln!("history: not read for the plan ({e:#}); the run plans from its first round");
            ProcessCosts::default()
        }
    }
}

/// Writes each of `formats` next to the record at `record_path`, atomically (a temporary file in the same
/// directory, then a rename that refuses to replace an existing file).
///
/// Errors: the directory is not writable, a file of that name already exists, or a format is not a file
/// export (clap takes only those).
fn write_exports(record: &RunRecord, record_path: &Path, formats: &[OutputFormat]) -> anyhow::Result<()> {
    for &format in formats {
        let name =
            format.export_file_name().ok_or_else(|| UsageError(format!("--export {format}: not a file export")))?;
        write_beside(record_path, name, &for_record(format).render(record)?)?;
    }
    Ok(())
}

/// The HTML report's file name next to `results.json`.
const REPORT_PAGE: &str = "report.html";

/// Writes the HTML report as `report.html` next to the record. A failure is told on stderr and does not
/// fail the run: the record is already safe, and `overhead report RECORD --format html` can make the page
/// again.
fn write_html_report(record: &RunRecord, record_path: &Path) {
    let written =
        for_record(OutputFormat::Html).render(record).and_then(|html| write_beside(record_path, REPORT_PAGE, &html));
    if let Err(e) = written {
        eprintln!("the HTML report was not written: {e:#}");
    }
}

/// Writes `text` as `name` in the record's directory, atomically (a temporary file in the same directory,
/// then a rename that refuses to replace an existing file), and prints its path on stderr.
///
/// Errors: the directory is not writable, or a file of that name already exists.
fn write_beside(record_path: &Path, name: &str, text: &str) -> anyhow::Result<()> {
    let dir = record_path.parent().unwrap_or(Path::new("."));
    let mut file = overhead_record::temp_file_in(dir)?;
    std::io::Write::write_all(&mut file, text.as_bytes())?;
    file.as_file().sync_all()?;
    let path = dir.join(name);
    file.persist_noclobber(&path).map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.error))?;
    eprintln!("{}", path.display());
    Ok(())
}

/// How many points of `plan` run (skipped ones do not).
fn runs(plan: &[Planned]) -> usize {
    plan.iter().filter(|p| matches!(p, Planned::Run(_))).count()
}

/// The plan as text: the points to measure, a name a line, then `skip NAME: REASON` lines.
pub(super) fn plan_listing(plan: &[Planned]) -> String {
    let mut out = String::new();
    for planned in plan {
        if let Planned::Run(spec) = planned {
            out += &format!("{}\n", spec.name());
        }
    }
    for planned in plan {
        if let Planned::Skip(spec, reason) = planned {
            out += &format!("skip {}: {reason}\n", spec.name());
        }
    }
    out
}

/// The CPUs the run may use: `--cpus` checked against `allowed` (the CPUs this process may run on, as
/// the machine description recorded them), or all of `allowed`.
///
/// Errors: a list that does not parse, names no CPU, or names a CPU outside `allowed`.
pub(super) fn usable_cpus(list: Option<&str>, allowed: &[usize]) -> Result<Vec<usize>, UsageError> {
    let Some(list) = list else {
        return Ok(allowed.to_vec());
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
pub(super) fn default_out_dir(host: &str) -> PathBuf {
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
    let host: String = host.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    PathBuf::from("overhead-results").join(format!("{host}-{stamp}"))
}

/// What a `--full` run will take, said before it starts: its probes at the minimum rounds, at a typical
/// probe's time here (measured on a 2-CPU VM: ~0.1 s), and at most the refining budget on top.
fn full_eta(plan: &[Planned], rounds: &RoundPolicy) -> String {
    let points = plan.iter().filter(|p| matches!(p, Planned::Run(_))).count();
    let minimum_s = (points * rounds.min_rounds) as f64 * TYPICAL_PROBE_S;
    format!(
        "full run: {points} points × at least {} processes; ETA about {:.0} min (up to {:.0} min while refining)",
        rounds.min_rounds,
        minimum_s / 60.0,
        minimum_s.max(rounds.budget_s) / 60.0
    )
}

/// A typical probe's wall time on a 2-CPU VM, start-up included (s): for the `--full` ETA only.
const TYPICAL_PROBE_S: f64 = 0.1;

/// Creates `dir` and proves a file can be written in it, before anything is measured. A directory that
/// already holds a record is refused: a run never replaces an earlier one.
pub(super) fn ensure_writable(dir: &Path) -> Result<(), UsageError> {
    let existing = dir.join("results.json");
    if existing.exists() {
        return Err(UsageError(format!(
            "--out {}: it already holds a record ({}); choose a new directory, or move the old record away",
            dir.display(),
            existing.display()
        )));
    }
    let refuse = |e: std::io::Error| UsageError(format!("--out {}: cannot write there: {e}", dir.display()));
    std::fs::create_dir_all(dir).map_err(refuse)?;
    tempfile::NamedTempFile::new_in(dir).map_err(refuse)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpus_default_to_the_allowed_ones_and_must_be_among_them() {
        let allowed = [0, 1, 4];
        assert_eq!(usable_cpus(None, &allowed).unwrap(), [0, 1, 4]);
        assert_eq!(usable_cpus(Some("4,0"), &allowed).unwrap(), [0, 4]);
        let refused = usable_cpus(Some("0-2"), &allowed).unwrap_err().0;
        assert!(refused.contains("CPU 2 is not available") && refused.contains("0,1,4"), "{refused}");
        assert!(usable_cpus(Some(" "), &allowed).unwrap_err().0.contains("names no CPU"));
        assert!(usable_cpus(Some("x"), &allowed).unwrap_err().0.contains("not a number"));
    }
}
