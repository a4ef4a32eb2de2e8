//! A run simulated: a plan's processes replayed from a recorded run's costs through the rounds the real run
//! goes through ([`crate::rounds::run_rounds`]), on a clock that advances by each process's recorded wall
//! time and the overhead the recorded run paid between probes (docs/METHOD.md "The schedule, simulated").
//! It answers what a run would do on a machine one does not have, and how a change of the schedule would
//! have served a run one did make.

mod costs;

use std::time::Duration;

pub use costs::{RecordedCosts, RecordedPoint, Replayed, Source};

use super::minimum_plan::Schedule;
use super::point_state::PointState;
use super::record_writer::WRITE_EVERY;
use super::rounds::{run_rounds, Flow, Probes};
use overhead_analysis::Process;
use overhead_experiments::Planned;
use overhead_record::{
    PointRecord, ProcessCosts, RoundPolicy, RunRecord, SideRecord, SideSpec, Sides, SkippedPoint, SIDE_ORDER,
};

/// One simulated point: its name (with its side's suffix), the processes it would get, what one costs.
#[derive(Debug, Clone)]
pub struct SimulatedPoint {
    pub name: String,
    pub processes: usize,
    /// Its mean process wall time (ms).
    pub ms_per_process: f64,
    /// Its first process's wall time (ms; 0 without one).
    pub first_ms: f64,
    /// Where its costs came from.
    pub source: Source,
}

/// What a simulated run would do.
#[derive(Debug, Clone)]
pub struct Simulation {
    /// Every planned point on every side, in plan order.
    pub points: Vec<SimulatedPoint>,
    /// When its last probe would end, after the first starts.
    pub wall: Duration,
    /// What the run would have said on the way (the plan of the minimum giving way).
    pub said: Vec<String>,
    /// The sides it ran on (1 without sides).
    pub sides: usize,
}

impl Simulation {
    /// Its points a line each, as `--plan` lists them with what they would get: `NAME  N processes  X ms each
    /// (SOURCE)`.
    pub fn listing(&self) -> String {
        let mut out = String::new();
        for p in &self.points {
            let source = match p.source {
                Source::Recorded => "",
                Source::Scaled => "  (cost scaled by threads)",
                Source::Median => "  (cost: its experiment's median)",
            };
            out += &format!("{}  {} processes  {:.1} ms each{source}\n", p.name, p.processes, p.ms_per_process);
        }
        out
    }

    /// The closing line: `simulated: P points, N processes, W s, fewest processes a point M` (P counts the
    /// plan's points once however many sides).
    pub fn last_line(&self) -> String {
        let processes: usize = self.points.iter().map(|p| p.processes).sum();
        let fewest = self.points.iter().map(|p| p.processes).min().unwrap_or(0);
        format!(
            "simulated: {} points, {processes} processes, {:.1} s, fewest processes a point {fewest}",
            self.points.len() / self.sides.max(1),
            self.wall.as_secs_f64()
        )
    }
}

/// Simulates running `plan` on the sides named `sides` (none: a run without sides) under `policy` and
/// `schedule`, each point's processes costing what `costs` recorded for it ([`RecordedCosts::replay`]).
/// Points whose runtime the recorded machine did not have are left out, as that machine's run would skip them.
/// `base` is any run record with a point (the recorded run's, say): the simulation merges its points into it,
/// emptied, and gives each a copy of that point with the CI the rounds would read.
///
/// Errors: `base` has no point.
pub fn simulate(
    plan: Vec<Planned>,
    sides: &[String],
    policy: RoundPolicy,
    schedule: Schedule,
    costs: &RecordedCosts,
    base: RunRecord,
) -> Result<Simulation, String> {
    let suffixes = super::run::name_suffixes(sides.iter().map(String::as_str));
    let plan: Vec<Planned> = plan
        .into_iter()
        .filter(|p| !matches!(p, Planned::Run(s) if costs.unavailable_runtimes.contains(s.runtime.as_str())))
        .collect();
    let mut skipped: Vec<SkippedPoint> = Vec::new();
    let (mut points, _) = super::run::planned_points(plan, &ProcessCosts::default(), &suffixes, &mut skipped);
    let replays: Vec<Replayed> = points.iter().map(|p| costs.replay(&p.spec, &p.name_suffix)).collect();
    let template = base.points.first().cloned().ok_or("the record to simulate with has no point")?;
    let mut record = emptied(base, sides);
    let mut clock = Clock {
        costs,
        replays: &replays,
        template,
        now: Duration::ZERO,
        done: 0,
        said: Vec::new(),
        write_share: schedule.write_share(),
        last_write: Duration::ZERO,
        last_took: Duration::ZERO,
    };
    let groups = suffixes.len();
    run_rounds(&policy, schedule, groups, &mut points, &mut record, &mut clock).expect("a simulation writes nothing");
    Ok(Simulation {
        points: points
            .iter()
            .zip(&replays)
            .map(|(p, r)| SimulatedPoint {
                name: format!("{}{}", p.spec.name(), p.name_suffix),
                processes: p.processes.len(),
                ms_per_process: p.expected_wall().as_secs_f64() * 1e3,
                first_ms: p.processes.first().map_or(0.0, |q| q.wall_ms),
                source: r.source,
            })
            .collect(),
        wall: clock.now,
        said: clock.said,
        sides: groups,
    })
}

/// `record` as the simulation merges its points into: no points, and a slot for each of `sides`. The rounds
/// read only its points (their CIs); the rest is never written anywhere.
fn emptied(mut record: RunRecord, sides: &[String]) -> RunRecord {
    record.points.clear();
    record.sides = (!sides.is_empty()).then(|| Sides {
        sides: sides
            .iter()
            .map(|name| SideRecord {
                spec: SideSpec { name: name.clone(), binary: None, env: Vec::new() },
                tool: record.tool.clone(),
                points: Vec::new(),
                skipped: Vec::new(),
                toolchains: Vec::new(),
            })
            .collect(),
        order: SIDE_ORDER.into(),
        ratios: Vec::new(),
    });
    record
}

/// The simulated clock and what the probes replay.
struct Clock<'a> {
    costs: &'a RecordedCosts,
    /// Per point state (same order), its recorded costs.
    replays: &'a [Replayed<'a>],
    /// The point every merged record is a copy of, its spec and CI replaced.
    template: PointRecord,
    now: Duration,
    /// Processes replayed so far.
    done: usize,
    said: Vec<String>,
    /// The record's rewrites: [`Schedule::write_share`], when the last ended, what it took.
    write_share: u32,
    last_write: Duration,
    last_took: Duration,
}

impl Probes for Clock<'_> {
    fn elapsed(&self) -> Duration {
        self.now
    }

    fn stopped(&self) -> bool {
        false
    }

    /// The point's next process, as long as its recorded one, then the recorded gap before the next probe;
    /// its merged record is a placeholder whose CI is as wide, relative to its estimate, as the recorded point's
    /// would be at this many processes ([`Replayed::ci_rel`]): all the rounds read of it.
    fn probe(
        &mut self,
        round: usize,
        i: usize,
        _left: usize,
        points: &mut [PointState],
        record: &mut RunRecord,
    ) -> Flow {
        let replay = self.replays[i];
        let k = points[i].processes.len();
        let wall_ms = replay.wall_ms(k);
        let started_s = Some(self.now.as_secs_f64());
        let [at_none, per_process] = self.costs.between_ms;
        let gap_ms = at_none + per_process * self.done as f64;
        self.now += Duration::from_secs_f64((wall_ms + gap_ms) / 1e3);
        self.done += 1;
        let merged = placeholder(&self.template, &points[i], replay.ci_rel(k + 1));
        points[i].processes.push(Process { record: merged.clone(), round, wall_ms, started_s });
        points[i].put_merged(record, merged);
        Flow::Go
    }

    /// The record's rewrite when the real run's would be due (`record_writer`), costing what the recorded
    /// run's rewrites cost at this many processes.
    fn group_done(&mut self, _record: &mut RunRecord) -> anyhow::Result<()> {
        let due = WRITE_EVERY.max(self.last_took * self.write_share);
        if self.now.saturating_sub(self.last_write) >= due {
            let [at_none, per_process] = self.costs.write_ms;
            self.last_took = Duration::from_secs_f64((at_none + per_process * self.done as f64) / 1e3);
            self.now += self.last_took;
            self.last_write = self.now;
        }
        Ok(())
    }

    fn owe(&mut self, _probes: usize) {}

    fn pass(&mut self) {}

    fn say(&mut self, line: &str) {
        self.said.push(line.to_string());
    }
}

/// A merged record for `state`, a copy of `template`, whose estimate is 1 and whose CI is `ci_rel` either side
/// of it.
fn placeholder(template: &PointRecord, state: &PointState, ci_rel: f64) -> PointRecord {
    let mut point = template.clone();
    (point.spec, point.processes) = (state.spec.clone(), Vec::new());
    point.summary.median = 1.0;
    (point.summary.ci_low, point.summary.ci_high) = (1.0 - ci_rel, 1.0 + ci_rel);
    point
}
