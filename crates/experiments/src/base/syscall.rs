//! `base.syscall`: the null system call.

use std::hint::black_box;

use crate::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point, KERNEL};
use overhead_harness::Harness;
use overhead_record::Metric;

/// lmbench's `lat_syscall null`: `getppid`, which the kernel answers without work and glibc does not
/// cache, called through `syscall(2)` so no library shortcut interferes; against the empty loop.
pub struct Syscall;

impl Syscall {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::base::SYSCALL;
}

impl Experiment for Syscall {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Syscall::ID,
            summary: "null system call (getppid), against the empty loop",
            source: "Souvatzis table (kernel entry cost behind SVR4 getcontext); lmbench lat_syscall null",
            metric: Metric::PerOp,
            requires: KERNEL,
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        ctx.single(self.id(), runtime)
    }
    fn run(&self, _point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let test = |n: u64| {
            for _ in 0..n {
                // SAFETY: getppid takes no arguments, cannot fail and touches no user memory.
                black_box(unsafe { libc::syscall(libc::SYS_getppid) });
            }
        };
        Ok(h.measure(test, empty_loop).into())
    }
}
