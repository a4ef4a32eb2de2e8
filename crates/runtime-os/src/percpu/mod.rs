//! Per-CPU data: which CPU a thread runs on, and a counter every thread adds to, four ways — one shared
//! atomic, one padded atomic per thread, one atomic per CPU indexed by the current CPU, and an rseq critical
//! section per CPU without an atomic instruction (docs/METHOD.md §9, "Per-CPU data"). ClickHouse measured
//! these at 64 threads; the same work left AArch64 unmeasured.

pub mod rseq;
pub mod which_cpu;

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use overhead_harness::{empty_loop, Harness, TeamReport};
use rseq::Slot;
use which_cpu::CpuSource;

/// How a team's threads count. serde: the `way:` parameter's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CounterWay {
    /// One atomic every thread adds to: its line moves between the CPUs.
    Shared,
    /// One padded atomic per thread: no sharing, and no knowledge of the CPU.
    PerThread,
    /// One padded atomic per CPU, indexed by `sched_getcpu()`; atomic, since a thread may move between
    /// reading the CPU and the add.
    PerCpu,
    /// One padded counter per CPU, added to in an rseq critical section: a plain add the kernel restarts
    /// when the thread is preempted or moved inside it.
    Rseq,
}

impl CounterWay {
    /// Every way, in the report's order.
    pub const ALL: [CounterWay; 4] = [CounterWay::Shared, CounterWay::PerThread, CounterWay::PerCpu, CounterWay::Rseq];

    /// Why this machine cannot count this way, or `None`.
    pub fn unavailable(self) -> Option<String> {
        match self {
            CounterWay::Rseq if !cfg!(target_arch = "x86_64") => {
                Some("the rseq critical section is written for x86-64 only".into())
            }
            CounterWay::Rseq => CpuSource::Rseq.unavailable(),
            _ => None,
        }
    }
}

/// The slots of every CPU id the kernel may report (the configured CPUs).
fn slots() -> Vec<Slot> {
    // SAFETY: sysconf has no preconditions.
    let possible = (unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) }).max(1) as usize;
    (0..possible.max(overhead_machine::allowed_cpus().iter().max().map_or(1, |&c| c + 1)))
        .map(|_| Slot::default())
        .collect()
}

/// Per operation of one thread of a team on `cpus` (the slowest thread's time) adding 1 to a counter `way`,
/// against the empty loop. Errors: the way is unavailable here.
pub fn count(way: CounterWay, cpus: &[usize], h: &Harness) -> anyhow::Result<TeamReport> {
    if let Some(why) = way.unavailable() {
        anyhow::bail!("{why}");
    }
    let slots = slots();
    let control = |_: usize, n: u64| empty_loop(n);
    Ok(match way {
        CounterWay::Shared => h.measure_team(
            cpus,
            |_, n| {
                for _ in 0..n {
                    slots[0].0.fetch_add(1, Ordering::Relaxed);
                }
            },
            control,
        ),
        CounterWay::PerThread => h.measure_team(
            cpus,
            |thread, n| {
                let mine = &slots[thread % slots.len()].0;
                for _ in 0..n {
                    mine.fetch_add(1, Ordering::Relaxed);
                }
            },
            control,
        ),
        CounterWay::PerCpu => h.measure_team(
            cpus,
            |_, n| {
                for _ in 0..n {
                    // SAFETY: sched_getcpu has no preconditions.
                    let cpu = unsafe { libc::sched_getcpu() } as usize;
                    slots[cpu % slots.len()].0.fetch_add(1, Ordering::Relaxed);
                }
            },
            control,
        ),
        CounterWay::Rseq => rseq_team(&slots, cpus, h),
    })
}

#[cfg(target_arch = "x86_64")]
fn rseq_team(slots: &[Slot], cpus: &[usize], h: &Harness) -> TeamReport {
    let aborts = AtomicU64::new(0);
    h.measure_team(
        cpus,
        |_, n| {
            let area = rseq::area().expect("checked by CounterWay::unavailable");
            for _ in 0..n {
                // SAFETY: this thread's own area; a slot for every CPU id the kernel may report.
                unsafe { rseq::increment(area, slots, &aborts) };
            }
        },
        |_, n| empty_loop(n),
    )
}

#[cfg(not(target_arch = "x86_64"))]
fn rseq_team(_: &[Slot], _: &[usize], _: &Harness) -> TeamReport {
    unreachable!("CounterWay::unavailable refuses rseq off x86-64")
}

/// Per read of the current CPU from `source` on one pinned thread, against the empty loop. Errors: the
/// source is unavailable here.
pub fn which_cpu(source: CpuSource, h: &Harness) -> anyhow::Result<overhead_harness::Measurement> {
    let read = source.reader().ok_or_else(|| anyhow::anyhow!("{}", source.unavailable().unwrap_or_default()))?;
    Ok(h.measure(
        |n| {
            for _ in 0..n {
                black_box(read());
            }
        },
        empty_loop,
    ))
}
