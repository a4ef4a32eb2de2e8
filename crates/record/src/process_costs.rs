//! What one probe process of each point costs on this machine, learned from the history: what a run plans
//! its time from before it has measured anything (docs/METHOD.md §4).

use std::collections::BTreeMap;
use std::time::Duration;

use overhead_schema::Mode;

use super::RunSummary;

/// The newest runs of a mode whose process times a plan reads: enough that one run spent under a
/// memory-bound neighbour does not set the plan, few enough that a machine that changed is soon followed.
pub const RECENT_RUNS: usize = 5;

/// Per point, the wall time of one of its probe processes on this machine (start-up included): the median,
/// over the newest [`RECENT_RUNS`] runs of the history in the same mode, of each run's mean process time.
/// Empty when the history holds no run of the mode, or none recent enough to know process times.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProcessCosts {
    /// Point name → ms per process.
    per_point_ms: BTreeMap<String, f64>,
    /// How many runs they were learned from.
    pub runs: usize,
}

impl ProcessCosts {
    /// Learned from `runs` (one machine's, oldest first, as the history lists them): those of `mode` that
    /// recorded process times, the newest [`RECENT_RUNS`] of them. Runs of other modes are left out: a
    /// quick process measures fewer batches than a default one.
    pub fn learn(runs: &[&RunSummary], mode: Mode) -> ProcessCosts {
        let of_mode: Vec<&RunSummary> =
            runs.iter().copied().filter(|r| mode_of(r) == Some(mode) && !r.process_wall_ms.is_empty()).collect();
        let recent = &of_mode[of_mode.len().saturating_sub(RECENT_RUNS)..];
        let mut samples: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        for run in recent {
            for (name, &ms) in &run.process_wall_ms {
                samples.entry(name).or_default().push(ms);
            }
        }
        let per_point_ms = samples.into_iter().map(|(name, ms)| (name.to_string(), median(ms))).collect();
        ProcessCosts { per_point_ms, runs: recent.len() }
    }

    /// What one process of the point named `name` is expected to take; `None` when the history never ran it.
    pub fn of(&self, name: &str) -> Option<Duration> {
        self.per_point_ms.get(name).map(|&ms| Duration::from_secs_f64(ms / 1e3))
    }

    /// Whether nothing was learned.
    pub fn is_empty(&self) -> bool {
        self.per_point_ms.is_empty()
    }
}

/// The mode a run summary was measured in: the first word of its options (`RunConfig::options`).
fn mode_of(run: &RunSummary) -> Option<Mode> {
    let word = run.config.as_ref()?.options.split(' ').next()?;
    Mode::ALL.into_iter().find(|m| m.name() == word)
}

/// The median of `values` (not empty).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::run_summary;

    /// A summary of `options` whose one point `p` took `ms` per process.
    fn run(options: &str, ms: f64) -> RunSummary {
        let mut run = run_summary("r", &[("p", 1.0)], 0.01);
        run.config.as_mut().unwrap().options = options.into();
        run.process_wall_ms.insert("p".into(), ms);
        run
    }

    #[test]
    fn a_point_costs_the_median_of_the_newest_runs_of_its_mode() {
        let runs = [
            run("default", 900.0),
            run("default", 100.0),
            run("quick", 10.0),
            run("default", 120.0),
            run("default --only sync", 110.0),
            run("default", 500.0),
            run("default", 130.0),
        ];
        let refs: Vec<&RunSummary> = runs.iter().collect();
        let costs = ProcessCosts::learn(&refs, Mode::Default);
        // The oldest default run (900 ms) is beyond the newest five; the quick one is another mode.
        assert_eq!(costs.runs, RECENT_RUNS);
        assert_eq!(costs.of("p"), Some(Duration::from_millis(120)));
        assert_eq!(costs.of("q"), None);
        assert_eq!(ProcessCosts::learn(&refs, Mode::Quick).of("p"), Some(Duration::from_millis(10)));
    }

    #[test]
    fn runs_without_process_times_teach_nothing() {
        let old = run_summary("old", &[("p", 1.0)], 0.01);
        let costs = ProcessCosts::learn(&[&old], Mode::Default);
        assert!(costs.is_empty());
        assert_eq!(costs.runs, 0);
    }
}
