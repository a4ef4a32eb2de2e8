//! What else used the measured CPUs during a run (docs/METHOD.md §14): the kernel's per-CPU accounting at
//! the start and end of the run, less the CPU time of the run's own processes, attributed to the CPUs each
//! probe was pinned to.

use std::collections::BTreeMap;

use overhead_machine::{read_cpu_times, rusage_cpu_s, CpuTimes};
use overhead_record::{CpuShare, MachineState};

/// The shares past which a measured CPU counts as busy (in `overhead_record`, where the history reads them too).
pub use overhead_record::{OTHER_THRESHOLD, STEAL_THRESHOLD};

/// The run's own CPU time per CPU, gathered probe by probe, and the kernel's accounting at the start.
pub struct CpuWatch {
    start: Option<CpuTimes>,
    started: std::time::Instant,
    self_at_start: f64,
    own_s: BTreeMap<usize, f64>,
    children_before: f64,
    /// The kernel's accounting when the current probe started.
    probe_start: Option<CpuTimes>,
}

/// What one probe's CPUs did while it ran, summed over the point's distinct CPUs (seconds): the kernel's
/// busy and total time, and the probe's own CPU time. Goes into the process's `extra`
/// ([`overhead_record::probe_cpu_keys`]), where the analysis reads whether others shared its CPUs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProbeCpu {
    pub busy_s: f64,
    pub total_s: f64,
    pub own_s: f64,
}

impl ProbeCpu {
    /// Writes itself into a process's `extra` values.
    pub fn put_into(self, extra: &mut BTreeMap<String, f64>) {
        use overhead_record::probe_cpu_keys::{BUSY_S, OWN_S, TOTAL_S};
        extra.insert(BUSY_S.into(), self.busy_s);
        extra.insert(TOTAL_S.into(), self.total_s);
        extra.insert(OWN_S.into(), self.own_s);
    }
}

impl CpuWatch {
    /// Reads the accounting now.
    pub fn start() -> CpuWatch {
        CpuWatch {
            start: read_cpu_times(),
            started: std::time::Instant::now(),
            self_at_start: rusage_cpu_s(false),
            own_s: BTreeMap::new(),
            children_before: rusage_cpu_s(true),
            probe_start: None,
        }
    }

    /// Call just before a probe starts.
    pub fn before_probe(&mut self) {
        self.children_before = rusage_cpu_s(true);
        self.probe_start = read_cpu_times();
    }

    /// Call once the probe pinned to `cpus` has been waited for: its CPU time (and its children's) is the
    /// run's own, spread evenly over `cpus`. Returns what the point's CPUs did meanwhile; `None` without the
    /// kernel's accounting.
    pub fn after_probe(&mut self, cpus: &[usize]) -> Option<ProbeCpu> {
        let used = (rusage_cpu_s(true) - self.children_before).max(0.0);
        for &cpu in cpus {
            *self.own_s.entry(cpu).or_default() += used / cpus.len() as f64;
        }
        let (start, end) = (self.probe_start.take()?, read_cpu_times()?);
        let mut distinct = cpus.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        let (mut busy_s, mut total_s) = (0.0, 0.0);
        for cpu in distinct {
            let (a, b) = (start.get(&cpu)?, end.get(&cpu)?);
            busy_s += b.busy_s - a.busy_s;
            total_s += b.total_s - a.total_s;
        }
        Some(ProbeCpu { busy_s, total_s, own_s: used })
    }

    /// The shares over the run for the CPUs in `measured`; `None` without the kernel's accounting.
    pub fn finish(&self, measured: &[usize]) -> Option<MachineState> {
        let end = read_cpu_times()?;
        // The orchestrator's own time (its threads wait, read pipes and write the record) ran unpinned.
        let orchestrator_s = (rusage_cpu_s(false) - self.self_at_start).max(0.0) / measured.len().max(1) as f64;
        let cpus = measured
            .iter()
            .filter_map(|&cpu| {
                let (a, b) = (self.start.as_ref()?.get(&cpu)?, end.get(&cpu)?);
                let total = b.total_s - a.total_s;
                if total <= 0.0 {
                    return None;
                }
                let own = self.own_s.get(&cpu).copied().unwrap_or(0.0) + orchestrator_s;
                let busy = b.busy_s - a.busy_s;
                Some(CpuShare {
                    cpu,
                    other: ((busy - own) / total).clamp(0.0, 1.0),
                    steal: ((b.steal_s - a.steal_s) / total).clamp(0.0, 1.0),
                    own: (own / total).clamp(0.0, 1.0),
                })
            })
            .collect();
        Some(MachineState {
            elapsed_s: self.started.elapsed().as_secs_f64(),
            cpus,
            other_threshold: OTHER_THRESHOLD,
            steal_threshold: STEAL_THRESHOLD,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quiet_share_gives_no_warning_and_a_busy_cpu_is_named() {
        let share = |cpu, other| CpuShare { cpu, other, steal: 0.0, own: 0.5 };
        let mut state = MachineState {
            elapsed_s: 20.0,
            cpus: vec![share(0, 0.01), share(1, 0.02)],
            other_threshold: OTHER_THRESHOLD,
            steal_threshold: STEAL_THRESHOLD,
        };
        assert!(state.warning().is_none());
        state.cpus[1].other = 0.45;
        let w = state.warning().unwrap();
        assert!(w.contains("CPU 1 (45% other") && !w.contains("CPU 0"), "{w}");
        state.cpus[0].steal = 0.2;
        assert!(state.warning().unwrap().contains("CPU 0 (1% other processes, 20.0% steal)"));
    }

    #[test]
    fn a_probe_s_time_is_the_run_s_own_on_its_cpus() {
        let mut watch = CpuWatch::start();
        watch.before_probe();
        let _ =
            std::process::Command::new("sh").args(["-c", "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done"]).status();
        watch.after_probe(&[0, 1]);
        assert!(watch.own_s[&0] > 0.0 && (watch.own_s[&0] - watch.own_s[&1]).abs() < 1e-12);
        if let Some(state) = watch.finish(&[0]) {
            assert!(state.cpus.iter().all(|c| (0.0..=1.0).contains(&c.other)));
        }
    }
}
