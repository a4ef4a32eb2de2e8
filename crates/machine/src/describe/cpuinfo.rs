//! `/proc/cpuinfo`: the fields of its first processor entry that the machine description uses (vendor,
//! model, flags, MHz, and aarch64's implementer and part codes).

use std::fs;

/// The fields of the first processor entry of `/proc/cpuinfo` that we use; each `None` or empty when
/// absent.
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) struct ProcCpuinfo {
    /// x86 `vendor_id`, e.g. `"GenuineIntel"`.
    pub(super) vendor_id: Option<String>,
    /// `model name`.
    pub(super) model_name: Option<String>,
    /// x86 `flags` or aarch64 `Features`, split on whitespace.
    pub(super) flags: Vec<String>,
    /// `cpu MHz` (MHz), finite.
    pub(super) mhz: Option<f64>,
    /// aarch64 `CPU implementer`, e.g. `"0x41"`.
    implementer: Option<String>,
    /// aarch64 `CPU part`, e.g. `"0xd0c"`.
    part: Option<String>,
}

impl ProcCpuinfo {
    /// `/proc/cpuinfo` parsed, or all fields empty if it cannot be read.
    pub(super) fn read() -> ProcCpuinfo {
        fs::read_to_string("/proc/cpuinfo").map(|text| ProcCpuinfo::parse(&text)).unwrap_or_default()
    }

    /// Only the first entry counts (it is cpu0 in practice), except that
    /// aarch64 kernels may print `model name` or global lines elsewhere, so
    /// a field missing from the first entry is taken from the first entry
    /// that has it.
    fn parse(text: &str) -> ProcCpuinfo {
        let mut info = ProcCpuinfo::default();
        for line in text.lines() {
            if let Some((key, value)) = line.split_once(':') {
                info.take(key.trim(), value.trim());
            }
        }
        info
    }

    /// Keeps `value` for `key` unless that field already has one.
    fn take(&mut self, key: &str, value: &str) {
        let set = |slot: &mut Option<String>| {
            if slot.is_none() && !value.is_empty() {
                *slot = Some(value.to_string());
            }
        };
        match key {
            "vendor_id" => set(&mut self.vendor_id),
            "model name" => set(&mut self.model_name),
            "CPU implementer" => set(&mut self.implementer),
            "CPU part" => set(&mut self.part),
            // x86 says "flags", aarch64 "Features"; TSC flags only exist
            // in the former, so either is fine to keep.
            "flags" | "Features" if self.flags.is_empty() => {
                self.flags = value.split_whitespace().map(str::to_string).collect();
            }
            "cpu MHz" if self.mhz.is_none() => {
                self.mhz = value.parse::<f64>().ok().filter(|m| m.is_finite());
            }
            _ => {}
        }
    }

    /// Whether the flags list `name` (e.g. `constant_tsc`).
    pub(super) fn has_flag(&self, name: &str) -> bool {
        self.flags.iter().any(|f| f == name)
    }

    /// Vendor name for an aarch64 `CPU implementer` code (MIDR_EL1 bits
    /// 31:24), as listed in the Arm ARM and util-linux's lscpu.
    pub(super) fn implementer_name(&self) -> Option<String> {
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
    pub(super) fn implementer_part(&self) -> Option<String> {
        Some(format!("{} part {}", self.implementer_name()?, self.part.as_deref()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpuinfo_parsing() {
        let x86 = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\n\
                   cpu MHz\t\t: 2595.124\nflags\t\t: fpu tsc constant_tsc nonstop_tsc\n\n\
                   processor\t: 1\nvendor_id\t: Other\ncpu MHz\t\t: 1.0\n";
        let p = ProcCpuinfo::parse(x86);
        assert_eq!(p.vendor_id.as_deref(), Some("AuthenticAMD"));
        assert_eq!(p.model_name.as_deref(), Some("AMD EPYC"));
        assert_eq!(p.mhz, Some(2595.124));
        assert!(p.has_flag("nonstop_tsc"));
        assert!(!p.has_flag("tsc_known_freq"));

        let arm = "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd\n\
                   CPU implementer\t: 0x41\nCPU part\t: 0xd0c\n";
        let p = ProcCpuinfo::parse(arm);
        assert_eq!(p.implementer_name().as_deref(), Some("ARM"));
        assert_eq!(p.implementer_part().as_deref(), Some("ARM part 0xd0c"));
        assert_eq!(p.mhz, None);
        assert_eq!(ProcCpuinfo::parse(""), ProcCpuinfo::default());
    }

    #[test]
    fn unknown_implementer_is_named_by_its_code() {
        let p = ProcCpuinfo::parse("CPU implementer\t: 0x99\n");
        assert_eq!(p.implementer_name().as_deref(), Some("implementer 0x99"));
        assert_eq!(p.implementer_part(), None);
    }
}
