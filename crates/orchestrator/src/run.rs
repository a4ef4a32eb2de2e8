//! Running a plan: rounds of probe processes (one per point per round) under a watchdog, each point merged
//! from its processes, the record analysed and rewritten atomically after a probe at most once a second
//! and at the end. The concerns live apart: which points a round measures and what the budget allows
//! (`schedule`), one probe process (`probe_process`), a point's state (`point_state`), the record on disk
//! (`record_writer`), the progress bar (`progress`); this file builds the record and drives the rounds.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context as _;

use super::machine_state::CpuWatch;
use super::point_state::PointState;
use super::probe_process::{run_one, ProbeAnswer, ProbeEnd};
use super::progress::Progress;
use super::record_writer::RecordWriter;
use super::schedule::{budget_allows, points_of_round};
use overhead_analysis::{add_distinct_notes, cycle_floor_ns, merge_processes, Flagging, Process};
use overhead_clock::TimeSourceInfo;
use overhead_experiments::Planned;
use overhead_harness::{speed, HarnessConfig, Mode};
use overhead_machine::MachineInfo;
use overhead_protocol::{ProbeJob, VERSION};
use overhead_record::RoundPolicy;
use overhead_record::{RunRecord, SkipKind, SkippedPoint, ToolInfo, SCHEMA_VERSION};

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
    /// The hosts and launcher arguments of a run across hosts (`--hosts`, `--launcher-arg`); the launcher
    /// arguments also go to one-host points that run as MPI ranks.
    pub launch: overhead_hosts::LaunchSettings,
    /// The tool as the binary's build stamped it (name, version, commit, crates under test): the record's `tool`.
    pub tool: ToolInfo,
}

/// Where the record went and what it holds.
pub struct RunOutcome {
    pub path: PathBuf,
    pub record: RunRecord,
}

/// Runs `opts.plan` in rounds of probe processes ([`RoundPolicy`]), analysing and rewriting `results.json`
/// atomically after a probe at most once a second (`record_writer::WRITE_EVERY`) and at the end: after
/// round 1 every point has a value, later rounds tighten it. When `interrupted` becomes true (Ctrl-C) the
/// running probe is killed, the record is marked interrupted and keeps every finished process.
///
/// Errors: the record could not be written, or this executable could not be started as a probe.
pub fn run(mut opts: RunOptions, interrupted: &AtomicBool) -> anyhow::Result<RunOutcome> {
    let mut record = new_record(&opts);
    let (points, measured_cpus) = planned_points(std::mem::take(&mut opts.plan), &mut record.skipped);
    let mut writer = RecordWriter::new(opts.out_dir.join("results.json"));
    writer.write_now(&mut record)?;
    let exe = std::env::current_exe().context("locating this executable to start probes")?;
    let progress = Progress::new(points.len() * opts.rounds.min_rounds);
    let mut runner = Runner {
        opts: &opts,
        interrupted,
        exe,
        record,
        points,
        writer,
        cpu_watch: CpuWatch::start(),
        progress,
        run_started: Instant::now(),
    };
    runner.run_rounds()?;
    runner.finish(&measured_cpus)
}

/// The record before the first probe: the run's settings, the machine, its warnings, no points yet.
fn new_record(opts: &RunOptions) -> RunRecord {
    RunRecord {
        schema_version: SCHEMA_VERSION,
        tool: opts.tool.clone(),
        mode: opts.mode,
        command_line: opts.command_line.clone(),
        started_utc: chrono::Utc::now().to_rfc3339(),
        finished_utc: None,
        interrupted: false,
        time_source: opts.time_source.clone(),
        harness: HarnessConfig::for_mode(opts.mode),
        rounds: Some(opts.rounds),
        machine: opts.machine.clone(),
        warnings: start_warnings(opts),
        speed_warning: None,
        speed: None,
        machine_state: None,
        between_runs: None,
        points: Vec::new(),
        skipped: Vec::new(),
        fits: Vec::new(),
        comparisons: Vec::new(),
        count_fits: Vec::new(),
        choices: Vec::new(),
    }
}

/// The warnings known before measuring: the machine's timing warnings, and a time source calibrated on a
/// busy machine.
fn start_warnings(opts: &RunOptions) -> Vec<String> {
    let mut warnings = opts.machine.timing_warnings();
    if opts.time_source.calibration_error_ppm > 100.0 {
        warnings.push(format!(
            "The time source's rate is known only to ±{:.0} ppm; the machine was busy during calibration.",
            opts.time_source.calibration_error_ppm
        ));
    }
    warnings
}

/// The plan's points to measure, in plan order, and the CPUs they use (sorted, once each); its skipped
/// cells go to `skipped` with their reasons.
fn planned_points(plan: Vec<Planned>, skipped: &mut Vec<SkippedPoint>) -> (Vec<PointState>, Vec<usize>) {
    let mut points = Vec::new();
    let mut measured_cpus: Vec<usize> = Vec::new();
    for planned in plan {
        match planned {
            Planned::Skip(spec, reason) => skipped.push(SkippedPoint::new(spec, SkipKind::Skipped, reason)),
            Planned::Run(spec) => {
                measured_cpus.extend(&spec.cpus);
                points.push(PointState::new(spec))
            }
        }
    }
    measured_cpus.sort_unstable();
    measured_cpus.dedup();
    (points, measured_cpus)
}

/// Whether the run goes on.
enum Flow {
    Go,
    /// Ctrl-C: no more probes.
    Stop,
}

/// The run in progress: the record, each point's state, and what starting a probe needs.
struct Runner<'a> {
    opts: &'a RunOptions,
    interrupted: &'a AtomicBool,
    /// This executable, started as `overhead probe`.
    exe: PathBuf,
    record: RunRecord,
    points: Vec<PointState>,
    writer: RecordWriter,
    cpu_watch: CpuWatch,
    progress: Progress,
    run_started: Instant,
}

impl Runner<'_> {
    /// Round after round until no point wants another process, the last round, or Ctrl-C.
    ///
    /// Errors: the record could not be written.
    fn run_rounds(&mut self) -> anyhow::Result<()> {
        let policy = self.opts.rounds;
        for round in 1..=policy.max_rounds {
            let wanted = points_of_round(&policy, round, &self.points, &self.record);
            if wanted.is_empty() {
                break;
            }
            if round > policy.min_rounds {
                self.progress.add(wanted.len());
            }
            if let Flow::Stop = self.run_round(round, &wanted)? {
                break;
            }
        }
        Ok(())
    }

    /// One round: a probe for each of `wanted` (indices into the points) that the budget allows.
    ///
    /// Errors: the record could not be written.
    fn run_round(&mut self, round: usize, wanted: &[usize]) -> anyhow::Result<Flow> {
        for (done_in_round, &i) in wanted.iter().enumerate() {
            if self.interrupted.load(Ordering::SeqCst) {
                return Ok(Flow::Stop);
            }
            let elapsed = self.run_started.elapsed();
            if !budget_allows(&self.opts.rounds, round, &self.points[i], self.points.len(), elapsed) {
                self.points[i].out_of_budget = true;
                self.progress.skip();
                continue;
            }
            self.progress.start(round, wanted.len() - done_in_round, &self.points[i].spec.name());
            if let Flow::Stop = self.probe(round, i) {
                return Ok(Flow::Stop);
            }
            self.writer.write_if_due(&mut self.record)?;
        }
        Ok(Flow::Go)
    }

    /// Point `i`'s probe of round `round`, taken into the record.
    fn probe(&mut self, round: usize, i: usize) -> Flow {
        let job = self.job_for(&self.points[i]);
        let started = Instant::now();
        let started_s = Some(started.duration_since(self.run_started).as_secs_f64());
        self.cpu_watch.before_probe();
        let end = run_one(&self.exe, &job, &self.opts.launch, self.opts.point_timeout, self.interrupted);
        self.cpu_watch.after_probe(&job.spec.cpus);
        let wall_ms = started.elapsed().as_secs_f64() * 1e3;
        match end {
            ProbeEnd::Result(answer) => self.take_answer(i, answer, ProbeTiming { round, wall_ms, started_s }),
            ProbeEnd::Failed(kind, reason) => self.take_failure(i, round, kind, reason),
            ProbeEnd::Interrupted => return Flow::Stop,
        }
        Flow::Go
    }

    /// The job of `point`'s next probe.
    fn job_for(&self, point: &PointState) -> ProbeJob {
        ProbeJob {
            v: VERSION,
            spec: point.spec.clone(),
            time_source: self.opts.time_source.clone(),
            harness: self.record.harness,
            batch_ops_hint: point.batch_ops_hint,
        }
    }

    /// A probe's answer: the point's new process, its batch size and refused pinnings, and the point merged
    /// again from all its processes under the rules as they stand.
    fn take_answer(&mut self, i: usize, answer: ProbeAnswer, timing: ProbeTiming) {
        let state = &mut self.points[i];
        state.batch_ops_hint = state.batch_ops_hint.or(answer.sized_batch_ops);
        state.pin_refusals += answer.pin_refusals;
        let ProbeTiming { round, wall_ms, started_s } = timing;
        state.processes.push(Process { record: *answer.point, round, wall_ms, started_s });
        let rules = flagging(&self.record, &self.points);
        let point = self.points[i].merge_into(&mut self.record, &rules);
        self.progress.finish(&format!("{}  {}", point.name, overhead_units::format_ns(point.summary.median)));
    }

    /// A failed probe: the point gets no more rounds; without a result it becomes a skipped cell with the
    /// reason, with one its record keeps the failure as a note.
    fn take_failure(&mut self, i: usize, round: usize, kind: SkipKind, reason: String) {
        let state = &mut self.points[i];
        self.progress.finish(&format!("{}  {reason}", state.spec.name()));
        state.failed = true;
        match state.slot {
            None => self.record.skipped.push(SkippedPoint::new(state.spec.clone(), kind, reason)),
            Some(slot) => self.record.points[slot].notes.push(format!("round {round}: the probe failed: {reason}")),
        }
    }

    /// The end of the run: every point merged under the final rules, the run's warnings, the machine's
    /// state, how it ended; the record analysed and written once more.
    ///
    /// Errors: the record could not be written.
    fn finish(mut self, measured_cpus: &[usize]) -> anyhow::Result<RunOutcome> {
        self.progress.done();
        merge_all_again(&mut self.record, &self.points, &self.opts.rounds);
        warn_of_refused_pinning(&mut self.record, &self.points);
        self.record.machine_state = self.cpu_watch.finish(measured_cpus);
        if let Some(warning) = self.record.machine_state.as_ref().and_then(|m| m.warning()) {
            self.record.warnings.push(warning);
        }
        self.record.interrupted = self.interrupted.load(Ordering::SeqCst);
        self.record.finished_utc = Some(chrono::Utc::now().to_rfc3339());
        self.writer.write_now(&mut self.record)?;
        Ok(RunOutcome { path: self.writer.path().to_path_buf(), record: self.record })
    }
}

/// When a probe ran, for its [`Process`].
struct ProbeTiming {
    round: usize,
    /// Its wall time, start-up included (ms).
    wall_ms: f64,
    /// Seconds after the run started.
    started_s: Option<f64>,
}

/// Every measured point merged once more: the cycle floor is known best at the end, so every point's flags
/// are judged against it again. The notes the run added (a failed round) stay beside the processes' own,
/// and a point the budget stopped short of its target says so.
fn merge_all_again(record: &mut RunRecord, points: &[PointState], policy: &RoundPolicy) {
    let rules = flagging(record, points);
    for state in points.iter().filter(|s| !s.processes.is_empty()) {
        let slot = state.slot.expect("a point with processes has a slot");
        let notes = std::mem::take(&mut record.points[slot].notes);
        record.points[slot] = merge_processes(&state.processes, &rules);
        add_distinct_notes(&mut record.points[slot].notes, notes);
        if state.out_of_budget {
            record.points[slot].notes.push(format!(
                "the run's time budget ({} s) ran out before this point's CI reached {:.0}% of its median",
                policy.budget_s,
                policy.target_half_width * 100.0
            ));
        }
    }
}

/// A run warning when the kernel refused pinning for any point, counted from the refusals its processes
/// reported (the notes say which threads ran unpinned).
fn warn_of_refused_pinning(record: &mut RunRecord, points: &[PointState]) {
    let refused = points.iter().filter(|s| s.pin_refusals > 0).count();
    if refused > 0 {
        record.warnings.push(format!("Pinning was refused for {refused} point(s); see their notes."));
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

/// Process medians closer than this fraction of the estimate never make a point `unstable`.
const UNSTABLE_SPREAD: f64 = 0.01;

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::sample_record;

    #[test]
    fn the_pinning_warning_counts_the_points_whose_processes_reported_refusals() {
        let mut record = sample_record();
        let spec = record.points[0].spec.clone();
        let mut points: Vec<PointState> = (0..3).map(|_| PointState::new(spec.clone())).collect();
        warn_of_refused_pinning(&mut record, &points);
        assert_eq!(record.warnings, ["a warning"], "no refusal, no warning");
        (points[0].pin_refusals, points[2].pin_refusals) = (1, 4);
        warn_of_refused_pinning(&mut record, &points);
        assert_eq!(record.warnings[1], "Pinning was refused for 2 point(s); see their notes.");
    }
}
