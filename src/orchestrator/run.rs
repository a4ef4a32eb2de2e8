//! Running a plan: rounds of probe processes (one per point per round) under a watchdog, each point merged
//! from its processes, the record rewritten atomically after a probe at most once a second and at the end.

use std::cell::Cell;
use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressStyle};
use wait_timeout::ChildExt;

use super::machine_state::CpuWatch;
use crate::analysis::{add_distinct_notes, cycle_floor_ns, merge_processes, Flagging, Process};
use crate::clock::TimeSourceInfo;
use crate::experiments::Planned;
use crate::harness::{speed, HarnessConfig, Mode};
use crate::machine::MachineInfo;
use crate::protocol::{ProbeJob, ProbeMessage, RawBatches, VERSION};
use crate::record::RoundPolicy;
use crate::record::{
    write_atomic, PointRecord, PointSpec, RunRecord, SkipKind, SkippedPoint, ToolInfo, SCHEMA_VERSION,
};

/// A validated run: what to measure, where to write, with which clock.
pub struct RunOptions {
    pub mode: Mode,
    pub plan: Vec<Planned>,
    pub machine: MachineInfo,
    pub time_source: TimeSourceInfo,
    /// Directory that receives `results.json`; must exist and be writable.
    pub out_dir: PathBuf,
    /// Wall-clock limit for one probe.
    pub point_timeout: Duration,
    /// How many processes each point gets, and the run's time budget.
    pub rounds: RoundPolicy,
    pub command_line: Vec<String>,
}

/// Where the record went and what it holds.
pub struct RunOutcome {
    pub path: PathBuf,
    pub record: RunRecord,
}

/// Runs `opts.plan` in rounds of probe processes ([`RoundPolicy`]), rewriting `results.json` atomically
/// after a probe at most once a second ([`WRITE_EVERY`]) and at the end: after round 1 every point has a value, later rounds tighten it. When `interrupted`
/// becomes true (Ctrl-C) the running probe is killed, the record is marked interrupted and keeps every
/// finished process.
///
/// Errors: the record could not be written, or this executable could not be started as a probe.
pub fn run(opts: RunOptions, interrupted: &AtomicBool) -> anyhow::Result<RunOutcome> {
    let path = opts.out_dir.join("results.json");
    let harness = HarnessConfig::for_mode(opts.mode);
    let mut warnings = opts.machine.timing_warnings();
    if opts.time_source.calibration_error_ppm > 100.0 {
        warnings.push(format!(
            "The time source's rate is known only to ±{:.0} ppm; the machine was busy during calibration.",
            opts.time_source.calibration_error_ppm
        ));
    }
    let mut record = RunRecord {
        schema_version: SCHEMA_VERSION,
        tool: ToolInfo::current(),
        mode: opts.mode,
        command_line: opts.command_line.clone(),
        started_utc: chrono::Utc::now().to_rfc3339(),
        finished_utc: None,
        interrupted: false,
        time_source: opts.time_source.clone(),
        harness,
        rounds: Some(opts.rounds),
        machine: opts.machine.clone(),
        warnings,
        speed_warning: None,
        speed: None,
        machine_state: None,
        between_runs: None,
        points: Vec::new(),
        skipped: Vec::new(),
        fits: Vec::new(),
        comparisons: Vec::new(),
        count_fits: Vec::new(),
    };
    let mut points = Vec::new();
    let mut measured_cpus: Vec<usize> = Vec::new();
    for planned in opts.plan {
        match planned {
            Planned::Skip(spec, reason) => record.skipped.push(SkippedPoint::new(spec, SkipKind::Skipped, reason)),
            Planned::Run(spec) => {
                measured_cpus.extend(&spec.cpus);
                points.push(PointState::new(spec))
            }
        }
    }
    write_atomic(&path, &record)?;
    let exe = std::env::current_exe().context("locating this executable to start probes")?;
    measured_cpus.sort_unstable();
    measured_cpus.dedup();
    let mut cpu_watch = CpuWatch::start();
    let run_started = Instant::now();
    let mut last_write = run_started;
    let policy = opts.rounds;
    let progress = Progress::new(points.len() * policy.min_rounds);
    'rounds: for round in 1..=policy.max_rounds {
        let mut wanted: Vec<usize> = (0..points.len())
            .filter(|&i| {
                !points[i].failed && policy.wants_another(merged(&record, &points[i]), points[i].processes.len())
            })
            .collect();
        if round > policy.min_rounds {
            // Refining rounds serve the cheapest processes first, so the budget buys the most processes
            // (Kalibera & Jones: repetitions where they narrow the most per second).
            wanted.sort_by_key(|&i| points[i].expected_wall());
        }
        if wanted.is_empty() {
            break;
        }
        if round > policy.min_rounds {
            progress.add(wanted.len());
        }
        for (done_in_round, &i) in wanted.iter().enumerate() {
            if interrupted.load(Ordering::SeqCst) {
                break 'rounds;
            }
            let expected = points[i].expected_wall();
            let within_share = policy.within_share(round, points[i].spent_wall(), expected, points.len());
            if !within_share || !policy.affordable(round, run_started.elapsed(), expected) {
                points[i].out_of_budget = true;
                progress.skip();
                continue;
            }
            progress.start(round, wanted.len() - done_in_round, &points[i].spec.name());
            let job = ProbeJob {
                v: VERSION,
                spec: points[i].spec.clone(),
                time_source: opts.time_source.clone(),
                harness,
                batch_ops_hint: points[i].batch_ops_hint,
            };
            let started = Instant::now();
            let started_s = Some(started.duration_since(run_started).as_secs_f64());
            cpu_watch.before_probe();
            let end = run_one(&exe, &job, opts.point_timeout, interrupted);
            cpu_watch.after_probe(&job.spec.cpus);
            let wall_ms = started.elapsed().as_secs_f64() * 1e3;
            match end {
                ProbeEnd::Result(point, sized) => {
                    let state = &mut points[i];
                    state.batch_ops_hint = state.batch_ops_hint.or(sized);
                    state.processes.push(Process { record: *point, round, wall_ms, started_s });
                    let point = merge_processes(&points[i].processes, &flagging(&record, &points));
                    progress.finish(&format!("{}  {}", point.name, crate::units::format_ns(point.summary.median)));
                    place(&mut record.points, &mut points[i].slot, point);
                    crate::analysis::analyze(&mut record);
                }
                ProbeEnd::Interrupted => break 'rounds,
                ProbeEnd::Failed(kind, reason) => {
                    let state = &mut points[i];
                    progress.finish(&format!("{}  {reason}", state.spec.name()));
                    state.failed = true;
                    match state.slot {
                        None => record.skipped.push(SkippedPoint::new(state.spec.clone(), kind, reason)),
                        Some(slot) => {
                            record.points[slot].notes.push(format!("round {round}: the probe failed: {reason}"))
                        }
                    }
                }
            }
            if last_write.elapsed() >= WRITE_EVERY {
                write_atomic(&path, &record)?;
                last_write = Instant::now();
            }
        }
    }
    progress.done();
    // The cycle floor is known best at the end; every point's flags are judged against it once more.
    let rules = flagging(&record, &points);
    for state in points.iter().filter(|s| !s.processes.is_empty()) {
        let slot = state.slot.expect("a point with processes has a slot");
        let notes = std::mem::take(&mut record.points[slot].notes);
        record.points[slot] = merge_processes(&state.processes, &rules);
        // Keep what the run added (a failed round) beside the processes' own notes.
        add_distinct_notes(&mut record.points[slot].notes, notes);
        if state.out_of_budget {
            record.points[slot].notes.push(format!(
                "the run's time budget ({} s) ran out before this point's CI reached {:.0}% of its median",
                policy.budget_s,
                policy.target_half_width * 100.0
            ));
        }
    }
    crate::analysis::analyze(&mut record);
    let pin_refusals = record.points.iter().filter(|p| p.notes.iter().any(|n| n.contains("pinn"))).count();
    if pin_refusals > 0 {
        record.warnings.push(format!("Pinning was refused for {pin_refusals} point(s); see their notes."));
    }
    record.machine_state = cpu_watch.finish(&measured_cpus);
    if let Some(warning) = record.machine_state.as_ref().and_then(|m| m.warning()) {
        record.warnings.push(warning);
    }
    record.interrupted = interrupted.load(Ordering::SeqCst);
    record.finished_utc = Some(chrono::Utc::now().to_rfc3339());
    write_atomic(&path, &record)?;
    Ok(RunOutcome { path, record })
}

/// One planned point during the run: its processes so far and where its merged record sits.
struct PointState {
    spec: PointSpec,
    processes: Vec<Process>,
    /// The batch size of the point's first process, handed to the later ones.
    batch_ops_hint: Option<u64>,
    /// Index of the point in the record's `points`, once a process answered.
    slot: Option<usize>,
    /// A probe failed: no more rounds for this point.
    failed: bool,
    /// A round past the minimum skipped this point for want of time.
    out_of_budget: bool,
}

impl PointState {
    fn new(spec: PointSpec) -> PointState {
        PointState {
            spec,
            processes: Vec::new(),
            batch_ops_hint: None,
            slot: None,
            failed: false,
            out_of_budget: false,
        }
    }

    /// What the point's processes took so far.
    fn spent_wall(&self) -> Duration {
        Duration::from_secs_f64(self.processes.iter().map(|p| p.wall_ms).sum::<f64>() / 1e3)
    }

    /// What the next process is expected to take: the mean of the point's processes so far.
    fn expected_wall(&self) -> Duration {
        let n = self.processes.len().max(1) as f64;
        Duration::from_secs_f64(self.processes.iter().map(|p| p.wall_ms).sum::<f64>() / n / 1e3)
    }
}

/// The point's merged record so far, if a process answered.
fn merged<'a>(record: &'a RunRecord, state: &PointState) -> Option<&'a PointRecord> {
    state.slot.map(|slot| &record.points[slot])
}

/// Puts `point` at its slot in the record's points, or appends it and remembers the slot.
fn place(points: &mut Vec<PointRecord>, slot: &mut Option<usize>, point: PointRecord) {
    match *slot {
        Some(i) => points[i] = point,
        None => {
            *slot = Some(points.len());
            points.push(point);
        }
    }
}

/// The flagging rules as the run knows them now: the record's noisy fraction, processes more than 1% apart
/// for `unstable`, and one cycle from every reference-loop timing so far.
fn flagging(record: &RunRecord, points: &[PointState]) -> Flagging {
    let extras = points.iter().flat_map(|s| s.processes.iter().map(|p| &p.record.extra));
    Flagging {
        noisy_fraction: record.harness.noisy_fraction,
        unstable_spread: UNSTABLE_SPREAD,
        cycle_ns: cycle_floor_ns(speed::every_probe(extras)),
    }
}

/// The record is rewritten after a probe once this long has passed since the last write (and always at
/// the end, Ctrl-C included): a killed run loses at most this much, and a default run does not spend a
/// quarter of its time rewriting a record of megabytes after each of its ~1500 probes.
const WRITE_EVERY: Duration = Duration::from_millis(1000);

/// Process medians closer than this fraction of the estimate never make a point `unstable`.
const UNSTABLE_SPREAD: f64 = 0.01;

/// How one probe ended.
enum ProbeEnd {
    /// The point as the process measured it, and the batch size its first sizing settled on.
    Result(Box<PointRecord>, Option<u64>),
    Failed(SkipKind, String),
    Interrupted,
}

/// Starts a probe for `job`, waits for it under the watchdog, and reads its answer.
fn run_one(exe: &std::path::Path, job: &ProbeJob, timeout: Duration, interrupted: &AtomicBool) -> ProbeEnd {
    let job_json = serde_json::to_string(job).expect("jobs always serialise");
    let mut command = match probe_command(exe, job, &job_json) {
        Ok(command) => command,
        Err(e) => return ProbeEnd::Failed(SkipKind::Failed, format!("could not start the probe: {e:#}")),
    };
    let child = command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return ProbeEnd::Failed(SkipKind::Failed, format!("could not start the probe: {e}")),
    };
    let stdout = drain(&mut child, true);
    let stderr = drain(&mut child, false);
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.wait_timeout(Duration::from_millis(50)) {
            Ok(Some(status)) => break Some(status),
            Ok(None) if interrupted.load(Ordering::SeqCst) => {
                kill(&mut child);
                return ProbeEnd::Interrupted;
            }
            Ok(None) if Instant::now() > deadline => {
                kill(&mut child);
                break None;
            }
            Ok(None) => {}
            Err(e) => return ProbeEnd::Failed(SkipKind::Failed, format!("waiting for the probe failed: {e}")),
        }
    };
    let out = stdout.join().unwrap_or_default();
    let err = stderr.join().unwrap_or_default();
    let Some(status) = status else {
        return ProbeEnd::Failed(SkipKind::TimedOut, format!("timed out after {} s", timeout.as_secs()));
    };
    if interrupted.load(Ordering::SeqCst) {
        return ProbeEnd::Interrupted;
    }
    interpret(job, &out, &err, status)
}

/// The process that measures `job`: `overhead probe` (this executable), or the runtime's external probe
/// (`runtimes::external`), with the same job. An experiment driven from Rust (`grain.sweep`) runs in
/// `overhead probe`, which starts the external probe itself.
fn probe_command(exe: &std::path::Path, job: &ProbeJob, job_json: &str) -> anyhow::Result<Command> {
    let external = crate::runtimes::find(&job.spec.runtime).and_then(|r| r.external());
    match external.filter(|e| !e.driven_from_rust(&job.spec.experiment)) {
        Some(external) => external.command(&job.spec, job_json),
        None => {
            let mut command = Command::new(exe);
            command.args(["probe", "--job", job_json]);
            Ok(command)
        }
    }
}

/// The point of an external probe's raw batches, made as `overhead probe` makes its own
/// (`probe::point_record`): the same summary, CI and flags for every runtime.
fn point_of_batches(job: &ProbeJob, batches: &RawBatches) -> Result<Box<PointRecord>, String> {
    let measurement = batches.measurement()?;
    let point = super::probe::point_record(
        &job.spec,
        &measurement,
        batches.notes.clone(),
        batches.extra.clone(),
        Default::default(),
        job.harness.noisy_fraction,
    )?;
    Ok(Box::new(point))
}

/// Reads the probe's JSON lines: the last result (or external probe's batches) wins; an error message or a
/// crash makes it a failure.
fn interpret(job: &ProbeJob, out: &str, err: &str, status: std::process::ExitStatus) -> ProbeEnd {
    let mut error = None;
    for line in out.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<ProbeMessage>(line) {
            Ok(ProbeMessage::Result { point, sized_batch_ops, .. }) if status.success() => {
                return ProbeEnd::Result(point, sized_batch_ops)
            }
            Ok(ProbeMessage::Batches { batches, .. }) if status.success() => match point_of_batches(job, &batches) {
                Ok(point) => return ProbeEnd::Result(point, batches.sized_batch_ops),
                Err(e) => error = Some(format!("the external probe's batches: {e}")),
            },
            Ok(ProbeMessage::Error { message, .. }) => error = Some(message),
            Ok(_) => {}
            Err(e) => error = Some(format!("unreadable probe output ({e}): {line:.200}")),
        }
    }
    let detail = error.unwrap_or_else(|| {
        let tail: String = err.lines().rev().take(3).collect::<Vec<_>>().join(" / ");
        format!("probe exited with {status}{}", if tail.is_empty() { String::new() } else { format!(": {tail}") })
    });
    ProbeEnd::Failed(SkipKind::Failed, detail)
}

/// Collects one of the child's output pipes on a thread, so a chatty probe cannot block on a full pipe.
fn drain(child: &mut Child, stdout: bool) -> std::thread::JoinHandle<String> {
    let mut pipe: Box<dyn Read + Send> = if stdout {
        Box::new(child.stdout.take().expect("stdout is piped"))
    } else {
        Box::new(child.stderr.take().expect("stderr is piped"))
    };
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = pipe.read_to_string(&mut text);
        text
    })
}

fn kill(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// Progress on stderr: a bar with the round, the points left in it, the point's name and the ETA on a
/// terminal; one line per probe otherwise.
struct Progress {
    bar: Option<ProgressBar>,
    total: Cell<usize>,
    done: Cell<usize>,
    round: Cell<usize>,
}

impl Progress {
    fn new(total: usize) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(total as u64);
            bar.set_style(
                ProgressStyle::with_template("{spinner} [{elapsed}] {bar:30} {pos}/{len} ETA {eta}  {msg}")
                    .expect("the template is valid"),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Progress { bar, total: Cell::new(total), done: Cell::new(0), round: Cell::new(1) }
    }

    /// A round past the minimum: `points` more probes to come.
    fn add(&self, points: usize) {
        self.total.set(self.total.get() + points);
        if let Some(bar) = &self.bar {
            bar.inc_length(points as u64);
        }
    }

    /// A probe planned but not run (out of budget).
    fn skip(&self) {
        self.total.set(self.total.get().saturating_sub(1));
        if let Some(bar) = &self.bar {
            bar.dec_length(1);
        }
    }

    fn start(&self, round: usize, left_in_round: usize, name: &str) {
        self.round.set(round);
        if let Some(bar) = &self.bar {
            bar.set_message(format!("round {round}, {left_in_round} left: {name}"));
        }
    }

    fn finish(&self, line: &str) {
        self.done.set(self.done.get() + 1);
        match &self.bar {
            Some(bar) => bar.inc(1),
            None => eprintln!("[round {} {}/{}] {line}", self.round.get(), self.done.get(), self.total.get()),
        }
    }

    fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
