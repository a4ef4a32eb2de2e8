//! What a recorded run's processes cost, per point, in the compact form the simulation replays
//! (docs/METHOD.md "The schedule, simulated"): each point's processes' wall times in the order they ran, its
//! CI's relative half-width, and what the run paid between probes.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::between_probes::{gaps, line};
use overhead_experiments::Planned;
use overhead_record::{PointRecord, PointSpec, RoundPolicy, RunRecord, SkipKind};

/// The parameters that count a point's threads (or activities, ranks, CPUs, waiters): where a planned point
/// differs from a recorded one only in them, its cost is the recorded one's scaled along the counts
/// ([`cost_factor`]).
pub const THREAD_KEYS: [&str; 5] = ["threads", "activities", "ranks", "cpus", "waiters"];

/// A gap between probes longer than this (ms) is a rewrite of the record: the probe's own gap (merging its
/// answer) stays under a few ms, a rewrite of a record of megabytes takes tens to hundreds.
pub const WRITE_GAP_MS: f64 = 20.0;

/// One recorded point: which point, what its processes took, how wide its CI was.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RecordedPoint {
    /// Its name as recorded, the side's suffix included (`…/side:b`).
    pub name: String,
    pub spec: PointSpec,
    /// Each process's wall time, start-up included (ms), in the order they ran.
    pub walls_ms: Vec<f64>,
    /// Its CI's half-width over its estimate (a fraction) with all its processes.
    pub ci_rel: f64,
}

/// A recorded run's costs: per point what its processes took, what the run paid between probes, which
/// runtimes it could not run, and what it did (for checking a simulation of it).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RecordedCosts {
    /// The recorded run's policy (its budget, deadline, rounds).
    pub policy: Option<RoundPolicy>,
    /// The time between one probe's end and the next one's start, as a line in the number of processes done
    /// so far: `[ms at none, ms more per process]`, fitted by least squares to the run's gaps (the
    /// orchestrator merges each answer and rewrites the record once a second, and both grow with the record).
    pub between_ms: [f64; 2],
    /// What a rewrite of the record cost, as a line in the processes done: `[ms at none, ms more per process]`,
    /// fitted to the gaps over [`WRITE_GAP_MS`] (a rewrite's; `between_ms` is fitted to the others). `[0, 0]`
    /// in costs saved before it was kept: the writes are then in `between_ms`.
    #[serde(default)]
    pub write_ms: [f64; 2],
    /// Runtimes the recorded machine did not have (its skipped cells said "not available here").
    pub unavailable_runtimes: BTreeSet<String>,
    /// When the recorded run's last probe ended (s after the first started).
    pub wall_s: f64,
    /// Its processes in all.
    pub processes: usize,
    pub points: Vec<RecordedPoint>,
}

impl RecordedCosts {
    /// The costs of `record`'s points on every side.
    ///
    /// Errors: the record has no process with a wall time (a record from before processes were kept).
    pub fn of(record: &RunRecord) -> Result<RecordedCosts, String> {
        let mut all: Vec<&PointRecord> = record.points.iter().collect();
        if let Some(sides) = &record.sides {
            all.extend(sides.sides.iter().skip(1).flat_map(|s| &s.points));
        }
        let points: Vec<RecordedPoint> = all.iter().filter(|p| !p.processes.is_empty()).map(|p| of_point(p)).collect();
        if points.is_empty() {
            return Err("the record keeps no process wall times to replay (a record older than rounds?)".into());
        }
        let mut runs: Vec<(f64, f64)> =
            all.iter().flat_map(|p| p.processes.iter().filter_map(|q| Some((q.started_s?, q.wall_ms / 1e3)))).collect();
        runs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let wall_s = runs.last().map_or(0.0, |(start, wall)| start + wall);
        let mut skipped: Vec<_> = record.skipped.iter().collect();
        if let Some(sides) = &record.sides {
            skipped.extend(sides.sides.iter().flat_map(|s| &s.skipped));
        }
        let unavailable_runtimes = skipped
            .iter()
            .filter(|s| s.kind == SkipKind::Skipped && s.reason.contains("is not available here"))
            .map(|s| s.spec.runtime.to_string())
            .collect();
        Ok(RecordedCosts {
            policy: record.rounds,
            between_ms: line(&gaps(&runs).into_iter().filter(|g| g.1 <= WRITE_GAP_MS).collect::<Vec<_>>()),
            write_ms: line(&gaps(&runs).into_iter().filter(|g| g.1 > WRITE_GAP_MS).collect::<Vec<_>>()),
            unavailable_runtimes,
            wall_s,
            processes: points.iter().map(|p| p.walls_ms.len()).sum(),
            points,
        })
    }

    /// What the planned point `spec` (named with `suffix` on its side) replays: the recorded point of that
    /// name; else the recorded one of the same experiment and runtime that differs from it in a thread count
    /// ([`THREAD_KEYS`]) and the fewest other parameters, its costs scaled along its counts ([`cost_factor`]); else the
    /// experiment's median point (by mean process cost), else the run's.
    pub fn replay(&self, spec: &PointSpec, suffix: &str) -> Replayed<'_> {
        let name = format!("{}{suffix}", spec.name());
        let by_name = |n: &str| self.points.iter().find(|p| p.name == n);
        if let Some(p) = by_name(&name).or_else(|| by_name(&spec.name())) {
            return Replayed { point: p, scale: 1.0, source: Source::Recorded };
        }
        if let Some((p, scale)) = self.by_threads(spec) {
            return Replayed { point: p, scale, source: Source::Scaled };
        }
        let of_experiment: Vec<&RecordedPoint> =
            self.points.iter().filter(|p| p.spec.experiment == spec.experiment).collect();
        let pool = if of_experiment.is_empty() { self.points.iter().collect() } else { of_experiment };
        Replayed { point: median_by_cost(pool), scale: 1.0, source: Source::Median }
    }

    /// The recorded run's own plan: its points (on its first side) in the order it first measured them, which
    /// is plan order (round 1 walks the plan). Simulating it checks the schedule and the costs without the
    /// planner, whose plan for the same machine may have changed since.
    pub fn plan(&self) -> Vec<Planned> {
        self.points.iter().filter(|p| !p.name.contains("/side:")).map(|p| Planned::Run(p.spec.clone())).collect()
    }

    /// The recorded point nearest `spec` that differs in a thread count, and the factor on its costs: where the
    /// record holds that point at two or more counts (same experiment, runtime and other parameters), the
    /// ratio of a least-squares line through their mean process costs at the two counts (a process's cost is
    /// mostly fixed: its batches are sized to a time, and what grows is starting and joining the threads); with
    /// one count only, the ratio of counts, an upper bound. A line that falls with the count scales nothing.
    fn by_threads(&self, spec: &PointSpec) -> Option<(&RecordedPoint, f64)> {
        let (key, wanted) = thread_count(&spec.params)?;
        let others = |params: &[(String, String)]| -> BTreeMap<String, String> {
            params.iter().filter(|(k, _)| k != key).cloned().collect()
        };
        let mine = others(&spec.params);
        let same_kind = |p: &&RecordedPoint| {
            p.spec.experiment == spec.experiment
                && p.spec.runtime == spec.runtime
                && !p.name.contains("/side:")
                && thread_count(&p.spec.params).is_some_and(|(k, _)| k == key)
        };
        let (nearest, count) = self
            .points
            .iter()
            .filter(same_kind)
            .filter_map(|p| {
                let (_, count) = thread_count(&p.spec.params)?;
                let theirs = others(&p.spec.params);
                let differ = mine.iter().filter(|(k, v)| theirs.get(*k) != Some(v)).count();
                Some((p, count, differ, (wanted / count).ln().abs()))
            })
            .min_by(|a, b| a.2.cmp(&b.2).then(a.3.total_cmp(&b.3)))
            .map(|(p, count, _, _)| (p, count))?;
        let siblings: Vec<(f64, f64)> = self
            .points
            .iter()
            .filter(same_kind)
            .filter(|p| others(&p.spec.params) == others(&nearest.spec.params))
            .filter_map(|p| Some((thread_count(&p.spec.params)?.1, mean_wall(p))))
            .collect();
        Some((nearest, cost_factor(&siblings, count, wanted)))
    }
}

/// The factor from a point's cost at `count` threads to its cost at `wanted`: the ratio of the least-squares
/// line through `(count, mean process ms)` of `siblings` (the same point at other counts) at the two counts;
/// 1 where that line falls; the plain ratio of counts where there is no line (one count) or it is not
/// positive at both counts (a line with a negative intercept, read below its root).
pub fn cost_factor(siblings: &[(f64, f64)], count: f64, wanted: f64) -> f64 {
    let (xs, ys): (Vec<f64>, Vec<f64>) = siblings.iter().copied().unzip();
    let line = |x: f64, fit: &overhead_stats::LinearFit| fit.a + fit.b * x;
    match overhead_stats::least_squares(&xs, &ys) {
        Some(fit) if fit.b <= 0.0 => 1.0,
        Some(fit) if line(count, &fit) > 0.0 && line(wanted, &fit) > 0.0 => line(wanted, &fit) / line(count, &fit),
        _ => wanted / count,
    }
}

/// The mean of a recorded point's process costs (ms).
fn mean_wall(p: &RecordedPoint) -> f64 {
    p.walls_ms.iter().sum::<f64>() / p.walls_ms.len().max(1) as f64
}

/// Where a simulated point's costs came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The recorded point of the same name.
    Recorded,
    /// A recorded point with another thread count, scaled.
    Scaled,
    /// The median point of its experiment (or of the run).
    Median,
}

/// A planned point's costs: a recorded point's, scaled.
#[derive(Debug, Clone, Copy)]
pub struct Replayed<'a> {
    pub point: &'a RecordedPoint,
    /// The factor on its process times (the ratio of thread counts; 1 otherwise).
    pub scale: f64,
    pub source: Source,
}

impl Replayed<'_> {
    /// What the point's process number `k` (from 0) takes (ms): the recorded point's process `k` while it
    /// has one (a first process finds its batch size and often costs more), then its later processes in
    /// turn.
    pub fn wall_ms(&self, k: usize) -> f64 {
        let walls = &self.point.walls_ms;
        let recorded = match (walls.get(k), walls.len()) {
            (Some(&ms), _) => ms,
            (None, 1) => walls[0],
            (None, n) => walls[1 + (k - 1) % (n - 1)],
        };
        recorded * self.scale
    }

    /// The CI's relative half-width the run would see after `k` processes: the recorded one, scaled by
    /// √(recorded processes / k) (an interval over processes narrows as their square root).
    pub fn ci_rel(&self, k: usize) -> f64 {
        self.point.ci_rel * (self.point.walls_ms.len() as f64 / k.max(1) as f64).sqrt()
    }
}

/// `point` in compact form.
fn of_point(point: &PointRecord) -> RecordedPoint {
    let median = point.summary.median.abs();
    let ci_rel = if median > 0.0 { point.summary.ci_half_width() / median } else { f64::INFINITY };
    RecordedPoint {
        name: point.name.clone(),
        spec: point.spec.clone(),
        // Rounded to 10 µs and 4 decimals: finer than a process's start-up varies, and the compact form stays
        // small enough to keep as a test's fixture.
        walls_ms: point.processes.iter().map(|p| (p.wall_ms * 100.0).round() / 100.0).collect(),
        ci_rel: if ci_rel.is_finite() { (ci_rel * 1e4).round() / 1e4 } else { 1.0 },
    }
}

/// The thread-count parameter of `params` and its count, if it has one that reads as a number.
fn thread_count(params: &[(String, String)]) -> Option<(&str, f64)> {
    params
        .iter()
        .find(|(k, _)| THREAD_KEYS.contains(&k.as_str()))
        .and_then(|(k, v)| Some((k.as_str(), v.parse::<f64>().ok().filter(|&n| n > 0.0)?)))
}

/// The point of `pool` (not empty) whose mean process cost is the median.
fn median_by_cost(mut pool: Vec<&RecordedPoint>) -> &RecordedPoint {
    pool.sort_by(|a, b| mean_wall(a).total_cmp(&mean_wall(b)));
    pool[pool.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorded(name: &str, params: &[(&str, &str)], walls_ms: &[f64]) -> RecordedPoint {
        RecordedPoint { name: name.into(), spec: spec(params), walls_ms: walls_ms.to_vec(), ci_rel: 0.1 }
    }

    fn costs(points: Vec<RecordedPoint>) -> RecordedCosts {
        RecordedCosts {
            policy: None,
            between_ms: [0.0, 0.0],
            write_ms: [0.0, 0.0],
            unavailable_runtimes: BTreeSet::new(),
            wall_s: 0.0,
            processes: 0,
            points,
        }
    }

    fn spec(params: &[(&str, &str)]) -> PointSpec {
        overhead_record::fixture::spec("spawn.bulk", "os", params, &[0])
    }

    #[test]
    fn a_point_replays_its_own_processes_then_its_later_ones_in_turn() {
        let c = costs(vec![recorded("spawn.bulk/runtime:os/threads:2", &[("threads", "2")], &[30.0, 10.0, 12.0])]);
        let r = c.replay(&spec(&[("threads", "2")]), "");
        assert_eq!(r.source, Source::Recorded);
        let walls: Vec<f64> = (0..6).map(|k| r.wall_ms(k)).collect();
        assert_eq!(walls, [30.0, 10.0, 12.0, 10.0, 12.0, 10.0]);
        assert!((r.ci_rel(12) - 0.05).abs() < 1e-12, "a quarter of the processes, twice the width");
    }

    #[test]
    fn a_point_of_another_thread_count_scales_the_nearest_and_an_unknown_one_takes_the_median() {
        let c = costs(vec![
            recorded("a", &[("threads", "2"), ("kind", "x")], &[10.0]),
            recorded("b", &[("threads", "16"), ("kind", "x")], &[80.0]),
            recorded("c", &[("threads", "16"), ("kind", "y")], &[500.0]),
        ]);
        let r = c.replay(&spec(&[("threads", "64"), ("kind", "x")]), "");
        assert_eq!((r.source, r.point.name.as_str(), r.scale), (Source::Scaled, "b", 4.0));
        assert_eq!(r.wall_ms(0), 320.0);
        let m = c.replay(&spec(&[("size", "4")]), "");
        assert_eq!((m.source, m.point.name.as_str()), (Source::Median, "b"));
    }

    /// A process's cost is mostly fixed: 100 ms at one thread and 130 ms at 16 is a line of 2 ms a thread, so
    /// 256 threads cost 610 ms, not sixteen times 130; a point known at one count scales by the ratio.
    #[test]
    fn a_thread_count_scales_along_the_line_through_the_recorded_counts() {
        let c = costs(vec![
            recorded("one", &[("threads", "1")], &[100.0]),
            recorded("two", &[("threads", "2")], &[102.0]),
            recorded("all", &[("threads", "16")], &[130.0]),
        ]);
        let r = c.replay(&spec(&[("threads", "256")]), "");
        assert_eq!((r.source, r.point.name.as_str()), (Source::Scaled, "all"));
        assert!((r.wall_ms(0) - 610.0).abs() < 5.0, "{}", r.wall_ms(0));
        assert_eq!(cost_factor(&[(16.0, 130.0)], 16.0, 64.0), 4.0, "one count: the ratio, an upper bound");
        assert_eq!(cost_factor(&[(1.0, 100.0), (16.0, 90.0)], 16.0, 64.0), 1.0, "a falling line scales nothing");
        // 10 ms at 8 threads and 90 at 16: the line crosses zero at 7; below it the ratio of counts.
        assert_eq!(cost_factor(&[(8.0, 10.0), (16.0, 90.0)], 8.0, 2.0), 0.25);
    }
}
