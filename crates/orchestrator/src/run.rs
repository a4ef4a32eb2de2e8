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
use super::minimum_plan::Schedule;
use super::point_state::PointState;
use super::probe_process::{run_one, ProbeAnswer, ProbeEnd};
use super::progress::Progress;
use super::record_writer::RecordWriter;
use super::rounds::{run_rounds, Flow, Probes};
use super::schedule::costliest_experiments;
use super::sides::SideRun;
use overhead_analysis::{add_distinct_notes, cycle_floor_ns, fastest_reference_ns, merge_processes, Flagging, Process};
use overhead_clock::TimeSourceInfo;
use overhead_experiments::Planned;
use overhead_harness::{speed, Mode};
use overhead_machine::MachineInfo;
use overhead_protocol::{ProbeJob, VERSION};
use overhead_record::{
    first_two_cpus, PointSpec, ProcessCosts, RoundPolicy, RunRecord, SideRecord, Sides, SkipKind, SkippedPoint,
    ToolInfo, SIDE_ORDER,
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
    /// The hosts and launcher arguments of a run across hosts (`--hosts`, `--launcher-arg`); the launcher
    /// arguments also go to one-host points that run as MPI ranks.
    pub launch: overhead_launch::LaunchSettings,
    /// The tool as the binary's build stamped it (name, version, commit, crates under test): the record's `tool`.
    pub tool: ToolInfo,
    /// What each point's process took in this machine's recent runs of the mode (empty without a history):
    /// the expected time of a point until the run has measured it, and the plan's forecast.
    pub costs: ProcessCosts,
    /// The sides to measure the plan on (`--side`), the first the baseline; empty for a run of this binary
    /// alone (docs/METHOD.md §17).
    pub sides: Vec<SideRun>,
    /// Per point, the sides that cannot run it in their own environment and why (`side_plans::merge`);
    /// empty for a run without sides or where every side plans alike.
    pub side_skips: super::side_plans::SideSkips,
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
    let suffixes = name_suffixes(opts.sides.iter().map(|s| s.spec.name.as_str()));
    let (mut points, measured_cpus) =
        planned_points(std::mem::take(&mut opts.plan), &opts.costs, &suffixes, &mut record.skipped);
    skip_per_side(&mut points, &opts.side_skips, &mut record);
    eprintln!("{}", forecast(&points, suffixes.len(), &opts.rounds, &opts.costs, opts.mode));
    let mut writer = RecordWriter::new(opts.out_dir.join("results.json"));
    writer.write_now(&mut record)?;
    let this = std::env::current_exe().context("locating this executable to start probes")?;
    let exes = match opts.sides.is_empty() {
        true => vec![this],
        false => opts.sides.iter().map(|s| s.exe.clone()).collect(),
    };
    let progress = Progress::new(points.len() * opts.rounds.min_rounds);
    let sides = exes.len();
    let mut runner = Runner {
        opts: &opts,
        interrupted,
        exes,
        writer,
        cpu_watch: CpuWatch::start(),
        progress,
        run_started: Instant::now(),
        run_pair: run_pair(&measured_cpus),
        fastest_reference_ns: None,
    };
    run_rounds(&opts.rounds, Schedule::Allotted, sides, &mut points, &mut record, &mut runner)?;
    runner.finish(record, &points, &measured_cpus)
}

/// `spec` as a probe's job carries it: `placement:free` as its parameter alone (the probe settles the field
/// from it), so that a side's older build, whose placements have no `free`, reads the job as it always did.
fn job_spec(spec: &PointSpec) -> PointSpec {
    let mut spec = spec.clone();
    if spec.placement == Some(overhead_machine::Placement::Free) {
        spec.placement = None;
    }
    spec
}

/// The run's first two measured CPUs (sorted), the pair a point on one CPU fingerprints; `None` with one.
fn run_pair(measured_cpus: &[usize]) -> Option<[usize; 2]> {
    first_two_cpus(measured_cpus)
}

/// The pair whose cache-line round trip fingerprints the host's state around `spec`'s processes
/// (docs/METHOD.md §19): its first two distinct CPUs, else the run's pair; none for ranks across hosts,
/// whose CPUs are on other machines.
fn host_pair(spec: &PointSpec, run_pair: &Option<[usize; 2]>) -> Option<[usize; 2]> {
    if !spec.hosts.is_empty() {
        return None;
    }
    first_two_cpus(&spec.cpus).or(*run_pair)
}

/// The record before the first probe: the run's settings, the machine, its warnings, no points yet.
pub fn new_record(opts: &RunOptions) -> RunRecord {
    let mut record = RunRecord::begun(
        opts.tool.clone(),
        opts.mode,
        opts.command_line.clone(),
        chrono::Utc::now().to_rfc3339(),
        opts.time_source.clone(),
        opts.machine.clone(),
    );
    record.rounds = Some(opts.rounds);
    record.warnings = start_warnings(opts);
    record.sides = sides_of(&opts.sides);
    record
}

/// The record's sides before the first probe: what each side is and its build, no points yet; `None` for a
/// run without sides.
fn sides_of(sides: &[SideRun]) -> Option<Sides> {
    (!sides.is_empty()).then(|| Sides {
        sides: sides
            .iter()
            .map(|s| SideRecord {
                spec: s.spec.clone(),
                tool: s.tool.clone(),
                points: Vec::new(),
                skipped: Vec::new(),
                toolchains: s.toolchains.clone(),
            })
            .collect(),
        order: SIDE_ORDER.into(),
        ratios: Vec::new(),
    })
}

/// What the point names of each side (named `sides`, in order) get after the spec's: nothing for the first
/// side (its points keep the names a run without sides gives them), `/side:NAME` for the others; one empty
/// suffix for a run without sides.
pub(crate) fn name_suffixes<'a>(sides: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut names = sides.into_iter();
    match names.next() {
        None => vec![String::new()],
        Some(_) => std::iter::once(String::new()).chain(names.map(|name| format!("/side:{name}"))).collect(),
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

/// The plan's points to measure, in plan order, each on every side (one state per side, named with that
/// side's suffix of `suffixes`, one suffix per side) and expected to cost what `costs` learned of it, and
/// the CPUs they use (sorted, once each); its skipped cells go to `skipped` with their reasons.
pub(crate) fn planned_points(
    plan: Vec<Planned>,
    costs: &ProcessCosts,
    suffixes: &[String],
    skipped: &mut Vec<SkippedPoint>,
) -> (Vec<PointState>, Vec<usize>) {
    let mut points = Vec::new();
    let mut measured_cpus: Vec<usize> = Vec::new();
    for planned in plan {
        match planned {
            Planned::Skip(spec, reason) => skipped.push(SkippedPoint::new(spec, SkipKind::Skipped, reason)),
            Planned::Run(spec) => {
                measured_cpus.extend(&spec.cpus);
                let learned = costs.of(&spec.name());
                for (side, suffix) in suffixes.iter().enumerate() {
                    points.push(PointState::new(spec.clone(), learned).on_side(side, suffix.clone()));
                }
            }
        }
    }
    measured_cpus.sort_unstable();
    measured_cpus.dedup();
    (points, measured_cpus)
}

/// Marks each point's state on a side that cannot run it (planned in its own environment) as done, with that
/// side's reason among the side's skipped cells: the rounds pass it by, and the comparison says the point is
/// not on that side.
fn skip_per_side(points: &mut [PointState], side_skips: &super::side_plans::SideSkips, record: &mut RunRecord) {
    for state in points.iter_mut() {
        let Some(reason) =
            side_skips.get(&state.spec.name()).and_then(|s| s.iter().find(|(side, _)| *side == state.side))
        else {
            continue;
        };
        state.failed = true;
        let skipped = SkippedPoint::new(state.spec.clone(), SkipKind::Skipped, reason.1.clone());
        match (state.side, record.sides.as_mut()) {
            (side, Some(sides)) if side > 0 => sides.sides[side].skipped.push(skipped),
            _ => record.skipped.push(skipped),
        }
    }
}

/// The run in progress: what starting a probe needs, the record's writer, the progress bar, the clock.
struct Runner<'a> {
    opts: &'a RunOptions,
    interrupted: &'a AtomicBool,
    /// The executable each side's probes run as `overhead probe` (this one alone without sides).
    exes: Vec<PathBuf>,
    writer: RecordWriter,
    cpu_watch: CpuWatch,
    progress: Progress,
    run_started: Instant,
    /// The run's first two measured CPUs: the fingerprinted pair of a point on one CPU.
    run_pair: Option<[usize; 2]>,
    /// The fastest reference-loop timing of every process so far (ns per iteration): the cycle floor's input,
    /// kept as answers come in. Taking it again from every process at every answer made the time between
    /// probes grow with the run (0.3 ms at its start, 3.7 ms after 2,400 processes: 8.8 s of an 80 s run).
    fastest_reference_ns: Option<f64>,
}

impl Probes for Runner<'_> {
    fn elapsed(&self) -> Duration {
        self.run_started.elapsed()
    }

    fn stopped(&self) -> bool {
        self.interrupted.load(Ordering::SeqCst)
    }

    fn probe(
        &mut self,
        round: usize,
        i: usize,
        left: usize,
        points: &mut [PointState],
        record: &mut RunRecord,
    ) -> Flow {
        let name = format!("{}{}", points[i].spec.name(), points[i].name_suffix);
        self.progress.start(round, left, &name);
        self.probe_point(round, i, points, record)
    }

    fn group_done(&mut self, record: &mut RunRecord) -> anyhow::Result<()> {
        Ok(self.writer.write_if_due(record)?)
    }

    fn owe(&mut self, probes: usize) {
        self.progress.add(probes);
    }

    fn pass(&mut self) {
        self.progress.skip();
    }

    fn say(&mut self, line: &str) {
        self.progress.say(line);
    }
}

impl Runner<'_> {
    /// Point `i`'s probe of round `round`, taken into the record.
    fn probe_point(&mut self, round: usize, i: usize, points: &mut [PointState], record: &mut RunRecord) -> Flow {
        let job = self.job_for(&points[i], record);
        let started = Instant::now();
        let started_s = Some(started.duration_since(self.run_started).as_secs_f64());
        self.cpu_watch.before_probe();
        let side = points[i].side;
        let env = self.opts.sides.get(side).map_or(&[][..], |s| &s.spec.env[..]);
        let end = run_one(&self.exes[side], env, &job, &self.opts.launch, self.opts.point_timeout, self.interrupted);
        let cpu = self.cpu_watch.after_probe(&job.spec.cpus);
        let wall_ms = started.elapsed().as_secs_f64() * 1e3;
        match end {
            ProbeEnd::Result(mut answer) => {
                if let Some(cpu) = cpu {
                    cpu.put_into(&mut answer.point.extra);
                }
                self.take_answer(i, answer, ProbeTiming { round, wall_ms, started_s }, points, record)
            }
            ProbeEnd::Failed(kind, reason) => self.take_failure(i, round, kind, reason, points, record),
            ProbeEnd::Interrupted => return Flow::Stop,
        }
        Flow::Go
    }

    /// The job of `point`'s next probe.
    fn job_for(&self, point: &PointState, record: &RunRecord) -> ProbeJob {
        // The run's settings, as the point's experiment adjusts them (longer batches for streams).
        let harness = overhead_experiments::find(&point.spec.experiment)
            .map_or(record.harness, |e| e.harness_config(record.harness));
        ProbeJob {
            v: VERSION,
            spec: job_spec(&point.spec),
            time_source: self.opts.time_source.clone(),
            harness,
            batch_ops_hint: point.batch_ops_hint,
            host_pair: host_pair(&point.spec, &self.run_pair),
        }
    }

    /// A probe's answer: the point's new process, its batch size and refused pinnings, and the point merged
    /// again from all its processes under the rules as they stand.
    fn take_answer(
        &mut self,
        i: usize,
        answer: ProbeAnswer,
        timing: ProbeTiming,
        points: &mut [PointState],
        record: &mut RunRecord,
    ) {
        // One batch size for the point on every side, so each side times the same work.
        let sides = self.exes.len();
        for state in &mut points[i / sides * sides..(i / sides + 1) * sides] {
            state.batch_ops_hint = state.batch_ops_hint.or(answer.sized_batch_ops);
        }
        let state = &mut points[i];
        state.pin_refusals += answer.pin_refusals;
        let ProbeTiming { round, wall_ms, started_s } = timing;
        let fastest = cycle_input(self.fastest_reference_ns, &answer.point.extra);
        self.fastest_reference_ns = fastest;
        state.processes.push(Process { record: *answer.point, round, wall_ms, started_s });
        let rules = rules_with_cycle(record, cycle_floor_ns(fastest));
        let point = points[i].merge_into(record, &rules);
        self.progress.finish(&format!("{}  {}", point.name, overhead_humanize::format_ns(point.summary.median)));
    }

    /// A failed probe: the point gets no more rounds; without a result it becomes a skipped cell with the
    /// reason, with one its record keeps the failure as a note.
    fn take_failure(
        &mut self,
        i: usize,
        round: usize,
        kind: SkipKind,
        reason: String,
        points: &mut [PointState],
        record: &mut RunRecord,
    ) {
        let state = &mut points[i];
        self.progress.finish(&format!("{}{}  {reason}", state.spec.name(), state.name_suffix));
        state.failed = true;
        if let Some(point) = state.merged_mut(record) {
            point.notes.push(format!("round {round}: the probe failed: {reason}"));
            return;
        }
        let skipped = SkippedPoint::new(state.spec.clone(), kind, reason);
        match (state.side, record.sides.as_mut()) {
            (side, Some(sides)) if side > 0 => sides.sides[side].skipped.push(skipped),
            _ => record.skipped.push(skipped),
        }
    }

    /// The end of the run: every point merged under the final rules, the run's warnings, the machine's
    /// state, how it ended; the record analysed and written once more.
    ///
    /// Errors: the record could not be written.
    fn finish(
        mut self,
        mut record: RunRecord,
        points: &[PointState],
        measured_cpus: &[usize],
    ) -> anyhow::Result<RunOutcome> {
        self.progress.done();
        merge_all_again(&mut record, points, &self.opts.rounds);
        warn_of_refused_pinning(&mut record, points);
        warn_of_the_deadline(&mut record, points, &self.opts.rounds);
        record.machine_state = self.cpu_watch.finish(measured_cpus);
        if let Some(warning) = record.machine_state.as_ref().and_then(|m| m.warning()) {
            record.warnings.push(warning);
        }
        record.interrupted = self.interrupted.load(Ordering::SeqCst);
        record.finished_utc = Some(chrono::Utc::now().to_rfc3339());
        self.writer.write_now(&mut record)?;
        Ok(RunOutcome { path: self.writer.path().to_path_buf(), record })
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
        let point = state.merged_mut(record).expect("a point with processes has a slot");
        let notes = std::mem::take(&mut point.notes);
        *point = merge_processes(&state.processes, &rules);
        point.name = format!("{}{}", point.spec.name(), state.name_suffix);
        add_distinct_notes(&mut point.notes, notes);
        if state.short_of_minimum {
            point.notes.push(short_of_minimum_note(state, policy));
        } else if state.out_of_budget {
            point.notes.push(format!(
                "the run's time budget ({} s) ran out before this point's CI reached {:.0}% of its median",
                policy.budget_s,
                policy.target_half_width * 100.0
            ));
        }
    }
}

/// What a point cut short of the minimum rounds says: how many processes it got, why, and what one cost.
fn short_of_minimum_note(state: &PointState, policy: &RoundPolicy) -> String {
    format!(
        "measured by {} process(es), not the minimum {}: the run's deadline ({:.0} s from the first probe) came \
         first, and one process of this point takes {:.0} ms here",
        state.processes.len(),
        policy.min_rounds,
        policy.deadline_s.unwrap_or(f64::INFINITY),
        state.expected_wall().as_secs_f64() * 1e3
    )
}

/// The run's plan in a line, said before the first probe: its points and owed processes, and, when the
/// history knows what their processes cost here, how long the minimum rounds will take, against the
/// deadline (docs/METHOD.md §4).
fn forecast(points: &[PointState], sides: usize, policy: &RoundPolicy, costs: &ProcessCosts, mode: Mode) -> String {
    let on_sides = if sides > 1 { format!(" on each of {sides} sides") } else { String::new() };
    let mut line = format!("plan: {} points{on_sides}, {} processes each", points.len() / sides, policy.min_rounds);
    if costs.is_empty() {
        line += &format!("; this machine's history has no {} run to forecast from", mode.name());
    } else {
        let known: Vec<Duration> = points.iter().filter_map(|p| p.learned_wall).collect();
        let minimum_s = known.iter().sum::<Duration>().as_secs_f64() * policy.min_rounds as f64;
        line += &format!("; this machine's last {} {} run(s) put them at {:.0} s", costs.runs, mode.name(), minimum_s);
        let unknown = points.len() - known.len();
        if unknown > 0 {
            line += &format!(" (and {unknown} point(s) they did not measure)");
        }
        if let Some(deadline_s) = policy.deadline_s.filter(|&d| minimum_s > d) {
            line += &format!(
                "; over the {deadline_s:.0} s deadline: the costliest points will get fewer processes (--only measures less)"
            );
        }
    }
    line += &format!("; refining until {:.0} s", policy.budget_s);
    if let Some(deadline_s) = policy.deadline_s {
        line += &format!(", no probe starts after {deadline_s:.0} s");
    }
    line
}

/// A run warning when the deadline left points short of the minimum rounds: how many, how many with one
/// process, whose CI is its own batches' and understates what varies between processes (docs/METHOD.md §2),
/// and which experiments they belong to, costliest first (the ones that gave way, docs/METHOD.md §4).
fn warn_of_the_deadline(record: &mut RunRecord, points: &[PointState], policy: &RoundPolicy) {
    let short = points.iter().filter(|s| s.short_of_minimum && !s.processes.is_empty()).count();
    if short == 0 {
        return;
    }
    let single = points.iter().filter(|s| s.short_of_minimum && s.processes.len() == 1).count();
    let mut warning = format!(
        "The run's deadline ({:.0} s) came before the minimum rounds: {short} point(s) got fewer than {} processes",
        policy.deadline_s.unwrap_or(f64::INFINITY),
        policy.min_rounds
    );
    if single > 0 {
        warning += &format!(
            ", {single} only one (no interval over processes: its batches' scatter says nothing of the next process)"
        );
    }
    warning += &format!("; the costliest gave way first: {}", short_experiments(points));
    record.warnings.push(warning + "; --only measures fewer points in the same time.");
}

/// The experiments of the points left short of the minimum, costliest process first
/// ([`costliest_experiments`]), at most [`NAMED_SHORT`] of them.
fn short_experiments(points: &[PointState]) -> String {
    let short = points.iter().filter(|s| s.short_of_minimum && !s.processes.is_empty());
    costliest_experiments(short.map(|s| (s.spec.experiment.as_str(), s.expected_wall())), NAMED_SHORT)
}

/// How many experiments the deadline warning names.
const NAMED_SHORT: usize = 6;

/// A run warning when the kernel refused pinning for any point, counted from the refusals its processes
/// reported (the notes say which threads ran unpinned).
fn warn_of_refused_pinning(record: &mut RunRecord, points: &[PointState]) {
    let refused = points.iter().filter(|s| s.pin_refusals > 0).count();
    if refused > 0 {
        record.warnings.push(format!("Pinning was refused for {refused} point(s); see their notes."));
    }
}

/// The fastest reference timing so far, `fastest`, with a new process's `extra` (its timings before and after)
/// taken in: the minimum that [`cycle_floor_ns`] takes over every process, kept as the run goes.
fn cycle_input(fastest: Option<f64>, extra: &std::collections::BTreeMap<String, f64>) -> Option<f64> {
    fastest_reference_ns(speed::every_probe([extra]).into_iter().chain(fastest))
}

/// The flagging rules as the run knows them now: the record's noisy fraction, processes more than 1% apart
/// for `unstable`, and one cycle from every reference-loop timing so far.
fn flagging(record: &RunRecord, points: &[PointState]) -> Flagging {
    flagging_of(record, points.iter().flat_map(|s| s.processes.iter().map(|p| &p.record.extra)))
}

/// The rules a point's flags are judged by: the record's noisy fraction, [`UNSTABLE_SPREAD`], and one cycle
/// from the reference loop in `extras` (every process's extra values).
pub fn flagging_of<'a>(
    record: &RunRecord,
    extras: impl Iterator<Item = &'a std::collections::BTreeMap<String, f64>>,
) -> Flagging {
    rules_with_cycle(record, cycle_floor_ns(speed::every_probe(extras)))
}

/// The rules with the record's noisy fraction, [`UNSTABLE_SPREAD`] and `cycle_ns` as one cycle.
fn rules_with_cycle(record: &RunRecord, cycle_ns: Option<f64>) -> Flagging {
    Flagging { noisy_fraction: record.harness.noisy_fraction, unstable_spread: UNSTABLE_SPREAD, cycle_ns }
}

/// Process medians closer than this fraction of the estimate never make a point `unstable`.
const UNSTABLE_SPREAD: f64 = 0.01;

#[cfg(test)]
mod tests {
    use super::*;

    /// A free stream's job carries its placement as the parameter alone, which the probe settles back; every
    /// other placement travels as it is.
    #[test]
    fn a_free_placement_travels_as_its_parameter() {
        let free = overhead_record::fixture::spec("msg.throughput", "os", &[("placement", "free")], &[0, 1]);
        assert!(free.threads_free());
        let mut sent = job_spec(&free);
        assert_eq!(sent.placement, None, "an older probe reads no `free`");
        sent.settle_placement();
        assert!(sent.threads_free(), "the probe settles it from the parameter");
        let pair = overhead_record::fixture::spec("msg.ipc", "os", &[("placement", "other_core")], &[0, 1]);
        assert_eq!(job_spec(&pair).placement, pair.placement);
    }

    /// The cycle floor kept answer by answer is the one taken from every process at the end: the minimum of
    /// every reference timing, timings that are not positive left out.
    #[test]
    fn the_running_cycle_input_is_the_minimum_over_every_process() {
        use overhead_schema::speed::{AFTER, BEFORE};
        let extras: Vec<std::collections::BTreeMap<String, f64>> =
            [(0.30, 0.28), (0.31, 0.0), (0.27, 0.29), (0.40, -1.0)]
                .iter()
                .map(|&(b, a)| [(BEFORE.to_string(), b), (AFTER.to_string(), a)].into())
                .collect();
        let running = extras.iter().fold(None, cycle_input);
        assert_eq!(running, Some(0.27));
        assert_eq!(cycle_floor_ns(running), cycle_floor_ns(speed::every_probe(&extras)));
        assert_eq!(cycle_input(None, &Default::default()), None);
    }

    use overhead_record::fixture::sample_record;

    #[test]
    fn the_forecast_sums_the_learned_costs_of_the_owed_processes_and_says_when_they_overrun() {
        let spec = sample_record().points[0].spec.clone();
        let policy = RoundPolicy { deadline_s: Some(10.0), ..RoundPolicy::for_mode(Mode::Default) };
        let mut points = vec![
            PointState::new(spec.clone(), Some(Duration::from_secs(1))),
            PointState::new(spec.clone(), Some(Duration::from_secs(2))),
            PointState::new(spec, None),
        ];
        let none = forecast(&points, 1, &policy, &ProcessCosts::default(), Mode::Default);
        assert!(none.contains("no default run to forecast from"), "{none}");
        let mut learned = overhead_record::fixture::run_summary("r", &[], 0.0);
        learned.process_wall_ms.insert("x".into(), 1.0);
        let costs = ProcessCosts::learn(&[&learned], Mode::Default);
        let line = forecast(&points, 1, &policy, &costs, Mode::Default);
        assert!(
            line.starts_with("plan: 3 points, 3 processes each; this machine's last 1 default run(s) put them at 9 s"),
            "{line}"
        );
        assert!(line.contains("(and 1 point(s) they did not measure)") && !line.contains("over the"), "{line}");
        points[1].learned_wall = Some(Duration::from_secs(3));
        let over = forecast(&points, 1, &policy, &costs, Mode::Default);
        assert!(over.contains("put them at 12 s") && over.contains("over the 10 s deadline"), "{over}");
    }

    #[test]
    fn the_deadline_warning_counts_the_points_it_cut_and_those_left_with_one_process() {
        let mut record = sample_record();
        let spec = record.points[0].spec.clone();
        let policy = RoundPolicy::for_mode(Mode::Quick);
        let process = Process { record: record.points[0].clone(), round: 1, wall_ms: 10.0, started_s: None };
        let mut points: Vec<PointState> = (0..3).map(|_| PointState::new(spec.clone(), None)).collect();
        warn_of_the_deadline(&mut record, &points, &policy);
        assert_eq!(record.warnings, ["a warning"], "nothing cut, no warning");
        points[0].processes = vec![process.clone()];
        points[1].processes = vec![process.clone(), process];
        (points[0].short_of_minimum, points[1].short_of_minimum) = (true, true);
        warn_of_the_deadline(&mut record, &points, &policy);
        assert!(record.warnings[1].starts_with("The run's deadline (28 s) came before the minimum rounds: 2 point(s)"));
        assert!(record.warnings[1].contains(", 1 only one"), "{}", record.warnings[1]);
        assert!(
            record.warnings[1].contains("gave way first: sync.faa (2 points, up to 10 ms a process)"),
            "{}",
            record.warnings[1]
        );
    }

    #[test]
    fn the_pinning_warning_counts_the_points_whose_processes_reported_refusals() {
        let mut record = sample_record();
        let spec = record.points[0].spec.clone();
        let mut points: Vec<PointState> = (0..3).map(|_| PointState::new(spec.clone(), None)).collect();
        warn_of_refused_pinning(&mut record, &points);
        assert_eq!(record.warnings, ["a warning"], "no refusal, no warning");
        (points[0].pin_refusals, points[2].pin_refusals) = (1, 4);
        warn_of_refused_pinning(&mut record, &points);
        assert_eq!(record.warnings[1], "Pinning was refused for 2 point(s); see their notes.");
    }
}
