//! The kernel's per-CPU time accounting (`/proc/stat`, proc(5)): how each CPU's time divided between busy,
//! idle and stolen, read at the start and end of a run to tell what else used the measured CPUs
//! (docs/METHOD.md §14), and this process's and its children's CPU time (`getrusage`).

use std::collections::BTreeMap;

/// One CPU's accounted time since boot (s), from its `cpuN` line.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CpuTime {
    /// user + nice + system + irq + softirq: running something (guest time is inside user and nice).
    pub busy_s: f64,
    /// Time the hypervisor ran another guest while this vCPU was runnable.
    pub steal_s: f64,
    /// Every field but guest and guest_nice (which user and nice already count).
    pub total_s: f64,
}

/// Every CPU's [`CpuTime`] at one moment, by CPU number.
pub type CpuTimes = BTreeMap<usize, CpuTime>;

/// Reads `/proc/stat` now; `None` where it cannot be read (not Linux, no procfs).
pub fn read_cpu_times() -> Option<CpuTimes> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    // SAFETY: sysconf has no preconditions; it returns -1 for an unknown name.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    parse_cpu_times(&text, if hz > 0 { hz as f64 } else { 100.0 })
}

/// The `cpuN` lines of a `/proc/stat` text whose ticks are `hz` per second; `None` when there is none.
pub fn parse_cpu_times(text: &str, hz: f64) -> Option<CpuTimes> {
    let times: CpuTimes = text
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_ascii_whitespace();
            let cpu: usize = fields.next()?.strip_prefix("cpu")?.parse().ok()?;
            let t: Vec<f64> = fields.map(|f| f.parse::<f64>().unwrap_or(0.0) / hz).collect();
            let at = |i: usize| t.get(i).copied().unwrap_or(0.0);
            // user nice system idle iowait irq softirq steal guest guest_nice
            Some((
                cpu,
                CpuTime {
                    busy_s: at(0) + at(1) + at(2) + at(5) + at(6),
                    steal_s: at(7),
                    total_s: (0..8).map(at).sum(),
                },
            ))
        })
        .collect();
    (!times.is_empty()).then_some(times)
}

/// CPU time (user + system, s) used so far by this process (`RUSAGE_SELF`) or by its terminated and waited-for
/// children (`RUSAGE_CHILDREN`, which includes their own waited-for children).
pub fn rusage_cpu_s(children: bool) -> f64 {
    let Ok(usage) = crate::process_times::rusage(if children { libc::RUSAGE_CHILDREN } else { libc::RUSAGE_SELF })
    else {
        return 0.0;
    };
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    s(usage.ru_utime) + s(usage.ru_stime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lines_give_busy_steal_and_total_in_seconds() {
        let text = "cpu  10 0 0 0 0 0 0 0 0 0\ncpu0 100 20 30 800 10 5 5 30 7 0\ncpu1 1 0 0 99 0 0 0 0 0 0\nintr 5\n";
        let t = parse_cpu_times(text, 100.0).unwrap();
        assert_eq!(t.len(), 2, "the summary line `cpu` is not a CPU");
        assert!((t[&0].busy_s - 1.6).abs() < 1e-12 && (t[&0].steal_s - 0.3).abs() < 1e-12, "{:?}", t[&0]);
        assert!((t[&0].total_s - 10.0).abs() < 1e-12, "guest time is not counted twice: {:?}", t[&0]);
        assert!(parse_cpu_times("intr 5\n", 100.0).is_none());
    }

    #[test]
    fn this_machine_has_an_accounting_and_children_time_grows() {
        let Some(t) = read_cpu_times() else { return };
        assert!(t.values().all(|c| c.total_s > 0.0 && c.busy_s <= c.total_s));
        let before = rusage_cpu_s(true);
        let status =
            std::process::Command::new("sh").args(["-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"]).status();
        if status.is_ok() {
            assert!(rusage_cpu_s(true) > before, "a waited-for child's CPU time counts");
        }
    }
}
