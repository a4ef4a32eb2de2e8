//! The fixed work of the granularity sweep and the per-CPU task counts (Ben-Asher & Feitelson 1991 §7: `n = g` in a loop,
//! and `res[exp][get_pid()]++` once per activity).

use crossbeam_utils::CachePadded;
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};

/// A value alone on a 128-byte block (crossbeam's `CachePadded` on x86-64: two lines, so the adjacent-line prefetcher does not pair it).
type Padded = CachePadded<AtomicU64>;

/// The shared variable every task reads, and one task counter per CPU.
pub struct Work {
    shared: Padded,
    /// Index: the CPU a task ran on; the last slot counts tasks on CPUs beyond `max_cpu`.
    per_cpu: Vec<Padded>,
}

impl Work {
    /// Work whose task counters cover CPUs `0..=max_cpu` (and one slot for any other CPU).
    pub fn new(max_cpu: usize) -> Work {
        Work { shared: Padded::default(), per_cpu: (0..max_cpu + 2).map(|_| Padded::default()).collect() }
    }

    /// `self` for the rest of the process, so tasks on any runtime can share it without reference
    /// counting (a shared `Arc` would add a contended cache line to every task). One per point: the
    /// probe process ends with the point.
    pub fn leak(self) -> &'static Work {
        Box::leak(Box::new(self))
    }

    /// One task: `reads` reads of the shared variable (the optimiser may neither hoist nor drop them),
    /// then one count for the CPU the task ran on (`sched_getcpu`, a vDSO read, as the study's
    /// `get_pid()`).
    #[inline]
    pub fn task(&self, reads: u64) {
        for _ in 0..reads {
            black_box(black_box(&self.shared).load(Ordering::Relaxed));
        }
        // SAFETY: sched_getcpu takes no arguments and touches no memory of ours; -1 means unknown.
        let cpu = unsafe { libc::sched_getcpu() };
        let other = self.per_cpu.len() - 1;
        let slot = usize::try_from(cpu).map_or(other, |c| c.min(other));
        self.per_cpu[slot].fetch_add(1, Ordering::Relaxed);
    }

    /// Tasks run on each CPU since the last call (index = CPU; the last entry: other CPUs), and zeroes
    /// the counters. Call it while no task runs.
    pub fn take_counts(&self) -> Vec<u64> {
        self.per_cpu.iter().map(|c| c.swap(0, Ordering::Relaxed)).collect()
    }
}

/// Reads per task when `work` reads are split into `tasks` tasks: `work / tasks`, as the study's
/// `l = 100000000/i` (the remainder is dropped, at most `tasks − 1` reads).
pub fn reads_per_task(work: u64, tasks: u64) -> u64 {
    work / tasks.max(1)
}

/// Each CPU's share of `counts` in percent (same order); all zero when nothing was counted.
pub fn shares_percent(counts: &[u64]) -> Vec<f64> {
    let total: u64 = counts.iter().sum();
    counts.iter().map(|&c| if total == 0 { 0.0 } else { 100.0 * c as f64 / total as f64 }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_every_task_once_on_the_cpu_it_ran_on() {
        let cpu = overhead_machine::allowed_cpus()[0];
        let work = Work::new(cpu);
        std::thread::scope(|s| {
            s.spawn(|| {
                overhead_machine::pin_current_thread(cpu).unwrap();
                (0..7).for_each(|_| work.task(10));
            });
        });
        let counts = work.take_counts();
        assert_eq!(counts[cpu], 7, "{counts:?}");
        assert_eq!(counts.iter().sum::<u64>(), 7);
        assert!(work.take_counts().iter().all(|&c| c == 0), "take_counts zeroes the counters");
    }

    #[test]
    fn shares_add_up_to_a_hundred() {
        let s = shares_percent(&[3, 1, 0]);
        assert_eq!(s, vec![75.0, 25.0, 0.0]);
        assert_eq!(shares_percent(&[0, 0]), vec![0.0, 0.0]);
        assert_eq!(reads_per_task(100, 7), 14);
        assert_eq!(reads_per_task(100, 0), 100);
    }
}
