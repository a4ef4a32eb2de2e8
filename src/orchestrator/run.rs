//! Running a plan: one probe process per point, a watchdog, the record rewritten after every point.

use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressStyle};
use wait_timeout::ChildExt;

use super::protocol::{ProbeJob, ProbeMessage, VERSION};
use crate::clock::TimeSourceInfo;
use crate::experiments::Planned;
use crate::harness::{speed, HarnessConfig, Mode};
use crate::machine::MachineInfo;
use crate::record::{write_atomic, RunRecord, SkipKind, SkippedPoint, ToolInfo, SCHEMA_VERSION};

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
    pub command_line: Vec<String>,
}

/// Where the record went and what it holds.
pub struct RunOutcome {
    pub path: PathBuf,
    pub record: RunRecord,
}

/// Runs every point of `opts.plan`, rewriting `results.json` atomically after each one. When
/// `interrupted` becomes true (Ctrl-C) the running probe is killed, the record is marked interrupted
/// and keeps every finished point.
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
        machine: opts.machine.clone(),
        warnings,
        points: Vec::new(),
        skipped: Vec::new(),
        fits: Vec::new(),
    };
    write_atomic(&path, &record)?;
    let exe = std::env::current_exe().context("locating this executable to start probes")?;
    let run_started = Instant::now();
    let progress = Progress::new(opts.plan.iter().filter(|p| matches!(p, Planned::Run(_))).count());
    for planned in opts.plan {
        if interrupted.load(Ordering::SeqCst) {
            break;
        }
        let spec = match planned {
            Planned::Skip(spec, reason) => {
                record.skipped.push(SkippedPoint::new(spec, SkipKind::Skipped, reason));
                continue;
            }
            Planned::Run(spec) => spec,
        };
        progress.start(&spec.name());
        let job = ProbeJob {
            v: VERSION,
            spec: spec.clone(),
            time_source: opts.time_source.clone(),
            harness,
            usual_reference_ns: usual_speed(&record.points),
            retry_slow: speed::retry_allowed(
                record.points.iter().filter_map(|p| p.extra.get(speed::RETRIED)).sum(),
                run_started.elapsed(),
            ),
        };
        match run_one(&exe, &job, opts.point_timeout, interrupted) {
            ProbeEnd::Result(point) => {
                progress.finish(&format!("{}  {}", point.name, crate::report::format_ns(point.summary.median)));
                record.points.push(*point);
                record.fits = crate::experiments::fits::derive_fits(&record.points);
            }
            ProbeEnd::Interrupted => break,
            ProbeEnd::Failed(kind, reason) => {
                progress.finish(&format!("{}  {reason}", spec.name()));
                record.skipped.push(SkippedPoint::new(spec, kind, reason));
            }
        }
        write_atomic(&path, &record)?;
    }
    progress.done();
    let pin_refusals = record.points.iter().filter(|p| p.notes.iter().any(|n| n.contains("pinn"))).count();
    if pin_refusals > 0 {
        record.warnings.push(format!("Pinning was refused for {pin_refusals} point(s); see their notes."));
    }
    record.interrupted = interrupted.load(Ordering::SeqCst);
    record.finished_utc = Some(chrono::Utc::now().to_rfc3339());
    write_atomic(&path, &record)?;
    Ok(RunOutcome { path, record })
}

/// The run's usual reference-loop speed so far (ns per iteration), once at least [`USUAL_AFTER`] probes have
/// timed it: what the next probe waits for before measuring (`harness::speed::wait_for_usual_speed`).
fn usual_speed(points: &[crate::record::PointRecord]) -> Option<f64> {
    let probes = speed::every_probe(points.iter().map(|p| &p.extra));
    (probes.len() >= USUAL_AFTER).then(|| speed::usual_reference_ns(&probes)).flatten()
}

/// Reference timings needed before the run's usual speed is trusted: two points' worth, before and after each.
const USUAL_AFTER: usize = 4;

/// How one probe ended.
enum ProbeEnd {
    Result(Box<crate::record::PointRecord>),
    Failed(SkipKind, String),
    Interrupted,
}

/// Starts a probe for `job`, waits for it under the watchdog, and reads its answer.
fn run_one(exe: &std::path::Path, job: &ProbeJob, timeout: Duration, interrupted: &AtomicBool) -> ProbeEnd {
    let job_json = serde_json::to_string(job).expect("jobs always serialise");
    let child = Command::new(exe)
        .args(["probe", "--job", &job_json])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
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
    interpret(&out, &err, status)
}

/// Reads the probe's JSON lines: the last result wins; an error message or a crash makes it a failure.
fn interpret(out: &str, err: &str, status: std::process::ExitStatus) -> ProbeEnd {
    let mut error = None;
    for line in out.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<ProbeMessage>(line) {
            Ok(ProbeMessage::Result { point, .. }) if status.success() => return ProbeEnd::Result(point),
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

/// Progress on stderr: a bar with the point's name and ETA on a terminal, one line per point otherwise.
struct Progress {
    bar: Option<ProgressBar>,
    total: usize,
    done: std::cell::Cell<usize>,
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
        Progress { bar, total, done: std::cell::Cell::new(0) }
    }

    fn start(&self, name: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(name.to_owned());
        }
    }

    fn finish(&self, line: &str) {
        self.done.set(self.done.get() + 1);
        match &self.bar {
            Some(bar) => bar.inc(1),
            None => eprintln!("[{}/{}] {line}", self.done.get(), self.total),
        }
    }

    fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
