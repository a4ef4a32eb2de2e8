//! What a backend knows about each CPU before numbering is made dense, and the one builder that turns it
//! into a [`Topology`], so that sysfs, hwloc and the flat guess all produce the same shape.

use std::collections::{BTreeMap, BTreeSet};

use super::{CacheInfo, CpuInfo, Topology};

/// What a backend knows about one CPU before numbering is made dense. Keys only need to be equal for CPUs
/// that share the thing; their values are backend-specific (sysfs `core_id`, hwloc logical indices).
#[derive(Debug, Clone)]
pub(super) struct RawCpu {
    /// Linux CPU number.
    pub(super) cpu: usize,
    /// Equal for CPUs of one core within one package; see [`lone_core_key`] for an unknown core.
    pub(super) core_key: i64,
    /// Equal for CPUs of one package.
    pub(super) package_key: i64,
    /// Linux NUMA node number, already in its final form.
    pub(super) numa_node: usize,
    /// Equal for CPUs that share the last-level cache (sysfs: the lowest CPU of its `shared_cpu_list`);
    /// `None` when unknown.
    pub(super) llc_key: Option<i64>,
}

/// A core key no real core has, so a CPU whose core is unknown is treated as a core of its own rather than
/// merged with other unknowns.
pub(super) fn lone_core_key(cpu: usize) -> i64 {
    -1 - i64::try_from(cpu).unwrap_or(i64::MAX - 1)
}

impl Topology {
    /// Build a topology from per-CPU keys: core and package numbers made dense, siblings and counts derived,
    /// caches filtered, sorted and deduplicated as [`Topology::caches`] documents. `None` if `raw` is empty.
    pub(super) fn from_raw(mut raw: Vec<RawCpu>, caches: Vec<CacheInfo>) -> Option<Topology> {
        if raw.is_empty() {
            return None;
        }
        raw.sort_by_key(|r| r.cpu);
        raw.dedup_by_key(|r| r.cpu);

        let packages: BTreeSet<i64> = raw.iter().map(|r| r.package_key).collect();
        let package_index: BTreeMap<i64, usize> = packages.iter().enumerate().map(|(i, &k)| (k, i)).collect();
        // The core key includes the package because sysfs core_id restarts in every package.
        let cores: BTreeSet<(i64, i64)> = raw.iter().map(|r| (r.package_key, r.core_key)).collect();
        let core_index: BTreeMap<(i64, i64), usize> = cores.iter().enumerate().map(|(i, &k)| (k, i)).collect();
        let llcs: BTreeSet<i64> = raw.iter().filter_map(|r| r.llc_key).collect();
        let llc_index: BTreeMap<i64, usize> = llcs.iter().enumerate().map(|(i, &k)| (k, i)).collect();

        let mut cpus: Vec<CpuInfo> = raw
            .iter()
            .map(|r| CpuInfo {
                cpu: r.cpu,
                core: core_index[&(r.package_key, r.core_key)],
                package: package_index[&r.package_key],
                numa_node: r.numa_node,
                smt_siblings: Vec::new(),
                llc: r.llc_key.map(|k| llc_index[&k]),
            })
            .collect();
        fill_smt_siblings(&mut cpus);
        let numa_nodes = cpus.iter().map(|c| c.numa_node).collect::<BTreeSet<_>>().len();

        Some(Topology { cpus, caches: tidy_caches(caches), packages: packages.len(), cores: cores.len(), numa_nodes })
    }
}

/// Sets each CPU's `smt_siblings` to the other CPUs with its (dense) core number.
fn fill_smt_siblings(cpus: &mut [CpuInfo]) {
    let mut by_core: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for info in cpus.iter() {
        by_core.entry(info.core).or_default().push(info.cpu);
    }
    for info in cpus.iter_mut() {
        info.smt_siblings = by_core[&info.core].iter().copied().filter(|&c| c != info.cpu).collect();
    }
}

/// Drops caches with no level or size, sorts by level then Data, Instruction, Unified, and keeps the first
/// of each (kind, level): the shape of Google Benchmark's `context.caches`.
fn tidy_caches(mut caches: Vec<CacheInfo>) -> Vec<CacheInfo> {
    caches.retain(|c| c.level >= 1 && c.size > 0);
    caches.sort_by_key(|c| (c.level, kind_rank(&c.kind)));
    caches.dedup_by(|a, b| a.level == b.level && a.kind == b.kind);
    caches
}

/// Sort rank of a cache kind within one level: Data, Instruction, Unified, anything else.
fn kind_rank(kind: &str) -> u8 {
    match kind {
        "Data" => 0,
        "Instruction" => 1,
        "Unified" => 2,
        _ => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Placement;

    #[test]
    fn synthetic_two_socket_smt_machine() {
        // 2 packages x 2 cores x 2 threads, one NUMA node per package, with
        // sysfs-style core ids that restart per package: cpus 0 and 2 share
        // core 0 of package 0, 1 and 3 its core 1, and likewise for 4-7.
        let raw = (0..8)
            .map(|cpu| RawCpu {
                cpu,
                core_key: i64::try_from(cpu % 2).unwrap(),
                package_key: i64::try_from(cpu / 4).unwrap(),
                numa_node: cpu / 4,
                // One L3 per package, keyed by its lowest CPU as sysfs would.
                llc_key: Some(i64::try_from(cpu / 4 * 4).unwrap()),
            })
            .collect();
        let t = Topology::from_raw(raw, Vec::new()).unwrap();
        assert_eq!((t.packages, t.cores, t.numa_nodes), (2, 4, 2));
        assert_eq!((t.cpu(3).unwrap().llc, t.cpu(4).unwrap().llc), (Some(0), Some(1)), "L3s numbered densely");
        assert_eq!((t.share_llc(0, 3), t.share_llc(0, 4)), (Some(true), Some(false)));
        assert_eq!(t.cpu(0).unwrap().smt_siblings, vec![2]);
        assert_eq!(t.placement(0, 2), Placement::SmtSibling);
        assert_eq!(t.placement(0, 1), Placement::OtherCore);
        assert_eq!(t.placement(0, 5), Placement::OtherPackage);
        assert_ne!(t.cpu(0).unwrap().core, t.cpu(4).unwrap().core);
        let all: Vec<usize> = (0..8).collect();
        assert_eq!(t.partner(0, Placement::SmtSibling, &all), Some(2));
        assert_eq!(t.partner(0, Placement::OtherPackage, &all), Some(4));
        assert_eq!(t.partner(0, Placement::OtherNumaNode, &all), None);
        assert_eq!(t.partner(0, Placement::SmtSibling, &[1, 3]), None);
        // Unknown CPUs claim the least.
        assert_eq!(t.placement(0, 99), Placement::OtherCore);
    }

    #[test]
    fn sub_numa_clustering_is_other_numa_node() {
        let raw = (0..4)
            .map(|cpu| RawCpu {
                cpu,
                core_key: i64::try_from(cpu).unwrap(),
                package_key: 0,
                numa_node: cpu / 2,
                llc_key: None,
            })
            .collect();
        let t = Topology::from_raw(raw, Vec::new()).unwrap();
        assert_eq!(t.placement(0, 1), Placement::OtherCore);
        assert_eq!(t.placement(0, 2), Placement::OtherNumaNode);
    }

    #[test]
    fn nothing_raw_is_no_topology_and_duplicates_count_once() {
        assert_eq!(Topology::from_raw(Vec::new(), Vec::new()), None);
        let twice = vec![RawCpu { cpu: 3, core_key: 0, package_key: 0, numa_node: 0, llc_key: None }; 2];
        let t = Topology::from_raw(twice, Vec::new()).unwrap();
        assert_eq!(t.cpus.len(), 1);
        assert!(t.cpu(3).unwrap().smt_siblings.is_empty());
    }

    #[test]
    fn unknown_cores_stay_apart() {
        let raw = (0..3)
            .map(|cpu| RawCpu { cpu, core_key: lone_core_key(cpu), package_key: 0, numa_node: 0, llc_key: None })
            .collect();
        let t = Topology::from_raw(raw, Vec::new()).unwrap();
        assert_eq!(t.cores, 3);
        assert_eq!(t.placement(0, 1), Placement::OtherCore);
        assert!(lone_core_key(usize::MAX) < 0);
    }

    #[test]
    fn caches_are_filtered_sorted_and_one_per_kind_and_level() {
        let cache = |kind: &str, level, size| CacheInfo { kind: kind.into(), level, size, num_sharing: 1 };
        let raw = vec![RawCpu { cpu: 0, core_key: 0, package_key: 0, numa_node: 0, llc_key: None }];
        let caches = vec![
            cache("Unified", 2, 1 << 20),
            cache("Instruction", 1, 32 << 10),
            cache("Data", 1, 48 << 10),
            cache("Data", 1, 64 << 10),
            cache("Unified", 0, 1 << 10),
            cache("Unified", 3, 0),
        ];
        let t = Topology::from_raw(raw, caches).unwrap();
        let got: Vec<(&str, u32, u64)> = t.caches.iter().map(|c| (c.kind.as_str(), c.level, c.size)).collect();
        assert_eq!(got, [("Data", 1, 48 << 10), ("Instruction", 1, 32 << 10), ("Unified", 2, 1 << 20)]);
    }
}
