//! Topology from Linux sysfs: CPU ids under `/sys/devices/system/cpu/cpuN/topology`, NUMA membership
//! under `/sys/devices/system/node/nodeN/cpulist`, caches of the first online CPU under
//! `/sys/devices/system/cpu/cpuN/cache/indexM`. The default backend, and the fallback when hwloc is off or
//! fails (docs/ARCHITECTURE.md, "Layout").

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use super::raw::{lone_core_key, RawCpu};
use super::{CacheInfo, Topology};
use crate::{parse_cpu_list, read_trimmed};

/// Where the kernel lists CPUs.
const SYS_CPU: &str = "/sys/devices/system/cpu";

/// Where the kernel lists NUMA nodes; absent on `CONFIG_NUMA=n` kernels.
const SYS_NODE: &str = "/sys/devices/system/node";

/// Online CPUs from `/sys/devices/system/cpu/online`, sorted; `None` if unreadable or malformed.
pub(crate) fn online_cpus() -> Option<Vec<usize>> {
    parse_cpu_list(&read_trimmed(format!("{SYS_CPU}/online"))?).ok()
}

/// Topology from Linux sysfs, or `None` if the online list is unreadable or empty.
pub(super) fn detect() -> Option<Topology> {
    let online = online_cpus()?;
    let node_of = numa_node_of_cpu();
    let raw = online.iter().map(|&cpu| raw_cpu(cpu, &node_of)).collect();
    let caches = caches_of(*online.first()?);
    Topology::from_raw(raw, caches)
}

/// NUMA node of each CPU that some node lists. Empty when the node directory is missing, which is how a
/// kernel without NUMA says "a single node 0".
fn numa_node_of_cpu() -> BTreeMap<usize, usize> {
    let mut node_of = BTreeMap::new();
    let Ok(entries) = fs::read_dir(SYS_NODE) else {
        return node_of;
    };
    for entry in entries.flatten() {
        let Some(node) = node_number(&entry.file_name()) else {
            continue;
        };
        let list = read_trimmed(entry.path().join("cpulist")).unwrap_or_default();
        for cpu in parse_cpu_list(&list).unwrap_or_default() {
            node_of.insert(cpu, node);
        }
    }
    node_of
}

/// `N` of a `nodeN` directory name; `None` for the other entries there (`online`, `possible`, ...).
fn node_number(name: &OsStr) -> Option<usize> {
    name.to_str()?.strip_prefix("node")?.parse().ok()
}

/// What sysfs says about one CPU's core and package, with its node from `node_of` (0 if unlisted).
fn raw_cpu(cpu: usize, node_of: &BTreeMap<usize, usize>) -> RawCpu {
    let dir = format!("{SYS_CPU}/cpu{cpu}/topology");
    let read_id = |file: &str| read_trimmed(format!("{dir}/{file}"))?.parse::<i64>().ok();
    // -1 is what the kernel writes when firmware did not say.
    let core_key = read_id("core_id").filter(|&id| id >= 0).unwrap_or_else(|| lone_core_key(cpu));
    let package_key = read_id("physical_package_id").unwrap_or(0);
    RawCpu { cpu, core_key, package_key, numa_node: node_of.get(&cpu).copied().unwrap_or(0), llc_key: llc_key(cpu) }
}

/// The last-level cache `cpu` uses, as the lowest CPU sharing it: the `shared_cpu_list` of its highest-level
/// data or unified cache. `None` when sysfs lists no cache for it.
pub(super) fn llc_key(cpu: usize) -> Option<i64> {
    let last = (0..)
        .map(|index| PathBuf::from(format!("{SYS_CPU}/cpu{cpu}/cache/index{index}")))
        .take_while(|dir| dir.exists())
        .filter_map(|dir| {
            let kind = read_trimmed(dir.join("type"))?;
            let level: u32 = read_trimmed(dir.join("level"))?.parse().ok()?;
            (kind != "Instruction").then_some((level, dir))
        })
        .max_by_key(|(level, _)| *level)?;
    let shared = parse_cpu_list(&read_trimmed(last.1.join("shared_cpu_list"))?).ok()?;
    shared.first().and_then(|&c| i64::try_from(c).ok())
}

/// The caches `cpu` sees, in the kernel's `indexM` order; an index whose type, level or size cannot be
/// read is skipped, and the list ends at the first missing index.
fn caches_of(cpu: usize) -> Vec<CacheInfo> {
    (0..)
        .map(|index| PathBuf::from(format!("{SYS_CPU}/cpu{cpu}/cache/index{index}")))
        .take_while(|dir| dir.exists())
        .filter_map(|dir| cache_at(&dir))
        .collect()
}

/// One `cache/indexM` directory as a [`CacheInfo`]; `None` if its type, level or size is unreadable.
fn cache_at(dir: &Path) -> Option<CacheInfo> {
    let read = |file: &str| read_trimmed(dir.join(file));
    let kind = read("type")?;
    let level = read("level")?.parse::<u32>().ok()?;
    let size = parse_cache_size(&read("size")?)?;
    // An unreadable sharing list means "this CPU alone", the claim that assumes the least.
    let sharing = read("shared_cpu_list").and_then(|l| parse_cpu_list(&l).ok()).map_or(1, |l| l.len().max(1));
    Some(CacheInfo { kind, level, size, num_sharing: u32::try_from(sharing).unwrap_or(u32::MAX) })
}

/// Parse a sysfs cache size such as `"32K"`, `"1024K"`, `"2M"` or `"512"` into bytes; `None` for an
/// unknown unit or an overflow.
fn parse_cache_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let (digits, unit) = match text.char_indices().find(|(_, ch)| !ch.is_ascii_digit()) {
        Some((i, _)) => text.split_at(i),
        None => (text, ""),
    };
    let n: u64 = digits.parse().ok()?;
    let scale: u64 = match unit.trim() {
        "" | "B" => 1,
        "K" | "KB" | "KiB" => 1 << 10,
        "M" | "MB" | "MiB" => 1 << 20,
        "G" | "GB" | "GiB" => 1 << 30,
        _ => return None,
    };
    n.checked_mul(scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_sizes_parse() {
        assert_eq!(parse_cache_size("32K"), Some(32 * 1024));
        assert_eq!(parse_cache_size("32768K\n"), Some(32 << 20));
        assert_eq!(parse_cache_size("2M"), Some(2 << 20));
        assert_eq!(parse_cache_size("512"), Some(512));
        assert_eq!(parse_cache_size("K"), None);
        assert_eq!(parse_cache_size("12Q"), None);
    }

    #[test]
    fn node_directory_names() {
        assert_eq!(node_number(OsStr::new("node0")), Some(0));
        assert_eq!(node_number(OsStr::new("node12")), Some(12));
        assert_eq!(node_number(OsStr::new("online")), None);
        assert_eq!(node_number(OsStr::new("node")), None);
    }

    /// Every Linux test machine has sysfs; its answer covers exactly the online CPUs.
    #[test]
    fn sysfs_describes_the_online_cpus() {
        let t = detect().expect("sysfs topology on Linux");
        let ids: Vec<usize> = t.cpus.iter().map(|c| c.cpu).collect();
        assert_eq!(Some(ids), online_cpus());
    }
}
