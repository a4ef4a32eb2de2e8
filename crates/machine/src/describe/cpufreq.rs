//! Frequency scaling as the kernel's cpufreq subsystem reports it in sysfs: governor, boost, nominal
//! maximum. Most VMs have no cpufreq at all, so every answer may be `None`.

use crate::read_trimmed;

/// cpufreq's directory for cpu0, whose policy stands for the machine's.
const CPU0_FREQ: &str = "/sys/devices/system/cpu/cpu0/cpufreq";

/// The scaling governor of cpu0 (`"performance"`, `"powersave"`, `"schedutil"`...); `None` without
/// cpufreq.
pub(super) fn governor() -> Option<String> {
    read_trimmed(format!("{CPU0_FREQ}/scaling_governor")).filter(|s| !s.is_empty())
}

/// Whether frequency boost (turbo) is on: `/sys/devices/system/cpu/cpufreq/boost`, else the inverse of
/// `intel_pstate/no_turbo`, else cpu0's per-policy `boost`; `None` if none exists or holds something other
/// than 0 or 1.
pub(super) fn boost() -> Option<bool> {
    let read01 = |path: &str| read_trimmed(path).and_then(|v| parse_bool01(&v));
    read01("/sys/devices/system/cpu/cpufreq/boost")
        .or_else(|| read01("/sys/devices/system/cpu/intel_pstate/no_turbo").map(|no_turbo| !no_turbo))
        .or_else(|| read01(&format!("{CPU0_FREQ}/boost")))
}

/// cpu0's `cpuinfo_max_freq` in MHz (sysfs gives kHz), unchecked; `None` if unreadable.
pub(super) fn max_mhz() -> Option<f64> {
    read_trimmed(format!("{CPU0_FREQ}/cpuinfo_max_freq"))
        .and_then(|khz| khz.parse::<f64>().ok())
        .map(|khz| khz / 1000.0)
}

/// A sysfs boolean: `"1"` or `"0"`, surrounding whitespace ignored.
fn parse_bool01(text: &str) -> Option<bool> {
    match text.trim() {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sysfs_booleans() {
        assert_eq!(parse_bool01("1\n"), Some(true));
        assert_eq!(parse_bool01("0"), Some(false));
        assert_eq!(parse_bool01("on"), None);
    }
}
