//! A description of the machine for result files: identity, kernel, clocks,
//! frequency scaling, virtualization, load. Everything that makes two timings
//! of the same code on "the same" hardware disagree.
//!
//! The record ([`MachineInfo`], [`TscFlags`]) and how [`MachineInfo::detect`]
//! assembles it live here; each source of facts has its own file
//! (`cpuinfo.rs`, `cpuid.rs`, `cpufreq.rs`, `kernel.rs`), and the judgments on
//! the facts, [`MachineInfo::timing_warnings`], are apart in `warnings.rs`.

mod cpufreq;
mod cpuid;
mod cpuinfo;
mod kernel;
mod warnings;

use serde::{Deserialize, Serialize};

use super::allowed_cpus;
use super::topology::Topology;
use cpuid::CpuidFacts;
use cpuinfo::ProcCpuinfo;

/// What the CPU and kernel say about the time-stamp counter, which decides
/// whether `rdtsc`-based and `clock_gettime`-based timings can be trusted.
///
/// All `false`/`None` on non-x86_64 machines, which have no TSC.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TscFlags {
    /// CPUID leaf 1 EDX bit 4: the CPU has a TSC at all.
    pub tsc: bool,
    /// `/proc/cpuinfo` flag `constant_tsc`: the TSC ticks at a fixed rate
    /// regardless of frequency scaling.
    pub constant_tsc: bool,
    /// `/proc/cpuinfo` flag `nonstop_tsc`: the TSC keeps ticking in deep
    /// idle states.
    pub nonstop_tsc: bool,
    /// CPUID leaf 0x8000_0007 EDX bit 8 ("invariant TSC"): constant and
    /// nonstop, as the CPU (or hypervisor) reports it.
    pub invariant_cpuid: bool,
    /// CPUID leaf 0x8000_0001 EDX bit 27: the `rdtscp` instruction exists.
    pub rdtscp: bool,
    /// `/proc/cpuinfo` flag `tsc_known_freq`: the kernel took the TSC
    /// frequency from CPUID or the hypervisor instead of calibrating it.
    pub tsc_known_freq: bool,
    /// TSC frequency in Hz from CPUID leaf 0x15 (crystal clock times ratio),
    /// else the base frequency of leaf 0x16; `None` where neither says
    /// (all AMD CPUs, many VMs).
    pub cpuid_tsc_hz: Option<u64>,
}

/// Everything recorded about the machine alongside a measurement.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct MachineInfo {
    /// Host name from `gethostname`, lossily converted to UTF-8.
    pub host_name: String,
    /// Target architecture this binary was built for, e.g. `"x86_64"`,
    /// `"aarch64"` (`std::env::consts::ARCH`).
    pub arch: String,
    /// CPU vendor: CPUID vendor string on x86_64 (`"GenuineIntel"`,
    /// `"AuthenticAMD"`), implementer name on aarch64, `"unknown"` otherwise.
    pub cpu_vendor: String,
    /// CPU model: the CPUID brand string on x86_64, `/proc/cpuinfo`
    /// `model name` (or implementer/part codes) elsewhere, else `"unknown"`.
    pub cpu_model: String,
    /// Number of online logical CPUs (`topology.cpus.len()`).
    pub logical_cpus: usize,
    /// CPUs this process may run on, sorted (see [`super::allowed_cpus`]).
    pub allowed_cpus: Vec<usize>,
    /// CPU topology (see [`Topology::detect`]).
    pub topology: Topology,
    /// Kernel release and version from `uname`, space-separated, e.g.
    /// `"6.1.0-18-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1"`; empty if
    /// `uname` fails.
    pub kernel: String,
    /// The kernel's current clocksource (`"tsc"`, `"kvm-clock"`, `"hpet"`,
    /// `"arch_sys_counter"`...), `None` if sysfs does not say.
    pub clocksource: Option<String>,
    /// Clocksources the kernel could switch to, in sysfs order.
    pub available_clocksources: Vec<String>,
    /// Time-stamp counter facts.
    pub tsc: TscFlags,
    /// cpufreq scaling governor of cpu0 (`"performance"`, `"powersave"`,
    /// `"schedutil"`...); `None` without cpufreq, as in most VMs.
    pub governor: Option<String>,
    /// Whether frequency boost (turbo) is on: from
    /// `/sys/devices/system/cpu/cpufreq/boost`, else the inverse of
    /// `intel_pstate/no_turbo`, else cpu0's per-policy `cpufreq/boost`;
    /// `None` if none exists.
    pub boost: Option<bool>,
    /// Hypervisor vendor from CPUID leaf 0x4000_0000 (`"KVM"`,
    /// `"Microsoft Hv"`, `"VMware"`, `"Xen"`...), `"hypervisor"` if only the
    /// CPUID hypervisor bit is set, `None` on bare metal and on non-x86_64.
    pub virtualization: Option<String>,
    /// Nominal CPU frequency in MHz: cpufreq `cpuinfo_max_freq` of cpu0 if
    /// present, else the `cpu MHz` of the first `/proc/cpuinfo` entry;
    /// `None` if neither is readable.
    pub mhz_per_cpu: Option<f64>,
    /// 1-, 5- and 15-minute load averages from `/proc/loadavg`; zeros if
    /// unreadable.
    pub load_avg: [f64; 3],
}

impl MachineInfo {
    /// Gather all fields. Never panics; unreadable facts become `None`,
    /// `false`, empty or `"unknown"` as each field documents. Takes a few
    /// milliseconds, mostly for [`Topology::detect`]; a run detects once and
    /// passes the result on (its topology goes to planning as well).
    pub fn detect() -> MachineInfo {
        let cpuinfo = ProcCpuinfo::read();
        let cpuid = cpuid::read();
        let topology = Topology::detect();
        MachineInfo {
            host_name: gethostname::gethostname().to_string_lossy().into_owned(),
            arch: std::env::consts::ARCH.to_string(),
            cpu_vendor: cpu_vendor(&cpuid, &cpuinfo),
            cpu_model: cpu_model(&cpuid, &cpuinfo),
            logical_cpus: topology.cpus.len(),
            allowed_cpus: allowed_cpus(),
            topology,
            kernel: kernel::release_and_version(),
            clocksource: kernel::clocksource(),
            available_clocksources: kernel::available_clocksources(),
            tsc: tsc_flags(&cpuid, &cpuinfo),
            governor: cpufreq::governor(),
            boost: cpufreq::boost(),
            mhz_per_cpu: nominal_mhz(&cpuinfo),
            load_avg: kernel::load_avg(),
            virtualization: cpuid.hypervisor,
        }
    }
}

/// CPUID's vendor string, else `/proc/cpuinfo`'s `vendor_id`, else the aarch64 implementer's name, else
/// `"unknown"`.
fn cpu_vendor(cpuid: &CpuidFacts, cpuinfo: &ProcCpuinfo) -> String {
    cpuid
        .vendor
        .clone()
        .or_else(|| cpuinfo.vendor_id.clone())
        .or_else(|| cpuinfo.implementer_name())
        .unwrap_or_else(|| "unknown".to_string())
}

/// CPUID's brand string, else `/proc/cpuinfo`'s `model name`, else aarch64 implementer and part, else
/// `"unknown"`.
fn cpu_model(cpuid: &CpuidFacts, cpuinfo: &ProcCpuinfo) -> String {
    cpuid
        .model
        .clone()
        .or_else(|| cpuinfo.model_name.clone())
        .or_else(|| cpuinfo.implementer_part())
        .unwrap_or_else(|| "unknown".to_string())
}

/// The TSC facts, from CPUID where the CPU says and from the kernel's `/proc/cpuinfo` flags where only
/// the kernel does.
fn tsc_flags(cpuid: &CpuidFacts, cpuinfo: &ProcCpuinfo) -> TscFlags {
    TscFlags {
        tsc: cpuid.tsc,
        constant_tsc: cpuinfo.has_flag("constant_tsc"),
        nonstop_tsc: cpuinfo.has_flag("nonstop_tsc"),
        invariant_cpuid: cpuid.invariant_tsc,
        rdtscp: cpuid.rdtscp,
        tsc_known_freq: cpuinfo.has_flag("tsc_known_freq"),
        cpuid_tsc_hz: cpuid.tsc_hz,
    }
}

/// cpufreq's maximum for cpu0, else `/proc/cpuinfo`'s `cpu MHz` (MHz); `None` if neither is readable or
/// the one found is not a positive number.
fn nominal_mhz(cpuinfo: &ProcCpuinfo) -> Option<f64> {
    cpufreq::max_mhz().or(cpuinfo.mhz).filter(|mhz| mhz.is_finite() && *mhz > 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detect_is_consistent() {
        let m = MachineInfo::detect();
        assert_eq!(m.logical_cpus, m.topology.cpus.len());
        assert!(!m.allowed_cpus.is_empty());
        assert!(!m.arch.is_empty());
        assert!(!m.cpu_vendor.is_empty() && !m.cpu_model.is_empty());
        assert!(m.load_avg.iter().all(|l| l.is_finite() && *l >= 0.0));
        if let Some(mhz) = m.mhz_per_cpu {
            assert!(mhz.is_finite() && mhz > 0.0);
        }
        for w in m.timing_warnings() {
            assert!(w.ends_with('.'), "{w}");
            assert!(w.starts_with(|c: char| c.is_ascii_uppercase()), "{w}");
        }
    }

    #[test]
    fn machine_info_round_trips_through_json() {
        let m = MachineInfo::detect();
        let json = serde_json::to_string_pretty(&m).unwrap();
        let mut back: MachineInfo = serde_json::from_str(&json).unwrap();
        // serde_json's default float parser may be one ulp off on long
        // decimals; that is not what this test is about.
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(1.0);
        if let (Some(a), Some(b)) = (m.mhz_per_cpu, back.mhz_per_cpu) {
            assert!(close(a, b));
            back.mhz_per_cpu = m.mhz_per_cpu;
        }
        for (a, b) in m.load_avg.iter().zip(back.load_avg.iter_mut()) {
            assert!(close(*a, *b));
            *b = *a;
        }
        assert_eq!(back, m);
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert!(value["topology"]["caches"].is_array());
        if let Some(cache) = m.topology.caches.first() {
            assert_eq!(value["topology"]["caches"][0]["type"], cache.kind.as_str());
        }
    }

    /// The machine section of the committed golden record (tests/golden/quick-run.json) reads into
    /// [`MachineInfo`] and writes back byte for byte: field names, their order and the forms of the
    /// values are what other tools read.
    #[test]
    fn the_golden_records_machine_writes_back_byte_for_byte() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/golden/quick-run.json");
        let text = std::fs::read_to_string(path).unwrap();
        let key = "\"machine\":";
        let start = text.find(key).expect("the record has a machine") + key.len();
        let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<MachineInfo>();
        let machine = stream.next().unwrap().unwrap();
        let original = &text[start..start + stream.byte_offset()];
        assert_eq!(serde_json::to_string(&machine).unwrap(), original);
        assert!(original.contains("\"topology\":{\"cpus\":["), "{original}");
    }
}
