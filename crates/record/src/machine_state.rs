//! What else used the measured CPUs during a run (docs/METHOD.md §14): from the kernel's per-CPU
//! accounting (`/proc/stat`) over the run, less the CPU time of the run's own processes, and the time the
//! hypervisor gave the vCPU to others (steal). pyperf and hyperfine warn when the machine is not quiet;
//! this is the record behind such a warning.

use serde::{Deserialize, Serialize};

/// A CPU is reported busy when other processes took more than this share of its time during the run. On a
/// quiet machine the share stays near zero (the kernel's threads, the terminal, an editor: below 3% on the
/// 2-vCPU VM of docs/METHOD.md §14); a process that keeps one CPU busy throughout takes half or more. A
/// tenth of a CPU's time is as often as a ~0.5 ms batch has a one-in-ten chance of sharing its CPU. The
/// history leaves runs past it out of the run level.
pub const OTHER_THRESHOLD: f64 = 0.10;

/// A vCPU is reported busy when the hypervisor gave more than this share of its time to other guests:
/// steal lands inside batches as time the operation did not take.
pub const STEAL_THRESHOLD: f64 = 0.05;

/// A point is flagged `slow` when other processes took at least this share of its CPUs' time while its
/// processes ran ([`probe_cpu_other_share`], summed over its processes). Higher than [`OTHER_THRESHOLD`]: a point's
/// processes last tens of milliseconds, and the kernel counts in ticks of 10 ms, so a single probe's share is
/// rough; a busy loop on one of a pair's two CPUs takes a quarter to a half of the pair's time.
pub const SHARED_POINT_THRESHOLD: f64 = 0.25;

/// The keys of a process's `extra` values that hold what its CPUs did while it ran, from the kernel's
/// accounting around the probe (the orchestrator writes them): busy and total CPU seconds of the point's
/// CPUs, and the probe's own CPU seconds (its rusage, and its children's).
pub mod probe_cpu_keys {
    /// Seconds the point's CPUs were busy during the probe, summed over the CPUs.
    pub const BUSY_S: &str = "probe_cpus_busy_s";
    /// Seconds of the point's CPUs' time during the probe, summed over the CPUs.
    pub const TOTAL_S: &str = "probe_cpus_total_s";
    /// CPU seconds the probe itself used.
    pub const OWN_S: &str = "probe_own_cpu_s";
}

/// One tick of the kernel's CPU accounting (`/proc/stat` counts in USER_HZ = 100 ticks a second), s.
pub const ACCOUNTING_TICK_S: f64 = 0.01;

/// The largest standard error [`probe_cpu_other_share`] accepts, as a share: a fifth of
/// [`SHARED_POINT_THRESHOLD`].
pub const MAX_SHARE_ERROR: f64 = 0.05;

/// What a point's CPUs did while its probes ran, summed over its processes: the share of their time other
/// processes took (busy less the probes' own, over the total; clamped at 0), each process pinned to `cpus`
/// distinct CPUs. Each reading is rounded to a tick, so each process's busy time on each CPU is off by a
/// uniform error at either end (variance 1/6 tick²); the share is given only when the resulting standard
/// error stays within [`MAX_SHARE_ERROR`] — a point of many short probes needs many of them. `None` then, and
/// when no process carries the accounting (older records).
pub fn probe_cpu_other_share<'a>(
    extras: impl Iterator<Item = &'a std::collections::BTreeMap<String, f64>>,
    cpus: usize,
) -> Option<f64> {
    let (mut busy, mut total, mut own, mut processes) = (0.0, 0.0, 0.0, 0usize);
    for extra in extras {
        let (Some(b), Some(t), Some(o)) =
            (extra.get(probe_cpu_keys::BUSY_S), extra.get(probe_cpu_keys::TOTAL_S), extra.get(probe_cpu_keys::OWN_S))
        else {
            continue;
        };
        (busy, total, own, processes) = (busy + b, total + t, own + o, processes + 1);
    }
    let error_s = ACCOUNTING_TICK_S * ((processes * cpus.max(1)) as f64 / 6.0).sqrt();
    (processes > 0 && total > 0.0 && error_s / total <= MAX_SHARE_ERROR).then(|| ((busy - own) / total).clamp(0.0, 1.0))
}

/// The share of each measured CPU's time that went elsewhere during the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineState {
    /// Seconds between the two readings of the kernel's accounting.
    pub elapsed_s: f64,
    /// One entry per CPU the run measured on, in CPU order.
    pub cpus: Vec<CpuShare>,
    /// The share above which a CPU is reported busy ([`MachineState::busy_cpus`]): other processes' share,
    /// and the steal share.
    pub other_threshold: f64,
    pub steal_threshold: f64,
}

/// One CPU's time during the run, as shares of its accounted time (0–1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CpuShare {
    pub cpu: usize,
    /// Busy time (user, nice, system, irq, softirq) not spent by the run's own processes.
    pub other: f64,
    /// Time the hypervisor ran something else while this vCPU wanted to run.
    pub steal: f64,
    /// The run's own processes' CPU time attributed to this CPU (each process's time spread evenly over
    /// the CPUs it was pinned to).
    pub own: f64,
}

impl MachineState {
    /// The CPUs whose other share or steal share passed its threshold.
    pub fn busy_cpus(&self) -> impl Iterator<Item = &CpuShare> {
        self.cpus.iter().filter(|c| c.other > self.other_threshold || c.steal > self.steal_threshold)
    }

    /// The warning the reports print when a CPU was busy: which CPUs, with their shares; `None` when the
    /// machine was quiet.
    pub fn warning(&self) -> Option<String> {
        let busy: Vec<String> = self
            .busy_cpus()
            .map(|c| format!("CPU {} ({:.0}% other processes, {:.1}% steal)", c.cpu, c.other * 100.0, c.steal * 100.0))
            .collect();
        (!busy.is_empty()).then(|| {
            format!(
                "The machine was not quiet: {} (thresholds {:.0}% and {:.0}% of the CPU's time). Points on these CPUs \
                 shared them with other work; the record's `machine_state` has every CPU's shares.",
                busy.join(", "),
                self.other_threshold * 100.0,
                self.steal_threshold * 100.0
            )
        })
    }

    /// The largest other share over the CPUs (0 without CPUs).
    pub fn max_other(&self) -> f64 {
        self.cpus.iter().map(|c| c.other).fold(0.0, f64::max)
    }

    /// The largest steal share over the CPUs (0 without CPUs).
    pub fn max_steal(&self) -> f64 {
        self.cpus.iter().map(|c| c.steal).fold(0.0, f64::max)
    }
}
