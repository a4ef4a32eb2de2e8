//! What each operation cost the kernel and the hardware, per point (docs/METHOD.md §18): the counts the
//! probes wrote into each process's `extra` (`cs_per_op`, `process_voluntary_cs_per_op`, `kernel_share`, …),
//! estimated over the point's processes with a confidence interval, the way its time is.

use std::collections::BTreeMap;

use overhead_machine::CounterKind;
use overhead_stats::{median_ci_ranks, percentile};
use serde::{Deserialize, Serialize};
use statrs::distribution::{Beta, ContinuousCDF};

/// The key of the kernel's share (0 to 1) of the probe processes' CPU time, every thread of them, as the
/// kernel's tick-sampled accounting splits it (`overhead_machine::ProcessTimes`): pooled over the point's
/// processes from their [`CPU_USER_KEY`] and [`CPU_SYSTEM_KEY`], and given only where the ticks behind it are
/// at least [`MIN_TICKS`] and the measuring window ([`WINDOW_CPU_KEY`]) was at least [`MIN_WINDOW_SHARE`] of
/// the CPU time (the split covers the process's whole life, start-up included).
pub const KERNEL_SHARE_KEY: &str = "kernel_share";

/// The `extra` key of a probe process's user CPU time at the end of its measurement, every thread, its whole
/// life (ns).
pub const CPU_USER_KEY: &str = "process_user_ns";

/// The `extra` key of a probe process's kernel CPU time at the end of its measurement, every thread, its whole
/// life (ns).
pub const CPU_SYSTEM_KEY: &str = "process_system_ns";

/// The `extra` key of a probe process's CPU time during the experiment's run alone, every thread (ns, exact).
pub const WINDOW_CPU_KEY: &str = "measuring_cpu_ns";

/// The least share of the processes' CPU time the measuring window must have for their kernel share to
/// describe the measurement rather than the start-up.
pub const MIN_WINDOW_SHARE: f64 = 0.8;

/// The `extra` key of the kernel's tick as the probe process found it (`overhead_machine::accounting_tick_ns`),
/// ns: how many samples a share rests on.
pub const TICK_KEY: &str = "accounting_tick_ns";

/// The tick taken where a process did not say (10 ms, HZ = 100, the slowest Linux ticks): fewer samples, a
/// wider interval, never a narrower one.
const DEFAULT_TICK_NS: f64 = 10_000_000.0;

/// The fewest ticks behind a share the report gives.
const MIN_TICKS: f64 = 10.0;

/// The confidence level asked of a count's interval over processes.
const CI_LEVEL: f64 = 0.95;

/// The `extra` key of `kind`'s count per operation: `{name}_per_op`.
pub fn per_op_key(kind: CounterKind) -> String {
    format!("{}_per_op", kind.name())
}

/// One counter of one point over its processes: the median of the processes' values and the
/// distribution-free interval of that median (order statistics, as the time's single-process CI).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CountEstimate {
    /// The `extra` key it summarises: `cs_per_op`, `cpu_ns_per_op`, `kernel_share`, …
    pub key: String,
    /// Median over the processes that counted it: events per operation (ns for `cpu_ns_per_op`, a share from
    /// 0 to 1 for `kernel_share`).
    pub median: f64,
    /// Lower end of the interval.
    pub ci_low: f64,
    /// Upper end of the interval.
    pub ci_high: f64,
    /// The interval's coverage: at least 0.95 from six processes on, less with fewer (0.75 with three, 0.94
    /// with five; 0 with one, where the interval is the one value).
    pub ci_level: f64,
    /// Processes that counted it.
    pub processes: usize,
}

impl crate::PointRecord {
    /// The point's estimate of `kind` per operation, where counted.
    pub fn count(&self, kind: CounterKind) -> Option<&CountEstimate> {
        let key = per_op_key(kind);
        self.counts.iter().find(|c| c.key == key)
    }

    /// The median of `kind` per operation, where counted.
    pub fn per_op(&self, kind: CounterKind) -> Option<f64> {
        self.count(kind).map(|c| c.median)
    }

    /// The kernel's share of the processes' CPU time (0 to 1) with its interval, where enough was sampled.
    pub fn kernel_share(&self) -> Option<&CountEstimate> {
        self.counts.iter().find(|c| c.key == KERNEL_SHARE_KEY)
    }

    /// Context switches per operation of every thread of the point's processes (voluntary + involuntary
    /// medians), where counted.
    pub fn process_switches_per_op(&self) -> Option<f64> {
        Some(
            self.per_op(CounterKind::ProcessVoluntarySwitches)?
                + self.per_op(CounterKind::ProcessInvoluntarySwitches)?,
        )
    }
}

/// Every count the processes' `extra` values hold (each [`CounterKind`]'s [`per_op_key`] and
/// [`KERNEL_SHARE_KEY`]), estimated over the processes that have it, in [`CounterKind::ALL`]'s order with
/// the share last; empty where no process counted.
pub fn estimate_counts<'a>(extras: impl IntoIterator<Item = &'a BTreeMap<String, f64>> + Clone) -> Vec<CountEstimate> {
    let keys = CounterKind::ALL.iter().map(|&kind| per_op_key(kind));
    let mut counts: Vec<CountEstimate> = keys
        .filter_map(|key| {
            let mut values: Vec<f64> = extras
                .clone()
                .into_iter()
                .filter_map(|extra| extra.get(&key).copied())
                .filter(|v| v.is_finite())
                .collect();
            if values.is_empty() {
                return None;
            }
            values.sort_by(f64::total_cmp);
            let (lo, hi, ci_level) = median_ci_ranks(values.len(), CI_LEVEL);
            Some(CountEstimate {
                median: percentile(&values, 0.5),
                ci_low: values[lo - 1],
                ci_high: values[hi - 1],
                ci_level,
                processes: values.len(),
                key,
            })
        })
        .collect();
    counts.extend(kernel_share(extras));
    counts
}

/// The kernel's share of the processes' CPU time, pooled: Σ kernel / Σ (user + kernel), with the
/// Clopper–Pearson interval of a proportion over the ticks that sampled it (each process's CPU time over its
/// [`TICK_KEY`]); `None` with fewer than [`MIN_TICKS`] ticks in all, or where the measuring windows were less
/// than [`MIN_WINDOW_SHARE`] of the CPU time.
fn kernel_share<'a>(extras: impl IntoIterator<Item = &'a BTreeMap<String, f64>>) -> Option<CountEstimate> {
    let (mut user, mut system, mut window, mut ticks, mut processes) = (0.0, 0.0, 0.0, 0.0, 0);
    for extra in extras {
        if let (Some(u), Some(s), Some(w)) =
            (extra.get(CPU_USER_KEY), extra.get(CPU_SYSTEM_KEY), extra.get(WINDOW_CPU_KEY))
        {
            let tick = extra.get(TICK_KEY).copied().filter(|&t| t > 0.0).unwrap_or(DEFAULT_TICK_NS);
            (user, system, window) = (user + u, system + s, window + w);
            (ticks, processes) = (ticks + (u + s) / tick, processes + 1);
        }
    }
    let total = user + system;
    let ticks = ticks.floor();
    if ticks < MIN_TICKS || window < MIN_WINDOW_SHARE * total {
        return None;
    }
    let in_kernel = (system / total * ticks).round();
    let quantile = |a: f64, b: f64, p: f64| Beta::new(a, b).map_or(f64::NAN, |beta| beta.inverse_cdf(p));
    let ci_low =
        if in_kernel == 0.0 { 0.0 } else { quantile(in_kernel, ticks - in_kernel + 1.0, (1.0 - CI_LEVEL) / 2.0) };
    let ci_high =
        if in_kernel == ticks { 1.0 } else { quantile(in_kernel + 1.0, ticks - in_kernel, (1.0 + CI_LEVEL) / 2.0) };
    Some(CountEstimate {
        key: KERNEL_SHARE_KEY.into(),
        median: system / total,
        ci_low,
        ci_high,
        ci_level: CI_LEVEL,
        processes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extra(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|&(k, v)| (k.to_string(), v)).collect()
    }

    /// Known answer: seven processes' counts give their median, and the interval of ranks 1..7 (for n = 7 the
    /// narrowest with ≥ 95% coverage: 98.4%; ranks 2..6 cover only 87.5%).
    #[test]
    fn a_count_is_the_median_over_processes_with_its_order_statistic_interval() {
        let extras: Vec<_> = [1.0, 1.0, 0.98, 1.02, 1.0, 0.9, 1.1]
            .iter()
            .map(|&cs| {
                extra(&[
                    ("cs_per_op", cs),
                    (CPU_USER_KEY, 2e6),
                    (CPU_SYSTEM_KEY, 8e6),
                    (WINDOW_CPU_KEY, 9e6),
                    (TICK_KEY, 1e6),
                    ("speed", 3.0),
                ])
            })
            .collect();
        let counts = estimate_counts(&extras);
        assert_eq!(counts.len(), 2, "cs and the kernel share, nothing else: {counts:?}");
        let cs = &counts[0];
        assert_eq!((cs.key.as_str(), cs.median, cs.processes), ("cs_per_op", 1.0, 7));
        let (lo, hi, level) = median_ci_ranks(7, CI_LEVEL);
        assert_eq!((lo, hi), (1, 7));
        let sorted = [0.9, 0.98, 1.0, 1.0, 1.0, 1.02, 1.1];
        assert_eq!((cs.ci_low, cs.ci_high, cs.ci_level), (sorted[lo - 1], sorted[hi - 1], level));
        assert!(cs.ci_low <= cs.median && cs.median <= cs.ci_high);
        assert_eq!(counts[1].key, KERNEL_SHARE_KEY);
    }

    /// Known answer: 70 ms of CPU, 56 of it in the kernel, over ticks of 5 ms is a share of 0.8 over 14
    /// ticks, whose exact 95% interval (Clopper–Pearson, 11.2 → 11 of 14) is [0.492, 0.953]; 30 ms in all (6
    /// ticks) gives no share, nor do 70 ms where no process said its tick (7 ticks of 10 ms), nor processes
    /// whose measuring windows were under 80% of their CPU time.
    #[test]
    fn the_kernel_share_is_pooled_over_processes_with_a_binomial_interval() {
        let process = |window: f64| {
            extra(&[(CPU_USER_KEY, 2e6), (CPU_SYSTEM_KEY, 8e6), (WINDOW_CPU_KEY, window), (TICK_KEY, 5e6)])
        };
        let seven: Vec<_> = (0..7).map(|_| process(8e6)).collect();
        let share = kernel_share(&seven).expect("14 ticks are enough");
        assert!((share.median - 0.8).abs() < 1e-12, "{share:?}");
        assert!((share.ci_low - 0.4920).abs() < 1e-3 && (share.ci_high - 0.9534).abs() < 1e-3, "{share:?}");
        assert_eq!(share.processes, 7);
        assert!(kernel_share(&seven[..3]).is_none(), "30 ms is six ticks");
        let untold: Vec<_> =
            (0..7).map(|_| extra(&[(CPU_USER_KEY, 2e6), (CPU_SYSTEM_KEY, 8e6), (WINDOW_CPU_KEY, 8e6)])).collect();
        assert!(kernel_share(&untold).is_none(), "seven ticks of the slowest kind");
        let start_up_heavy: Vec<_> = (0..7).map(|_| process(7.9e6)).collect();
        assert!(kernel_share(&start_up_heavy).is_none(), "the windows are 79% of the CPU time");
        // All kernel: the interval reaches 1.
        let all: Vec<_> =
            (0..10).map(|_| extra(&[(CPU_USER_KEY, 0.0), (CPU_SYSTEM_KEY, 1e7), (WINDOW_CPU_KEY, 1e7)])).collect();
        assert_eq!(kernel_share(&all).map(|s| (s.median, s.ci_high)), Some((1.0, 1.0)));
    }

    /// A process that did not count (an older build, a refused counter) is left out, not read as zero.
    #[test]
    fn processes_without_a_count_are_left_out() {
        let extras = vec![extra(&[("cs_per_op", 2.0)]), extra(&[]), extra(&[("cs_per_op", 2.0)])];
        let counts = estimate_counts(&extras);
        assert_eq!((counts[0].median, counts[0].processes), (2.0, 2));
        assert!(estimate_counts(&[extra(&[])]).is_empty());
    }
}
