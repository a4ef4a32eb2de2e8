//! `base.syscall`: the null system call.

use std::hint::black_box;

use crate::experiments::{empty_loop, Experiment, Outcome, PlanContext, Planned};
use crate::harness::Harness;
use crate::record::{Metric, PointSpec};

/// lmbench's `lat_syscall null`: `getppid`, which the kernel answers without work and glibc does not
/// cache, called through `syscall(2)` so no library shortcut interferes; against the empty loop.
pub struct Syscall;

impl Experiment for Syscall {
    fn id(&self) -> &'static str {
        "base.syscall"
    }
    fn summary(&self) -> &'static str {
        "null system call (getppid), against the empty loop"
    }
    fn source(&self) -> &'static str {
        "seed 004 table (kernel entry cost behind SVR4 getcontext); lmbench lat_syscall null"
    }
    fn metric(&self) -> Metric {
        Metric::PerOp
    }
    fn points(&self, ctx: &PlanContext, runtime: &str) -> Vec<Planned> {
        vec![Planned::Run(ctx.spec(self.id(), runtime, &[], vec![ctx.home_cpu()]))]
    }
    fn run(&self, _spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
        let test = |n: u64| {
            for _ in 0..n {
                // SAFETY: getppid takes no arguments, cannot fail and touches no user memory.
                black_box(unsafe { libc::syscall(libc::SYS_getppid) });
            }
        };
        Ok(h.measure(test, empty_loop).into())
    }
}
