//! Judgments on the facts: which of a [`MachineInfo`]'s facts make its timings noisy or not comparable
//! with another machine's, as one English sentence each. The facts themselves are gathered elsewhere in
//! this module; nothing here reads the machine, so warnings can be judged from a record's facts alone.

use super::MachineInfo;

/// One judgment: a warning sentence when the fact it looks at calls for one.
type Judgment = fn(&MachineInfo) -> Option<String>;

/// Every judgment, in the order their warnings are listed.
const JUDGMENTS: [Judgment; 6] = [virtual_machine, governor, boost, tsc_not_invariant, clocksource, fewer_cpus];

impl MachineInfo {
    /// Reasons, one full English sentence each, why timings taken on this
    /// machine may be noisy or not comparable with another machine's: running
    /// in a VM, a cpufreq governor other than `performance`, boost on, a TSC
    /// that is not invariant (x86_64 only), a clocksource other than `tsc`
    /// (x86_64 only), fewer allowed CPUs than online ones. Empty when none
    /// apply; unknown facts (`None`) produce no warning.
    pub fn timing_warnings(&self) -> Vec<String> {
        JUDGMENTS.iter().filter_map(|judge| judge(self)).collect()
    }
}

/// Only x86_64 has a TSC and a `tsc` clocksource to expect.
fn is_x86(m: &MachineInfo) -> bool {
    m.arch == "x86_64"
}

/// A hypervisor was detected: other guests share the host.
fn virtual_machine(m: &MachineInfo) -> Option<String> {
    let hv = m.virtualization.as_deref()?;
    Some(format!(
        "Running in a virtual machine ({hv}); timings include virtualization \
         overhead and can be disturbed by other guests on the host."
    ))
}

/// A governor other than `performance` may change the clock speed mid-measurement.
fn governor(m: &MachineInfo) -> Option<String> {
    let g = m.governor.as_deref().filter(|g| *g != "performance")?;
    Some(format!(
        "The CPU frequency governor is \"{g}\", not \"performance\", so the \
         clock speed may change while measuring."
    ))
}

/// Boost makes the clock speed depend on temperature and load.
fn boost(m: &MachineInfo) -> Option<String> {
    (m.boost == Some(true)).then(|| {
        "CPU frequency boost (turbo) is enabled, so results depend on \
         temperature and on how many cores are busy."
            .to_string()
    })
}

/// On x86_64, a TSC that is neither invariant nor constant and nonstop.
fn tsc_not_invariant(m: &MachineInfo) -> Option<String> {
    // Constant and nonstop together are what the CPUID invariant bit promises.
    let invariant = m.tsc.invariant_cpuid || (m.tsc.constant_tsc && m.tsc.nonstop_tsc);
    (is_x86(m) && !invariant).then(|| {
        "The TSC is not invariant, so cycle counts and TSC-based clocks may \
         drift with frequency changes and idle states."
            .to_string()
    })
}

/// On x86_64, a clocksource other than the TSC makes each clock read dearer.
fn clocksource(m: &MachineInfo) -> Option<String> {
    let cs = m.clocksource.as_deref().filter(|cs| is_x86(m) && *cs != "tsc")?;
    Some(format!(
        "The kernel clocksource is \"{cs}\", not \"tsc\", so reading the clock \
         costs more and timings of short operations are less precise."
    ))
}

/// Fewer allowed CPUs than online ones: a cpuset or `taskset` limits the run.
fn fewer_cpus(m: &MachineInfo) -> Option<String> {
    (m.allowed_cpus.len() < m.logical_cpus).then(|| {
        format!(
            "Only {} of {} online CPUs are available to this process, so some \
             placements cannot be measured and other work may share the CPUs.",
            m.allowed_cpus.len(),
            m.logical_cpus
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CpuInfo, Topology, TscFlags};

    /// A hand-built two-CPU x86_64 machine on which nothing calls for a warning.
    fn quiet_machine() -> MachineInfo {
        let cpu = |cpu| CpuInfo { cpu, core: cpu, package: 0, numa_node: 0, smt_siblings: Vec::new(), llc: None };
        MachineInfo {
            host_name: "quiet".into(),
            arch: "x86_64".into(),
            cpu_vendor: "GenuineIntel".into(),
            cpu_model: "a test CPU".into(),
            logical_cpus: 2,
            allowed_cpus: vec![0, 1],
            topology: Topology { cpus: vec![cpu(0), cpu(1)], caches: Vec::new(), packages: 1, cores: 2, numa_nodes: 1 },
            kernel: "6.1.0 #1 SMP".into(),
            clocksource: Some("tsc".into()),
            available_clocksources: vec!["tsc".into(), "hpet".into()],
            tsc: TscFlags {
                tsc: true,
                constant_tsc: false,
                nonstop_tsc: false,
                invariant_cpuid: true,
                rdtscp: true,
                tsc_known_freq: true,
                cpuid_tsc_hz: Some(2_000_000_000),
            },
            governor: Some("performance".into()),
            boost: Some(false),
            virtualization: None,
            mhz_per_cpu: Some(2000.0),
            load_avg: [0.0; 3],
        }
    }

    type Spoil = fn(&mut MachineInfo);

    /// One fact spoiled per judgment, in [`JUDGMENTS`] order, with a word its warning must contain.
    const SPOILS: [(&str, Spoil); 6] = [
        ("virtual machine", |m| m.virtualization = Some("KVM".into())),
        ("governor", |m| m.governor = Some("powersave".into())),
        ("boost", |m| m.boost = Some(true)),
        ("not invariant", |m| m.tsc.invariant_cpuid = false),
        ("clocksource", |m| m.clocksource = Some("hpet".into())),
        ("online CPUs", |m| m.allowed_cpus = vec![0]),
    ];

    #[test]
    fn a_quiet_machine_has_no_warnings() {
        assert!(quiet_machine().timing_warnings().is_empty());
    }

    #[test]
    fn each_condition_gives_its_own_warning() {
        for (needle, spoil) in SPOILS {
            let mut m = quiet_machine();
            spoil(&mut m);
            let w = m.timing_warnings();
            assert_eq!(w.len(), 1, "{needle}: {w:?}");
            assert!(w[0].contains(needle), "{needle}: {w:?}");
        }
    }

    #[test]
    fn every_warning_is_a_sentence_in_a_fixed_order() {
        let mut m = quiet_machine();
        for (_, spoil) in SPOILS {
            spoil(&mut m);
        }
        let w = m.timing_warnings();
        assert_eq!(w.len(), SPOILS.len(), "{w:?}");
        for ((needle, _), warning) in SPOILS.iter().zip(&w) {
            assert!(warning.contains(needle), "{needle}: {warning}");
            assert!(warning.starts_with(|c: char| c.is_ascii_uppercase()), "{warning}");
            assert!(warning.ends_with('.'), "{warning}");
        }
        assert!(w[5].starts_with("Only 1 of 2 online CPUs"), "{}", w[5]);
    }

    #[test]
    fn unknown_facts_warn_of_nothing() {
        let mut m = quiet_machine();
        (m.governor, m.boost, m.clocksource) = (None, None, None);
        assert!(m.timing_warnings().is_empty());
    }

    #[test]
    fn constant_and_nonstop_count_as_invariant() {
        let mut m = quiet_machine();
        m.tsc.invariant_cpuid = false;
        (m.tsc.constant_tsc, m.tsc.nonstop_tsc) = (true, true);
        assert!(m.timing_warnings().is_empty());
        m.tsc.nonstop_tsc = false;
        assert_eq!(m.timing_warnings().len(), 1);
    }

    #[test]
    fn no_tsc_or_tsc_clocksource_is_expected_off_x86() {
        let mut arm = quiet_machine();
        arm.arch = "aarch64".to_string();
        arm.tsc.invariant_cpuid = false;
        arm.clocksource = Some("arch_sys_counter".to_string());
        assert!(arm.timing_warnings().is_empty());
    }
}
