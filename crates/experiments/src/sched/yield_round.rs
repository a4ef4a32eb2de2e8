//! `sched.yield`: the cost of a scheduling round, measured by yielding under load (Ben-Asher & Feitelson 1991 §5.1).

use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use overhead_harness::{Harness, Mode};
use overhead_record::Metric;
use overhead_runtime_api::{Capability, RuntimeUnderTest};

pub use overhead_schema::experiments::sched::YieldParams as Params;

/// Ben-Asher & Feitelson 1991 §5.1 (Fig. 3): one measuring activity per CPU yields in a loop while `load` extra
/// activities per CPU do nothing but yield too; the empty loop is the control. The time per iteration
/// is one **yield round**: the measuring activity gives up its CPU, every other runnable activity on
/// that CPU (the `load` extra ones) runs once, up to its own yield, and the measuring one runs again.
/// Fitting `a + b·load` separates the constant cost of a yield that finds nothing else to run (`a`, the
/// study's 140 µs for the library's `get_work` task) from the cost of one more switch per activity
/// time-shared (`b`, the study's 72 µs per RMK context switch).
///
/// Parameters: `cpus` (measuring activities, one per CPU) and `load` (0, 1, 4; every load 0…8 in
/// `--full`, 0, 4 in `--quick`). Runtimes:
/// * `os`: kernel threads pinned to their CPU, each yield a `sched_yield`; the loading threads are
///   pinned there too and started (and seen running) before the measurement, as the study's `ready`
///   semaphore did.
/// * `tokio`: the multi-thread scheduler with one pinned worker per CPU; every yield is
///   `tokio::task::yield_now`. tokio places tasks itself (work stealing), so the load is
///   `cpus × load` tasks spread over the workers rather than pinned per CPU. Each batch spawns the
///   measuring tasks and joins them; the control batch spawns and joins the same tasks running the
///   empty loop, so the spawn and join cancel.
/// * `rayon`: `rayon::yield_now` inside one job per worker (`ThreadPool::broadcast`) at `load:0`
///   only: rayon's yield runs one pending job to completion on the caller's stack, so a job that
///   yields cannot be resumed until the job it picked up has finished, and yielding load jobs never
///   let each other go; the loaded points are skipped with that reason.
/// * `fiber-*`: one CPU (`cpus:1`), the fibers' `yield_now` through the FIFO ready queue.
pub struct Yield;

impl Yield {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::sched::YIELD;
}

impl Experiment for Yield {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Yield::ID,
            summary: "yield round: one activity per CPU yields among `load` extra yielding activities per CPU; \
                      fit a + b·load",
            source: "Ben-Asher & Feitelson 1991 §5.1, Fig. 3",
            metric: Metric::PerOp,
            requires: &[Capability::Yield],
        }
    }

    fn points(&self, ctx: &PlanContext, runtime: &dyn RuntimeUnderTest) -> Vec<Planned> {
        let loads: Vec<usize> = match ctx.mode {
            Mode::Full => (0..=8).collect(),
            Mode::Default => vec![0, 1, 4],
            Mode::Quick => vec![0, 4],
        };
        let all = ctx.cpus.len();
        let name = runtime.name();
        let point = |cpus: usize, load: Option<usize>| {
            ctx.spec_of(self.id(), runtime, &Params { cpus, load }, ctx.team_cpus(cpus))
        };
        let mut out = Vec::new();
        // A runtime on one kernel thread gets cpus:1, and a skipped cell for all CPUs after it.
        let mut one_thread_skip = None;
        let cpu_counts = match runtime.one_thread() {
            Some(why) => {
                if all > 1 {
                    let reason = format!("{name} {why}: only cpus:1 is measured");
                    one_thread_skip = Some(Planned::Skip(point(all, None), reason));
                }
                vec![1]
            }
            // A flavor of a runtime whose other flavor runs on one thread (tokio's multi-thread beside its
            // current-thread) gets the one-CPU round too, so that the two flavors meet on one setting.
            None if (ctx.mode == Mode::Full || runtime.flavor().is_some()) && all > 1 => vec![1, all],
            None => vec![all],
        };
        let limits = runtime.offers().yield_round.has();
        for &cpus in &cpu_counts {
            for &load in &loads {
                let spec = point(cpus, Some(load));
                out.push(match limits.and_then(|l| l.refuses_load(load)) {
                    Some(reason) => Planned::Skip(spec, reason.into()),
                    None => Planned::Run(spec),
                });
            }
        }
        out.extend(one_thread_skip);
        out
    }

    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let params: Params = point.params()?;
        let load = params.load.ok_or_else(|| anyhow::anyhow!("{}: sched.yield needs a load", spec.name()))?;
        point.in_process(|r| r.yield_round())?.yield_round(&spec.cpus, load, h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fibers_measure_one_cpu_and_rayon_only_the_unloaded_yield() {
        let ctx = crate::plan::tests::two_cpu_context(Mode::Default);
        let fiber = Yield.points(&ctx, &overhead_runtime_fibers::FIBER_ASM);
        assert!(fiber.iter().all(|p| match p {
            Planned::Run(s) => s.param("cpus") == Some("1") && s.cpus.len() == 1,
            Planned::Skip(s, _) => s.param("cpus") == Some("2"),
        }));
        let rayon = Yield.points(&ctx, &overhead_runtime_parallel::rayon_rt::Rayon);
        let run: Vec<_> = rayon.iter().filter_map(|p| if let Planned::Run(s) = p { Some(s) } else { None }).collect();
        assert_eq!(run.len(), 1);
        assert_eq!(run[0].param("load"), Some("0"));
        assert_eq!(rayon.len(), 3, "one run and two skipped loads");
    }
}
