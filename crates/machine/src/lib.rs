//! What the machine is, as far as timing concurrency primitives goes: which
//! logical CPUs exist and how they relate ([`Topology`]), which of them this
//! process may use ([`allowed_cpus`], [`pin_current_thread`]), and the facts
//! that decide whether a timing can be trusted ([`MachineInfo`]).
//!
//! Everything here is Linux-first. Detection never panics: whatever cannot be
//! read is reported as `None`, `false`, empty, or a documented fallback, so a
//! benchmark can always record *something* about where it ran.

mod affinity;
mod child_processes;
mod cpu_list;
mod cpu_time;
mod describe;
mod process_times;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
mod thread_counters;
mod topology;

pub use affinity::{allowed_cpus, cpu_mask, pin_current_thread, refused_pinnings, set_affinity_mask};
pub use child_processes::WatchedChild;
pub use cpu_list::{parse_cpu_list, CpuListError, MAX_CPU_INDEX};
pub use cpu_time::{parse_cpu_times, read_cpu_times, rusage_cpu_s, CpuTime, CpuTimes};
pub use describe::{MachineInfo, TscFlags};
pub use process_times::{accounting_tick_ns, ProcessTimes};
pub use thread_counters::{process_counts, CounterKind, Counts, ThreadCounters, COUNTERS_ENV};
pub use topology::{CacheInfo, CpuInfo, PairClass, Placement, Topology};

use std::path::Path;

/// The contents of a small text file such as a sysfs or procfs attribute,
/// trimmed of surrounding whitespace (the kernel ends each value with `\n`);
/// `None` if it cannot be read. The one reader of such files for the topology
/// and the machine description alike.
fn read_trimmed(path: impl AsRef<Path>) -> Option<String> {
    std::fs::read_to_string(path).ok().map(|s| s.trim().to_string())
}
