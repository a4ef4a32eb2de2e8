//! `sync.getcpu` and `sync.percpu`: which CPU a thread runs on, every way it can ask, and a counter every
//! thread adds to, shared, per thread, per CPU and per CPU through rseq (docs/METHOD.md §9, "Per-CPU data").

use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point, KERNEL};
use overhead_harness::Harness;
use overhead_record::Metric;
use overhead_runtime_api::RuntimeUnderTest;
use overhead_runtime_os::percpu::which_cpu::CpuSource;
use overhead_runtime_os::percpu::{count, which_cpu, CounterWay};

/// `sync.getcpu`'s parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GetcpuParams {
    /// Where the CPU number comes from.
    pub source: CpuSource,
}

/// One read of the current CPU on one pinned thread, per source: the rseq area's `cpu_id`, glibc's
/// `sched_getcpu`, the `getcpu` system call, `RDPID` and `RDTSCP`, against the empty loop. ClickHouse's
/// per-CPU work measured rseq at 0.28 ns, glibc 1.68, vsyscall 2.51 and the system call 69.7 ns. A source this
/// machine lacks is skipped with the reason.
pub struct Getcpu;

impl Getcpu {
    /// Public ID (docs/ARCHITECTURE.md "Experiments").
    pub const ID: &'static str = overhead_schema::experiments::sync::GETCPU;
}

impl Experiment for Getcpu {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Getcpu::ID,
            summary: "which CPU am I on: rseq cpu_id, sched_getcpu, the getcpu system call, RDPID, RDTSCP",
            source: "ClickHouse's per-CPU measurements; rseq(2); Intel SDM (RDPID, RDTSCP)",
            metric: Metric::PerOp,
            requires: KERNEL,
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn RuntimeUnderTest) -> Vec<Planned> {
        CpuSource::ALL
            .into_iter()
            .map(|source| {
                let spec = ctx.spec_of(self.id(), runtime, &GetcpuParams { source }, vec![ctx.home_cpu()]);
                match source.unavailable() {
                    Some(why) => Planned::Skip(spec, why),
                    None => Planned::Run(spec),
                }
            })
            .collect()
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let GetcpuParams { source } = point.params()?;
        Ok(which_cpu(source, h)?.into())
    }
}

/// `sync.percpu`'s parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PercpuParams {
    /// How the threads count.
    pub way: CounterWay,
    /// Threads, one pinned to each CPU of the point.
    pub threads: usize,
}

/// Every thread adds 1 to a counter in a loop (as `sync.faa`): one shared atomic, one padded atomic per
/// thread, one padded atomic per CPU indexed by `sched_getcpu`, or one padded counter per CPU added to in an
/// rseq critical section (`os::percpu::rseq`, x86-64), at 1, 2, one L3 domain, one package and all CPUs (the
/// counts of `PlanContext::thread_counts`: `--quick` takes 1, 2 and all). The
/// time is per operation of one thread while the others run theirs (the slowest thread's), against the empty
/// loop. ClickHouse measured, at 64 threads, 955 ns a shared line, 4.0 ns a per-CPU atomic and 2.86 ns rseq.
pub struct Percpu;

impl Percpu {
    /// Public ID (docs/ARCHITECTURE.md "Experiments").
    pub const ID: &'static str = overhead_schema::experiments::sync::PERCPU;
}

impl Experiment for Percpu {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Percpu::ID,
            summary: "a counter every thread adds to: one shared atomic, per-thread atomics, per-CPU atomics, an rseq \
                      per-CPU critical section; threads 1, 2, L3, package, all",
            source: "ClickHouse's per-CPU measurements; rseq(2); Ben-Asher & Feitelson 1991 §8.1 (shared vs. distinct)",
            metric: Metric::PerOp,
            requires: KERNEL,
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn RuntimeUnderTest) -> Vec<Planned> {
        let mut out = Vec::new();
        for way in CounterWay::ALL {
            for threads in ctx.thread_counts(1) {
                let spec = ctx.spec_of(self.id(), runtime, &PercpuParams { way, threads }, ctx.team_cpus(threads));
                out.push(match way.unavailable() {
                    Some(why) => Planned::Skip(spec, why),
                    None => Planned::Run(spec),
                });
            }
        }
        out
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let PercpuParams { way, .. } = point.params()?;
        Ok(count(way, &point.spec.cpus, h)?.into())
    }
}
