//! What the x86_64 `cpuid` instruction says: vendor, brand string, TSC features and frequency, and the
//! hypervisor's signature. Empty on other architectures.

/// What CPUID tells us; all empty where there is no CPUID.
#[derive(Debug, Default)]
pub(super) struct CpuidFacts {
    /// Leaf 0 vendor string (`"GenuineIntel"`, `"AuthenticAMD"`).
    pub(super) vendor: Option<String>,
    /// Brand string of leaves 0x8000_0002..4, trimmed; `None` if empty.
    pub(super) model: Option<String>,
    /// Leaf 1 EDX bit 4.
    pub(super) tsc: bool,
    /// Leaf 0x8000_0007 EDX bit 8.
    pub(super) invariant_tsc: bool,
    /// Leaf 0x8000_0001 EDX bit 27.
    pub(super) rdtscp: bool,
    /// TSC frequency (Hz) from leaf 0x15, else leaf 0x16's base frequency.
    pub(super) tsc_hz: Option<u64>,
    /// Hypervisor name (see [`MachineInfo::virtualization`](super::MachineInfo::virtualization)).
    pub(super) hypervisor: Option<String>,
}

/// No CPUID here: nothing is known.
#[cfg(not(target_arch = "x86_64"))]
pub(super) fn read() -> CpuidFacts {
    CpuidFacts::default()
}

/// The CPUID facts of the CPU this runs on.
#[cfg(target_arch = "x86_64")]
pub(super) fn read() -> CpuidFacts {
    use raw_cpuid::CpuId;

    let cpuid = CpuId::new();
    let features = cpuid.get_feature_info();
    CpuidFacts {
        vendor: cpuid.get_vendor_info().map(|v| v.as_str().to_string()),
        model: cpuid.get_processor_brand_string().map(|b| b.as_str().trim().to_string()).filter(|s| !s.is_empty()),
        tsc: features.as_ref().is_some_and(|f| f.has_tsc()),
        invariant_tsc: cpuid.get_advanced_power_mgmt_info().is_some_and(|apm| apm.has_invariant_tsc()),
        rdtscp: cpuid.get_extended_processor_and_feature_identifiers().is_some_and(|ext| ext.has_rdtscp()),
        tsc_hz: tsc_hz(&cpuid),
        // raw-cpuid only reads leaf 0x4000_0000 when the hypervisor bit is set:
        // on bare metal that leaf returns unrelated data.
        hypervisor: features.as_ref().filter(|f| f.has_hypervisor()).map(|_| hypervisor_name(&cpuid)),
    }
}

/// TSC frequency in Hz: leaf 0x15 (crystal clock times ratio), else leaf 0x16's base frequency.
#[cfg(target_arch = "x86_64")]
fn tsc_hz(cpuid: &raw_cpuid::CpuId<raw_cpuid::CpuIdReaderNative>) -> Option<u64> {
    cpuid.get_tsc_info().and_then(|leaf| leaf.tsc_frequency()).filter(|&hz| hz > 0).or_else(|| {
        // Leaf 0x16 gives the base frequency in MHz; Intel documents the
        // TSC as running at that rate when leaf 0x15 omits the crystal.
        let mhz = cpuid.get_processor_frequency_info()?.processor_base_frequency();
        (mhz > 0).then(|| u64::from(mhz) * 1_000_000)
    })
}

/// The hypervisor's name from leaf 0x4000_0000, for a CPU whose hypervisor bit is set: the usual
/// spelling for known ones, the raw signature otherwise, `"hypervisor"` if the leaf is missing.
#[cfg(target_arch = "x86_64")]
fn hypervisor_name(cpuid: &raw_cpuid::CpuId<raw_cpuid::CpuIdReaderNative>) -> String {
    use raw_cpuid::Hypervisor;

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
    fn hypervisor_signatures() {
        // "KVMKVMKVM\0\0\0" as CPUID returns it
        assert_eq!(hypervisor_signature(0x4b4d564b, 0x564b4d56, 0x0000004d), "KVMKVMKVM");
        assert_eq!(hypervisor_signature(0, 0, 0), "hypervisor");
        assert_eq!(hypervisor_signature(0x0101_0101, 0, 0), "hypervisor");
    }

    /// Whatever the CPU, the facts hang together: a TSC frequency is positive, a brand string is not blank.
    #[test]
    fn facts_of_this_cpu_are_consistent() {
        let facts = read();
        assert!(facts.tsc_hz.is_none_or(|hz| hz > 0));
        assert!(facts.model.as_deref().is_none_or(|m| !m.trim().is_empty()));
        assert!(facts.hypervisor.as_deref().is_none_or(|h| !h.is_empty()));
    }
}
