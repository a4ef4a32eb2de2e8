//! One planned point on one side during a run: its processes so far, where its merged record sits in the run
//! record (the record's `points` for the first side, the side's own `points` for the others), and what
//! stopped it (a failed probe, the budget).

use std::time::Duration;

use overhead_analysis::{merge_processes, Flagging, Process};
use overhead_record::{PointRecord, PointSpec, RunRecord};

/// One planned point on one side during the run: its processes so far and where its merged record sits.
pub struct PointState {
    /// The point.
    pub spec: PointSpec,
    /// Its side's index in the run's sides (0: the first side, or a run without sides).
    pub side: usize,
    /// What its record's name gets after the spec's: `/side:NAME` on the sides after the first, else nothing.
    pub name_suffix: String,
    /// Every process that answered, in the order they ran.
    pub processes: Vec<Process>,
    /// The batch size of the point's first process, handed to the later ones.
    pub batch_ops_hint: Option<u64>,
    /// Index of the point in the record's `points`, once a process answered.
    pub slot: Option<usize>,
    /// A probe failed: no more rounds for this point.
    pub failed: bool,
    /// A round past the minimum skipped this point for want of time.
    pub out_of_budget: bool,
    /// A minimum round skipped this point: the run's deadline came first.
    pub short_of_minimum: bool,
    /// What one process of the point took in this machine's recent runs ([`overhead_record::ProcessCosts`]),
    /// if the history knows: its expected time until the run has measured it.
    pub learned_wall: Option<Duration>,
    /// Pinning requests the kernel refused, over all its processes.
    pub pin_refusals: usize,
}

impl PointState {
    /// A point no process has measured yet, whose process is expected to take `learned_wall` (from the
    /// history; `None` when it does not know).
    pub fn new(spec: PointSpec, learned_wall: Option<Duration>) -> PointState {
        PointState {
            spec,
            side: 0,
            name_suffix: String::new(),
            processes: Vec::new(),
            batch_ops_hint: None,
            slot: None,
            failed: false,
            out_of_budget: false,
            short_of_minimum: false,
            learned_wall,
            pin_refusals: 0,
        }
    }

    /// What the point's processes took so far.
    pub fn spent_wall(&self) -> Duration {
        Duration::from_secs_f64(self.processes.iter().map(|p| p.wall_ms).sum::<f64>() / 1e3)
    }

    /// What the next process is expected to take: the mean of the point's processes so far (this machine
    /// now), else what its processes took in the history's recent runs, else nothing known (zero).
    pub fn expected_wall(&self) -> Duration {
        if self.processes.is_empty() {
            return self.learned_wall.unwrap_or(Duration::ZERO);
        }
        let n = self.processes.len() as f64;
        Duration::from_secs_f64(self.processes.iter().map(|p| p.wall_ms).sum::<f64>() / n / 1e3)
    }

    /// The same point on side `side` of the run, its record named with `name_suffix`.
    pub fn on_side(mut self, side: usize, name_suffix: String) -> PointState {
        (self.side, self.name_suffix) = (side, name_suffix);
        self
    }

    /// The point's merged record so far in `record`, if a process answered.
    pub fn merged<'a>(&self, record: &'a RunRecord) -> Option<&'a PointRecord> {
        self.slot.map(|slot| &side_points(record, self.side)[slot])
    }

    /// The point's merged record in `record`, to change; `None` before a process answered.
    pub fn merged_mut<'a>(&self, record: &'a mut RunRecord) -> Option<&'a mut PointRecord> {
        self.slot.map(|slot| &mut side_points_mut(record, self.side)[slot])
    }

    /// The point merged from its processes under `rules`, named for its side, put at its slot in `record`
    /// (appended, and the slot remembered, the first time); returns it.
    pub fn merge_into<'a>(&mut self, record: &'a mut RunRecord, rules: &Flagging) -> &'a PointRecord {
        self.put_merged(record, merge_processes(&self.processes, rules))
    }

    /// `point` (the point as its processes so far give it) named for its side and put at its slot in
    /// `record` (appended, and the slot remembered, the first time); returns it.
    pub fn put_merged<'a>(&mut self, record: &'a mut RunRecord, mut point: PointRecord) -> &'a PointRecord {
        point.name = format!("{}{}", point.spec.name(), self.name_suffix);
        let points = side_points_mut(record, self.side);
        let slot = *self.slot.get_or_insert(points.len());
        if slot == points.len() {
            points.push(point);
        } else {
            points[slot] = point;
        }
        &points[slot]
    }
}

/// The points of side `side` in `record`: the record's own for side 0, else that side's.
///
/// Panics if the record has no such side (the run made the record with its sides).
pub fn side_points(record: &RunRecord, side: usize) -> &Vec<PointRecord> {
    match side {
        0 => &record.points,
        s => &record.sides.as_ref().expect("a run with sides records them").sides[s].points,
    }
}

/// [`side_points`], to change.
pub fn side_points_mut(record: &mut RunRecord, side: usize) -> &mut Vec<PointRecord> {
    match side {
        0 => &mut record.points,
        s => &mut record.sides.as_mut().expect("a run with sides records them").sides[s].points,
    }
}
