//! The granularity sweep as a runtime implements it: Ben-Asher & Feitelson 1991 §7, written once as `grain.sweep` against
//! [`GrainSweep`] (docs/ARCHITECTURE.md "Runtimes under test"). Rust runtimes run the sweep's work in this
//! process; an external runtime's probe times the runs it is asked for (`super::external::grain`).

use crate::grain_tally::Tally;
use crate::grain_work::Work;
use overhead_harness::{Harness, Measurement};
use overhead_record::PointSpec;

/// One run of the granularity sweep, as `grain.sweep` hands it to a runtime: `work_reads` reads of a
/// shared variable split into tasks over `cpus`.
pub struct Granularity<'a> {
    /// The point (an external runtime hands it to its probe as the job).
    pub spec: &'a PointSpec,
    /// The point's CPUs; the calling thread is pinned to the first.
    pub cpus: &'a [usize],
    /// The whole work, in reads of the shared variable.
    pub work_reads: u64,
    /// The Rust runtimes' task body and per-CPU task counter.
    pub work: &'static Work,
    /// Runs of a baseline a runtime measures beside the sweep (openmp's plain C loop).
    pub baseline_runs: usize,
}

/// What a runtime adds to a point besides the measurement: notes (refused pinning, caveats) and side
/// numbers, unit in the key, as [`Outcome`]'s.
#[derive(Debug, Clone, Default)]
pub struct Remarks {
    /// Remarks for the record.
    pub notes: Vec<String>,
    /// Side numbers, unit in the key (e.g. `serial_reads_ns`).
    pub extra: std::collections::BTreeMap<String, f64>,
}

/// The sweep itself, as the experiment drives it: given the runtime's tally of tasks per CPU and its
/// timed runs of the whole work split into `tasks` tasks, it measures every count it needs.
pub type Sweep<'s> = dyn FnMut(&dyn Tally, &mut dyn GrainRuns) + 's;

/// Where the sweep's timed runs come from: a closure doing one run in this process (every Rust runtime:
/// the blanket impl times it with the harness), or an external probe that times its own runs
/// (`super::external`, probes/README.md "grain.sweep").
pub trait GrainRuns {
    /// `runs` runs of the work split into `tasks` tasks, each timed whole after its own empty control
    /// (ABAB), with `tally.after_run()` untimed after each: one sample per run, ns per run, control
    /// subtracted (`batch_ops` 1).
    ///
    /// Errors: the runs could not be made (an external probe failed or ended).
    fn time_runs(&mut self, h: &Harness, tally: &dyn Tally, tasks: u64, runs: usize) -> anyhow::Result<Measurement>;
}

impl<F: FnMut(u64)> GrainRuns for F {
    /// Times each run alone ([`Harness::measure_runs`], no warm-up), so the tally is read between runs.
    fn time_runs(&mut self, h: &Harness, tally: &dyn Tally, tasks: u64, runs: usize) -> anyhow::Result<Measurement> {
        let mut all = h.measure_runs(|_| self(tasks), |_| {}, 0, 1);
        tally.after_run();
        for _ in 1..runs {
            let next = h.measure_runs(|_| self(tasks), |_| {}, 0, 1);
            tally.after_run();
            all.samples_ns.extend(next.samples_ns);
            all.control_ns.extend(next.control_ns);
        }
        Ok(all)
    }
}

/// [`super::Capability::ForkJoin`]'s granularity sweep (Ben-Asher & Feitelson 1991 §7): the work split into ever more tasks
/// over the CPUs. A runtime whose activities share one kernel thread has none (the plan skips its cells).
pub trait GrainSweep: Sync {
    /// `grain.sweep`: lends `sweep` the runtime's tally and one run of the work; returns the runtime's
    /// notes and side numbers (the measurement is the sweep's).
    ///
    /// Errors: the runtime's threads could not be started.
    fn granularity(&self, run: &Granularity<'_>, h: &Harness, sweep: &mut Sweep<'_>) -> anyhow::Result<Remarks>;
}
