//! A description of the machine for result files: identity, kernel, clocks,
//! frequency scaling, virtualization, load. Everything that makes two timings
//! of the same code on "the same" hardware disagree.

use serde::{Deserialize, Serialize};
use std::fs;

use super::read_trimmed;
use super::topology::Topology;

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
    /// milliseconds, mostly for [`Topology::detect`].
    pub fn detect() -> MachineInfo {
        let cpuinfo = ProcCpuinfo::read();
        let cpuid = cpuid_facts();
        let topology = Topology::detect();
        let logical_cpus = topology.cpus.len();

        let cpu_vendor = cpuid
            .vendor
            .clone()
            .or_else(|| cpuinfo.vendor_id.clone())
            .or_else(|| cpuinfo.implementer_name())
            .unwrap_or_else(|| "unknown".to_string());
        let cpu_model = cpuid
            .model
            .clone()
            .or_else(|| cpuinfo.model_name.clone())
            .or_else(|| cpuinfo.implementer_part())
            .unwrap_or_else(|| "unknown".to_string());

        let flag = |name: &str| cpuinfo.flags.iter().any(|f| f == name);
        let tsc = TscFlags {
            tsc: cpuid.tsc,
            constant_tsc: flag("constant_tsc"),
            nonstop_tsc: flag("nonstop_tsc"),
            invariant_cpuid: cpuid.invariant_tsc,
            rdtscp: cpuid.rdtscp,
            tsc_known_freq: flag("tsc_known_freq"),
            cpuid_tsc_hz: cpuid.tsc_hz,
        };

        const CS: &str = "/sys/devices/system/clocksource/clocksource0";
        const CPU0_FREQ: &str = "/sys/devices/system/cpu/cpu0/cpufreq";

        let boost = read_trimmed("/sys/devices/system/cpu/cpufreq/boost")
            .and_then(|v| parse_bool01(&v))
            .or_else(|| {
                read_trimmed("/sys/devices/system/cpu/intel_pstate/no_turbo")
                    .and_then(|v| parse_bool01(&v))
                    .map(|no_turbo| !no_turbo)
            })
            .or_else(|| read_trimmed(format!("{CPU0_FREQ}/boost")).and_then(|v| parse_bool01(&v)));

        let mhz_per_cpu = read_trimmed(format!("{CPU0_FREQ}/cpuinfo_max_freq"))
            .and_then(|khz| khz.parse::<f64>().ok())
            .map(|khz| khz / 1000.0)
            .or(cpuinfo.mhz)
            .filter(|mhz| mhz.is_finite() && *mhz > 0.0);

        MachineInfo {
            host_name: gethostname::gethostname().to_string_lossy().into_owned(),
            arch: std::env::consts::ARCH.to_string(),
            cpu_vendor,
            cpu_model,
            logical_cpus,
            allowed_cpus: super::allowed_cpus(),
            topology,
            kernel: kernel_string(),
            clocksource: read_trimmed(format!("{CS}/current_clocksource")).filter(|s| !s.is_empty()),
            available_clocksources: read_trimmed(format!("{CS}/available_clocksource"))
                .map(|s| s.split_whitespace().map(str::to_string).collect())
                .unwrap_or_default(),
            tsc,
            governor: read_trimmed(format!("{CPU0_FREQ}/scaling_governor")).filter(|s| !s.is_empty()),
            boost,
            virtualization: cpuid.hypervisor,
            mhz_per_cpu,
            load_avg: read_trimmed("/proc/loadavg").and_then(|s| parse_loadavg(&s)).unwrap_or([0.0; 3]),
        }
    }

    /// Reasons, one full English sentence each, why timings taken on this
    /// machine may be noisy or not comparable with another machine's: running
    /// in a VM, a cpufreq governor other than `performance`, boost on, a TSC
    /// that is not invariant (x86_64 only), a clocksource other than `tsc`
    /// (x86_64 only), fewer allowed CPUs than online ones. Empty when none
    /// apply; unknown facts (`None`) produce no warning.
    pub fn timing_warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        let x86 = self.arch == "x86_64";
        if let Some(hv) = &self.virtualization {
            warnings.push(format!(
                "Running in a virtual machine ({hv}); timings include virtualization \
                 overhead and can be disturbed by other guests on the host."
            ));
        }
        if let Some(g) = self.governor.as_deref().filter(|g| *g != "performance") {
            warnings.push(format!(
                "The CPU frequency governor is \"{g}\", not \"performance\", so the \
                 clock speed may change while measuring."
            ));
        }
        if self.boost == Some(true) {
            warnings.push(
                "CPU frequency boost (turbo) is enabled, so results depend on \
                 temperature and on how many cores are busy."
                    .to_string(),
            );
        }
        let invariant = self.tsc.invariant_cpuid || (self.tsc.constant_tsc && self.tsc.nonstop_tsc);
        if x86 && !invariant {
            warnings.push(
                "The TSC is not invariant, so cycle counts and TSC-based clocks may \
                 drift with frequency changes and idle states."
                    .to_string(),
            );
        }
        if let Some(cs) = self.clocksource.as_deref().filter(|cs| x86 && *cs != "tsc") {
            warnings.push(format!(
                "The kernel clocksource is \"{cs}\", not \"tsc\", so reading the clock \
                 costs more and timings of short operations are less precise."
            ));
        }
        if self.allowed_cpus.len() < self.logical_cpus {
            warnings.push(format!(
                "Only {} of {} online CPUs are available to this process, so some \
                 placements cannot be measured and other work may share the CPUs.",
                self.allowed_cpus.len(),
                self.logical_cpus
            ));
        }
        warnings
    }
}

fn parse_bool01(text: &str) -> Option<bool> {
    match text.trim() {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    }
}

/// The first three fields of `/proc/loadavg`, e.g. `"0.52 0.58 0.59 1/189 12345"`.
fn parse_loadavg(text: &str) -> Option<[f64; 3]> {
    let mut fields = text.split_whitespace().map(|f| f.parse::<f64>().ok());
    let mut out = [0.0; 3];
    for slot in &mut out {
        *slot = fields.next()??;
        if !slot.is_finite() {
            return None;
        }
    }
    Some(out)
}

/// `uname -r` and `uname -v`, space-separated; empty if `uname` fails.
fn kernel_string() -> String {
    // SAFETY: utsname is a struct of C char arrays, for which all-zero bytes
    // are a valid value.
    let mut uts: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: `uts` is a live, writable utsname; uname writes only into it.
    if unsafe { libc::uname(&mut uts) } != 0 {
        return String::new();
    }
    // The fields are NUL-terminated, but reading up to the array's end
    // instead of trusting that keeps this free of another unsafe block.
    let field = |chars: &[libc::c_char]| {
        // to_ne_bytes turns c_char into u8 whether it is i8 (x86_64) or
        // u8 (aarch64) without a cast clippy would flag on one of them.
        let bytes: Vec<u8> = chars.iter().map(|c| c.to_ne_bytes()[0]).take_while(|&b| b != 0).collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    let release = field(&uts.release);
    let version = field(&uts.version);
    format!("{release} {version}").trim().to_string()
}

/// The fields of the first processor entry of `/proc/cpuinfo` that we use.
#[derive(Debug, Default, Clone, PartialEq)]
struct ProcCpuinfo {
    vendor_id: Option<String>,
    model_name: Option<String>,
    flags: Vec<String>,
    mhz: Option<f64>,
    implementer: Option<String>,
    part: Option<String>,
}

impl ProcCpuinfo {
    fn read() -> ProcCpuinfo {
        fs::read_to_string("/proc/cpuinfo").map(|text| ProcCpuinfo::parse(&text)).unwrap_or_default()
    }

    /// Only the first entry counts (it is cpu0 in practice), except that
    /// aarch64 kernels may print `model name` or global lines elsewhere, so
    /// a field missing from the first entry is taken from the first entry
    /// that has it.
    fn parse(text: &str) -> ProcCpuinfo {
        let mut info = ProcCpuinfo::default();
        for line in text.lines() {
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let (key, value) = (key.trim(), value.trim());
            let set = |slot: &mut Option<String>| {
                if slot.is_none() && !value.is_empty() {
                    *slot = Some(value.to_string());
                }
            };
            match key {
                "vendor_id" => set(&mut info.vendor_id),
                "model name" => set(&mut info.model_name),
                "CPU implementer" => set(&mut info.implementer),
                "CPU part" => set(&mut info.part),
                // x86 says "flags", aarch64 "Features"; TSC flags only exist
                // in the former, so either is fine to keep.
                "flags" | "Features" if info.flags.is_empty() => {
                    info.flags = value.split_whitespace().map(str::to_string).collect();
                }
                "cpu MHz" if info.mhz.is_none() => {
                    info.mhz = value.parse::<f64>().ok().filter(|m| m.is_finite());
                }
                _ => {}
            }
        }
        info
    }

    /// Vendor name for an aarch64 `CPU implementer` code (MIDR_EL1 bits
    /// 31:24), as listed in the Arm ARM and util-linux's lscpu.
    fn implementer_name(&self) -> Option<String> {
        let code = self.implementer.as_deref()?;
        let code = u32::from_str_radix(code.trim_start_matches("0x"), 16).ok()?;
        let name = match code {
            0x41 => "ARM",
            0x42 => "Broadcom",
            0x43 => "Cavium",
            0x46 => "Fujitsu",
            0x48 => "HiSilicon",
            0x4e => "NVIDIA",
            0x50 => "APM",
            0x51 => "Qualcomm",
            0x61 => "Apple",
            0x6d => "Microsoft",
            0xc0 => "Ampere",
            _ => return Some(format!("implementer {code:#x}")),
        };
        Some(name.to_string())
    }

    /// A model string from implementer and part codes, for aarch64 kernels
    /// whose `/proc/cpuinfo` has no `model name`.
    fn implementer_part(&self) -> Option<String> {
        Some(format!("{} part {}", self.implementer_name()?, self.part.as_deref()?))
    }
}

/// What CPUID tells us; all empty where there is no CPUID.
#[derive(Debug, Default)]
struct CpuidFacts {
    vendor: Option<String>,
    model: Option<String>,
    tsc: bool,
    invariant_tsc: bool,
    rdtscp: bool,
    tsc_hz: Option<u64>,
    hypervisor: Option<String>,
}

#[cfg(not(target_arch = "x86_64"))]
fn cpuid_facts() -> CpuidFacts {
    CpuidFacts::default()
}

#[cfg(target_arch = "x86_64")]
fn cpuid_facts() -> CpuidFacts {
    use raw_cpuid::{CpuId, Hypervisor};

    let cpuid = CpuId::new();
    let features = cpuid.get_feature_info();
    let tsc_hz = cpuid.get_tsc_info().and_then(|leaf| leaf.tsc_frequency()).filter(|&hz| hz > 0).or_else(|| {
        // Leaf 0x16 gives the base frequency in MHz; Intel documents the
        // TSC as running at that rate when leaf 0x15 omits the crystal.
        let mhz = cpuid.get_processor_frequency_info()?.processor_base_frequency();
        (mhz > 0).then(|| u64::from(mhz) * 1_000_000)
    });
    // raw-cpuid only reads leaf 0x4000_0000 when the hypervisor bit is set:
    // on bare metal that leaf returns unrelated data.
    let hypervisor = features.as_ref().filter(|f| f.has_hypervisor()).map(|_| {
        match cpuid.get_hypervisor_info().map(|hv| hv.identify()) {
            Some(Hypervisor::KVM) => "KVM".to_string(),
            Some(Hypervisor::HyperV) => "Microsoft Hv".to_string(),
            Some(Hypervisor::VMware) => "VMware".to_string(),
            Some(Hypervisor::Xen) => "Xen".to_string(),
            Some(Hypervisor::QEMU) => "QEMU TCG".to_string(),
            Some(Hypervisor::Bhyve) => "bhyve".to_string(),
            Some(Hypervisor::QNX) => "QNX".to_string(),
            Some(Hypervisor::ACRN) => "ACRN".to_string(),
            Some(Hypervisor::Unknown(ebx, ecx, edx)) => hypervisor_signature(ebx, ecx, edx),
            None => "hypervisor".to_string(),
        }
    });
    CpuidFacts {
        vendor: cpuid.get_vendor_info().map(|v| v.as_str().to_string()),
        model: cpuid.get_processor_brand_string().map(|b| b.as_str().trim().to_string()).filter(|s| !s.is_empty()),
        tsc: features.as_ref().is_some_and(|f| f.has_tsc()),
        invariant_tsc: cpuid.get_advanced_power_mgmt_info().is_some_and(|apm| apm.has_invariant_tsc()),
        rdtscp: cpuid.get_extended_processor_and_feature_identifiers().is_some_and(|ext| ext.has_rdtscp()),
        tsc_hz,
        hypervisor,
    }
}

/// The 12-byte vendor signature of CPUID leaf 0x4000_0000 (EBX, ECX, EDX, each
/// little-endian ASCII), trimmed of NULs and spaces; `"hypervisor"` if that
/// leaves nothing printable.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn hypervisor_signature(ebx: u32, ecx: u32, edx: u32) -> String {
    let bytes: Vec<u8> = [ebx, ecx, edx].iter().flat_map(|r| r.to_le_bytes()).collect();
    let text: String =
        bytes.iter().map(|&b| b as char).collect::<String>().trim_matches(|c: char| c == '\0' || c == ' ').to_string();
    if text.is_empty() || !text.chars().all(|c| c.is_ascii_graphic() || c == ' ') {
        "hypervisor".to_string()
    } else {
        text
    }
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

    fn quiet_machine() -> MachineInfo {
        let mut m = MachineInfo::detect();
        m.arch = "x86_64".to_string();
        m.virtualization = None;
        m.governor = Some("performance".to_string());
        m.boost = Some(false);
        m.tsc.invariant_cpuid = true;
        m.clocksource = Some("tsc".to_string());
        m.logical_cpus = m.allowed_cpus.len();
        m
    }

    #[test]
    fn warnings_cover_each_condition() {
        assert!(quiet_machine().timing_warnings().is_empty());
        type Spoil = fn(&mut MachineInfo);
        let cases: [(&str, Spoil); 6] = [
            ("virtual machine", |m| m.virtualization = Some("KVM".into())),
            ("governor", |m| m.governor = Some("powersave".into())),
            ("boost", |m| m.boost = Some(true)),
            ("not invariant", |m| {
                m.tsc.invariant_cpuid = false;
                m.tsc.constant_tsc = false;
            }),
            ("clocksource", |m| m.clocksource = Some("hpet".into())),
            ("online CPUs", |m| m.logical_cpus += 1),
        ];
        for (needle, spoil) in cases {
            let mut m = quiet_machine();
            spoil(&mut m);
            let w = m.timing_warnings();
            assert_eq!(w.len(), 1, "{needle}: {w:?}");
            assert!(w[0].contains(needle), "{needle}: {w:?}");
        }
        // No TSC or "tsc" clocksource to expect off x86.
        let mut arm = quiet_machine();
        arm.arch = "aarch64".to_string();
        arm.tsc.invariant_cpuid = false;
        arm.clocksource = Some("arch_sys_counter".to_string());
        assert!(arm.timing_warnings().is_empty());
    }

    #[test]
    fn cpuinfo_parsing() {
        let x86 = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\n\
                   cpu MHz\t\t: 2595.124\nflags\t\t: fpu tsc constant_tsc nonstop_tsc\n\n\
                   processor\t: 1\nvendor_id\t: Other\ncpu MHz\t\t: 1.0\n";
        let p = ProcCpuinfo::parse(x86);
        assert_eq!(p.vendor_id.as_deref(), Some("AuthenticAMD"));
        assert_eq!(p.model_name.as_deref(), Some("AMD EPYC"));
        assert_eq!(p.mhz, Some(2595.124));
        assert!(p.flags.iter().any(|f| f == "nonstop_tsc"));

        let arm = "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd\n\
                   CPU implementer\t: 0x41\nCPU part\t: 0xd0c\n";
        let p = ProcCpuinfo::parse(arm);
        assert_eq!(p.implementer_name().as_deref(), Some("ARM"));
        assert_eq!(p.implementer_part().as_deref(), Some("ARM part 0xd0c"));
        assert_eq!(p.mhz, None);
        assert_eq!(ProcCpuinfo::parse(""), ProcCpuinfo::default());
    }

    #[test]
    fn small_parsers() {
        assert_eq!(parse_loadavg("0.52 0.58 0.59 1/189 12345\n"), Some([0.52, 0.58, 0.59]));
        assert_eq!(parse_loadavg("0.5 x 1"), None);
        assert_eq!(parse_loadavg("0.5"), None);
        assert_eq!(parse_bool01("1\n"), Some(true));
        assert_eq!(parse_bool01("0"), Some(false));
        assert_eq!(parse_bool01("on"), None);
        // "KVMKVMKVM\0\0\0" as CPUID returns it
        assert_eq!(hypervisor_signature(0x4b4d564b, 0x564b4d56, 0x0000004d), "KVMKVMKVM");
        assert_eq!(hypervisor_signature(0, 0, 0), "hypervisor");
        assert_eq!(hypervisor_signature(0x0101_0101, 0, 0), "hypervisor");
    }

    #[test]
    fn kernel_string_is_present() {
        assert!(!kernel_string().is_empty());
    }
}
