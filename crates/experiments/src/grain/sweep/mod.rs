//! `grain.sweep`: a fixed amount of work split into 1, 10, 100, … tasks.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use overhead_harness::{Harness, HarnessConfig, Measurement, Mode};
use overhead_record::{Details, LabelledTable, Metric};
use overhead_runtime_api::grain_sweep::{GrainRuns, Granularity};
use overhead_runtime_api::{Capability, RuntimeUnderTest};
use overhead_stats::Summary;

use super::search::{best, bracket, refine, sweep_decades, Eval};
use overhead_runtime_api::grain_tally::Tally;
use overhead_runtime_api::grain_work::{shares_percent, Work};

/// The most tasks the sweep tries (Ben-Asher & Feitelson 1991 went to 10^7).
pub const MAX_TASKS: u64 = 10_000_000;
/// The decade sweep stops after a count whose elapsed time exceeds this many times the best so far.
pub const STOP_FACTOR: f64 = 4.0;
/// The refinement stops when its bracket is narrower than this ratio − 1.
const REFINE_TOLERANCE: f64 = 0.02;
/// The refinement's most evaluations (golden section: ~13 narrow 100× to 1.02×).
const REFINE_EVALS: usize = 16;

pub use overhead_schema::experiments::grain::SweepResult;

pub use overhead_schema::experiments::grain::tables;
/// `grain.sweep`'s parameters: the team size, and the fixed work split into tasks (reads of the shared
/// variable).
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct Params {
    threads: usize,
    work: u64,
}

/// Ben-Asher & Feitelson 1991 §7 (Table 4, Fig. 7): `work` reads of one shared variable, split equally into 10^0, 10^1,
/// … tasks run by all the point's CPUs, each run's elapsed time measured whole. The decades stop after
/// the first count whose elapsed time exceeds 4× the best (the overhead dominates), or at 10^7 tasks
/// (or `work`). Then a golden-section search on log(tasks) between the neighbours of the best decade
/// finds the best count (the study found 1900), which is measured again for the point's samples
/// (elapsed ns per run of the whole work). Decisions (stop, best, speed-up) use each count's fastest
/// run, since other processes only ever add time. Per decade the record keeps the elapsed time (`sweep`), the
/// speed-up over one task (`speedup`) and each CPU's share of the tasks (`share`, counted with
/// `sched_getcpu` in every task, as the study's `res[exp][get_pid()]++`); `extra` has `best_tasks`,
/// `serial_ns`, `best_ns` and `speedup` (one task's fastest run over the best count's).
///
/// Per runtime: `os` is a pinned hot team claiming tasks from a shared descriptor by fetch-and-add
/// (ParC's own mechanism; a kernel thread per task would stop the sweep at 10^4); `rayon` a scope
/// spawning every task from worker 0; `tokio` a parent task spawning every task and awaiting all;
/// `openmp` one region of a pinned libgomp team in which one thread (`single`) creates every task as an
/// `omp task` (C kernel [`openmp::Team::grain`], reading a shared `volatile int`; tasks count themselves
/// per thread, mapped to the thread's CPU for the share table), with `extra.serial_reads_ns`, the same
/// reads in a plain C loop without OpenMP, beside the one-task baseline.
/// Work: 10^6 reads in `--quick`, 10^7 by default, 10^8 (the study's) in `--full`. Fibers, on one CPU,
/// are skipped: the question is how work spreads over CPUs.
pub struct Sweep;

impl Sweep {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::grain::SWEEP;
}

impl Experiment for Sweep {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Sweep::ID,
            summary: "fixed work split into 1, 10, … tasks: elapsed, speed-up, best task count, per-CPU share",
            source: "Ben-Asher & Feitelson 1991 §7, Table 4, Fig. 7",
            metric: Metric::PerOp,
            requires: &[Capability::ForkJoin],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn RuntimeUnderTest) -> Vec<Planned> {
        let work: u64 = match ctx.mode {
            Mode::Quick => 100_000,
            Mode::Default => 1_000_000,
            Mode::Full => 10_000_000,
        };
        let threads = ctx.cpus.len();
        let name = runtime.name();
        let spec = ctx.spec_of(self.id(), runtime, &Params { threads, work }, ctx.team_cpus(threads));
        if let Some(why) = runtime.one_thread() {
            let reason = format!(
                "{name} {why}; the sweep asks how work spreads over CPUs (one CPU's cost per task is spawn.bulk's)"
            );
            return vec![Planned::Skip(spec, reason)];
        }
        vec![Planned::Run(spec)]
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let Params { work: work_reads, .. } = point.params()?;
        anyhow::ensure!(work_reads > 0, "{}: grain.sweep needs work > 0 (reads of the shared variable)", spec.name());
        let budget = Budget::for_config(&h.config, work_reads);
        let cpus = &spec.cpus;
        let work = Work::new(cpus.iter().copied().max().unwrap_or(0)).leak();
        let run = Granularity { spec, cpus, work_reads, work, baseline_runs: budget.min_reps };
        let mut result = None;
        let remarks = point.in_process(|r| r.grain_sweep())?.granularity(&run, h, &mut |tally, runs| {
            result = Some(drive(h, &budget, tally, runs));
        })?;
        let result = result.ok_or_else(|| anyhow::anyhow!("{}: the runtime never ran the sweep", spec.name()))??;
        let mut outcome = result.into_outcome(cpus, work_reads, remarks.notes);
        outcome.extra.extend(remarks.extra);
        Ok(outcome)
    }
}

/// How long the sweep may spend, from the harness settings of the mode.
#[derive(Debug, Clone)]
struct Budget {
    /// Tasks tried at most.
    max_tasks: u64,
    /// Time to spend on one task count (its runs stop at `max_reps`).
    count_ns: f64,
    min_reps: usize,
    max_reps: usize,
    /// Wall time for the whole sweep: past it, no new count is started.
    wall: Duration,
}

impl Budget {
    /// `count_ns` = batch target × repetitions (quick and default 1.5 ms, full 9 ms); runs per count
    /// at least a sixth of the mode's repetitions and 3 (3 in every mode today), at most the
    /// repetitions; the whole sweep within 60 counts' budget (at least 5 s), well inside the probe's
    /// time limit.
    fn for_config(config: &HarnessConfig, work_reads: u64) -> Budget {
        let count_ns = config.target_batch_ns * config.repetitions as f64;
        Budget {
            max_tasks: MAX_TASKS.min(work_reads),
            count_ns,
            min_reps: (config.repetitions / 6).max(3).min(config.repetitions.max(1)),
            max_reps: config.repetitions.max(1),
            wall: Duration::from_secs_f64((60.0 * count_ns / 1e9).max(5.0)),
        }
    }
}

/// The runs of one task count: their elapsed times and the tasks each CPU ran over all of them.
#[derive(Debug, Clone)]
struct CountRuns {
    measurement: Measurement,
    /// Index: CPU; last entry: other CPUs. Sums to `tasks` × runs (warm-up included).
    counts: Vec<u64>,
}

impl CountRuns {
    /// The count's cost for every decision: its fastest run. Interference from other processes only
    /// adds time, so the minimum is the undisturbed estimate (as lmbench reports it); the median and
    /// p90 are kept beside it.
    fn cost(&self) -> f64 {
        self.measurement.summary().map_or(f64::INFINITY, |s| s.min)
    }
}

/// Measures `tasks` tasks: one warm-up run, one pilot run that sizes the rest to the count's budget,
/// then the rest (`min_reps` ≤ runs ≤ `max_reps`, fewer when `max_reps` says so), each run timed alone
/// against the empty control with `tally.after_run` untimed between runs ([`GrainRuns`]).
///
/// Errors: the runtime's runs failed (an external probe ended).
fn measure_count(
    h: &Harness,
    budget: &Budget,
    max_reps: usize,
    tally: &dyn Tally,
    runs: &mut dyn GrainRuns,
    tasks: u64,
) -> anyhow::Result<CountRuns> {
    tally.take_counts();
    runs.time_runs(h, tally, tasks, 1)?;
    let mut m = runs.time_runs(h, tally, tasks, 1)?;
    let pilot = m.samples_ns.first().copied().unwrap_or(f64::NAN).max(1.0);
    let reps = ((budget.count_ns / pilot) as usize).clamp(budget.min_reps.min(max_reps), max_reps);
    if reps > 1 {
        let rest = runs.time_runs(h, tally, tasks, reps - 1)?;
        m.samples_ns.extend(rest.samples_ns);
        m.control_ns.extend(rest.control_ns);
    }
    Ok(CountRuns { measurement: m, counts: tally.take_counts() })
}

/// What a sweep found.
#[derive(Debug, Clone)]
struct SweepFindings {
    decades: Vec<Eval>,
    refined: Vec<Eval>,
    runs: BTreeMap<u64, CountRuns>,
    best_tasks: u64,
    /// The best count measured again: the point's samples.
    final_runs: CountRuns,
    out_of_time: bool,
}

/// The decade sweep, the refinement and the final measurement, with `timed` making the runs.
///
/// Errors: the runtime's runs failed; the first failure ends the sweep.
fn drive(h: &Harness, budget: &Budget, tally: &dyn Tally, timed: &mut dyn GrainRuns) -> anyhow::Result<SweepFindings> {
    let deadline = Instant::now() + budget.wall;
    let mut runs: BTreeMap<u64, CountRuns> = BTreeMap::new();
    let mut out_of_time = false;
    let mut failure: Option<anyhow::Error> = None;
    let mut measure = |tasks: u64, max_reps: usize, runs: &mut BTreeMap<u64, CountRuns>| -> Option<f64> {
        if failure.is_some() {
            return None;
        }
        if Instant::now() > deadline {
            out_of_time = true;
            return None;
        }
        match measure_count(h, budget, max_reps, tally, timed, tasks) {
            Ok(r) => {
                let cost = r.cost();
                runs.insert(tasks, r);
                Some(cost)
            }
            Err(e) => {
                failure = Some(e);
                None
            }
        }
    };
    let decades = sweep_decades(budget.max_tasks, STOP_FACTOR, |t| measure(t, budget.max_reps, &mut runs));
    let (best_decade, _) = best(&decades).unwrap_or((1, f64::INFINITY));
    let last_decade = decades.last().map_or(1, |e| e.0);
    let (lo, hi) = bracket(best_decade, last_decade);
    let refined = refine(lo, hi, REFINE_TOLERANCE, REFINE_EVALS, &decades, |t| measure(t, budget.min_reps, &mut runs));
    let all: Vec<Eval> = decades.iter().chain(&refined).copied().collect();
    let best_tasks = best(&all).map_or(1, |e| e.0);
    if let Some(e) = failure {
        return Err(e);
    }
    // Measured again: the minimum of noisy medians is biased low (the winner's curse).
    let final_runs = measure_count(h, budget, budget.max_reps, tally, timed, best_tasks)?;
    Ok(SweepFindings { decades, refined, runs, best_tasks, final_runs, out_of_time })
}

impl SweepFindings {
    /// The point: the best count's runs as samples, the tables, and the headline numbers.
    fn into_outcome(self, cpus: &[usize], work_reads: u64, mut notes: Vec<String>) -> Outcome {
        let serial = self.runs.get(&1).map_or(f64::NAN, CountRuns::cost);
        let best_elapsed = self.final_runs.cost();
        let spread = |tasks: u64| -> Vec<Option<f64>> {
            let s = self.runs.get(&tasks).and_then(|r| r.measurement.summary());
            match s {
                Some(Summary { median, min, p90, .. }) => vec![Some(median), Some(min), Some(p90)],
                None => vec![None; 3],
            }
        };
        let spread_columns = vec!["median".to_string(), "min".into(), "p90".into()];
        let mut details = Details::default();
        details.tables.insert(
            tables::SWEEP.into(),
            LabelledTable {
                title: format!("elapsed time of {work_reads} reads split into tasks, per run"),
                unit: "ns".into(),
                columns: spread_columns.clone(),
                rows: self.decades.iter().map(|&(t, _)| (t.to_string(), spread(t))).collect(),
            },
        );
        details.tables.insert(
            tables::SPEEDUP.into(),
            LabelledTable {
                title: "speed-up over one task (fastest run with 1 task / fastest run with n tasks)".into(),
                unit: "×".into(),
                columns: vec!["speedup".into()],
                rows: self.decades.iter().map(|&(t, c)| (t.to_string(), vec![Some(serial / c)])).collect(),
            },
        );
        let mut refined: Vec<u64> = self.refined.iter().map(|e| e.0).collect();
        refined.sort_unstable();
        details.tables.insert(
            tables::REFINE.into(),
            LabelledTable {
                title: "elapsed time of the task counts tried around the best decade, per run".into(),
                unit: "ns".into(),
                columns: spread_columns,
                rows: refined.iter().map(|&t| (t.to_string(), spread(t))).collect(),
            },
        );
        // A runtime that cannot tell a task's CPU (the JDK's) counts every task as "other": no share table
        // then, rather than one that says nothing (the runtime's note says why).
        let share = self.share_table(cpus);
        let other = share.columns.len() - 1;
        if share.rows.iter().any(|(_, cells)| cells[..other].iter().flatten().any(|&pct| pct > 0.0)) {
            details.tables.insert(tables::SHARE.into(), share);
        }
        if let Some(&(last, cost)) = self.decades.last() {
            let best_so_far = best(&self.decades).map_or(f64::NAN, |e| e.1);
            if cost > STOP_FACTOR * best_so_far {
                notes.push(format!(
                    "decades stopped after {last} tasks: fastest run {:.3} ms > {STOP_FACTOR}× the best {:.3} ms",
                    cost / 1e6,
                    best_so_far / 1e6
                ));
            }
        }
        let top_speedup = self.decades.iter().map(|&(_, c)| serial / c).fold(f64::NAN, f64::max);
        if top_speedup > 1.1 * cpus.len() as f64 {
            notes.push(format!(
                "a speed-up of {top_speedup:.1}× exceeds the {} CPUs used: the one-task runs were slowed (other \
                 load, or idle members spinning on shared hardware); compare with care",
                cpus.len()
            ));
        }
        if self.out_of_time {
            notes.push("the sweep ran out of its time budget; later counts were not tried".into());
        }
        let mut outcome = Outcome::from(self.final_runs.measurement.clone());
        outcome.notes = notes;
        outcome.details = details;
        outcome.with_result(&SweepResult {
            work_reads: work_reads as f64,
            best_tasks: self.best_tasks as f64,
            best_decade_tasks: best(&self.decades).map(|e| e.0 as f64),
            last_decade_tasks: self.decades.last().map(|e| e.0 as f64),
            refine_evaluations: self.refined.len() as f64,
            serial_ns: serial,
            best_ns: best_elapsed,
            speedup: serial / best_elapsed,
        })
    }

    /// Fig. 7: each CPU's share of the tasks, per decade and for the best count (the last column: other CPUs
    /// and tasks of unknown CPU).
    fn share_table(&self, cpus: &[usize]) -> LabelledTable {
        let mut sorted = cpus.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let share_row = |runs: &CountRuns| -> Vec<Option<f64>> {
            let other: u64 =
                runs.counts.iter().enumerate().filter(|(cpu, _)| !sorted.contains(cpu)).map(|(_, &c)| c).sum();
            let mut counts: Vec<u64> = sorted.iter().map(|&cpu| runs.counts.get(cpu).copied().unwrap_or(0)).collect();
            counts.push(other);
            shares_percent(&counts).into_iter().map(Some).collect()
        };
        let mut rows: Vec<(String, Vec<Option<f64>>)> = self
            .decades
            .iter()
            .filter_map(|&(t, _)| self.runs.get(&t).map(|r| (t.to_string(), share_row(r))))
            .collect();
        if !self.decades.iter().any(|e| e.0 == self.best_tasks) {
            rows.push((self.best_tasks.to_string(), share_row(&self.final_runs)));
            rows.sort_by_key(|(label, _)| label.parse::<u64>().unwrap_or(u64::MAX));
        }
        let mut columns: Vec<String> = sorted.iter().map(|cpu| format!("cpu {cpu}")).collect();
        columns.push("other".into());
        LabelledTable { title: "share of the tasks run on each CPU".into(), unit: "%".into(), columns, rows }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole driver on a synthetic runtime whose run time has a planted best count: the decades stop
    /// where the overhead dominates, the refinement lands near the planted count, and the record has
    /// its tables, shares summing to 100%.
    #[test]
    fn driver_finds_the_planted_best_count_and_fills_the_tables() {
        let h = overhead_harness::testing::quick_harness_with(HarnessConfig::for_mode(Mode::Quick));
        // Three runs per count, the fastest deciding: a preempted run does not move the answer.
        let budget =
            Budget { max_tasks: 1_000_000, count_ns: 1e12, min_reps: 3, max_reps: 3, wall: Duration::from_secs(60) };
        // The test thread is not pinned: every allowed CPU is listed, so wherever the scheduler runs a task
        // it counts on a listed CPU (listing one CPU let a migrated thread count every task as "other").
        let allowed = overhead_machine::allowed_cpus();
        let work = Work::new(*allowed.iter().max().unwrap());
        // A run "costs" a spin proportional to 1 + (ln tasks − ln 300)², minimal at 300 tasks; every
        // task is counted so the shares are real.
        let mut run = |tasks: u64| {
            let cost = 1.0 + ((tasks as f64).ln() - 300f64.ln()).powi(2);
            let until = Instant::now() + Duration::from_micros((cost * 100.0) as u64);
            while Instant::now() < until {}
            for _ in 0..tasks.min(1000) {
                work.task(0);
            }
        };
        let result = drive(&h, &budget, &work, &mut run).unwrap();
        let tried: Vec<u64> = result.decades.iter().map(|e| e.0).collect();
        assert_eq!(tried.first(), Some(&1));
        assert!(*tried.last().unwrap() <= 100_000, "the stop rule let the sweep run to {tried:?}");
        assert!(
            (100..=1000).contains(&result.best_tasks),
            "best {} far from the planted 300; decades {:?} refined {:?}",
            result.best_tasks,
            result.decades,
            result.refined
        );
        let outcome = result.into_outcome(&allowed, 1000, Vec::new());
        for name in [tables::SWEEP, tables::SPEEDUP, tables::REFINE, tables::SHARE] {
            assert!(outcome.details.tables.contains_key(name), "missing table {name}");
        }
        for (label, cells) in &outcome.details.tables[tables::SHARE].rows {
            let total: f64 = cells.iter().flatten().sum();
            assert!((total - 100.0).abs() < 1e-9, "shares of {label} add to {total}");
        }
        assert!(outcome.extra["speedup"] > 1.0, "{:?}", outcome.extra);
        assert_eq!(outcome.extra["work_reads"], 1000.0);
    }

    /// A tally that knows no task's CPU (every task "other", as the JDK's): no share table, the rest as
    /// always.
    #[test]
    fn no_share_table_when_no_task_has_a_cpu() {
        struct Unknown(std::cell::Cell<u64>);
        impl Tally for Unknown {
            fn take_counts(&self) -> Vec<u64> {
                vec![0, 0, self.0.replace(0)]
            }
        }
        let h = overhead_harness::testing::quick_harness_with(HarnessConfig::for_mode(Mode::Quick));
        let budget = Budget { max_tasks: 100, count_ns: 1e12, min_reps: 3, max_reps: 3, wall: Duration::from_secs(60) };
        let tally = Unknown(std::cell::Cell::new(0));
        let mut run = |tasks: u64| tally.0.set(tally.0.get() + tasks);
        let result = drive(&h, &budget, &tally, &mut run).unwrap();
        let outcome = result.into_outcome(&[0, 1], 100, Vec::new());
        assert!(!outcome.details.tables.contains_key(tables::SHARE), "{:?}", outcome.details.tables.keys());
        assert!(outcome.details.tables.contains_key(tables::SWEEP));
    }

    /// OpenMP's per-thread counts, collected after every run and mapped to CPUs, add up to the task count
    /// times the runs of that count (the timed ones and the warm-up).
    #[cfg(overhead_openmp)]
    #[test]
    fn omp_counts_of_a_task_count_add_up_to_its_runs() {
        let h = overhead_harness::testing::quick_harness_with(HarnessConfig::for_mode(Mode::Quick));
        let budget =
            Budget { max_tasks: 1000, count_ns: 1e12, min_reps: 3, max_reps: 3, wall: Duration::from_secs(60) };
        let allowed = overhead_machine::allowed_cpus();
        let cpus: Vec<usize> = (0..2).map(|i| allowed[i % allowed.len()]).collect();
        let team = overhead_runtime_parallel::openmp::Team::pinned(&cpus).unwrap();
        let tally = overhead_runtime_parallel::openmp::OmpTally::new(&team);
        for tasks in [1u64, 100, 1000] {
            let r = measure_count(&h, &budget, 3, &tally, &mut |t| team.grain(20_000, t), tasks).unwrap();
            assert_eq!(r.measurement.samples_ns.len(), 3, "{tasks} tasks");
            assert_eq!(r.counts.iter().sum::<u64>(), 4 * tasks, "{tasks} tasks: {:?}", r.counts);
        }
    }
}
