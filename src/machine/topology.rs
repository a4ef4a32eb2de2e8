//! Which logical CPUs exist and how they relate: SMT siblings, cores,
//! packages, NUMA nodes, and the cache hierarchy seen from one CPU.
//!
//! With the `hwloc` feature the facts come from hwloc (through `hwlocality`),
//! which knows the quirks of many platforms; sysfs is the fallback when the
//! feature is off or hwloc fails at run time, and the last resort is a flat
//! "every CPU its own core" guess so that callers always get an answer.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use super::parse_cpu_list;

/// How two logical CPUs relate, from closest to farthest.
///
/// Serialized as the snake_case strings `"same_cpu"`, `"smt_sibling"`,
/// `"other_core"`, `"other_numa_node"`, `"other_package"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    /// The same logical CPU (both threads time-share one hardware thread).
    SameCpu,
    /// Two hardware threads of one physical core (SMT / Hyper-Threading).
    SmtSibling,
    /// Different cores of the same package and the same NUMA node.
    OtherCore,
    /// The same package but different NUMA nodes (e.g. sub-NUMA clustering).
    OtherNumaNode,
    /// Different packages (sockets).
    OtherPackage,
}

impl Placement {
    /// Every placement, closest first; handy for iterating a benchmark over
    /// all of them.
    pub const ALL: [Placement; 5] = [
        Placement::SameCpu,
        Placement::SmtSibling,
        Placement::OtherCore,
        Placement::OtherNumaNode,
        Placement::OtherPackage,
    ];
}

/// One online logical CPU and where it sits.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CpuInfo {
    /// Linux CPU number, as in `/sys/devices/system/cpu/cpuN` and `taskset`.
    pub cpu: usize,
    /// Physical core, numbered densely from 0 across the whole machine (so two
    /// CPUs share a core exactly when these are equal, whatever their package).
    pub core: usize,
    /// Package (socket), numbered densely from 0.
    pub package: usize,
    /// NUMA node, by its Linux number (as in `/sys/devices/system/node/nodeN`
    /// and `numactl`); 0 on machines without NUMA.
    pub numa_node: usize,
    /// Other online logical CPUs on the same core, sorted, excluding `cpu`
    /// itself; empty without SMT.
    pub smt_siblings: Vec<usize>,
}

/// One cache, in the shape of Google Benchmark's `context.caches` entries.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CacheInfo {
    /// `"Data"`, `"Instruction"` or `"Unified"` (serialized as `"type"`).
    #[serde(rename = "type")]
    pub kind: String,
    /// Cache level, 1 for L1; always at least 1.
    pub level: u32,
    /// Capacity of one instance, in bytes; always more than 0.
    pub size: u64,
    /// Logical CPUs sharing one instance of this cache.
    pub num_sharing: u32,
}

/// The machine's CPU topology: online CPUs, their grouping, and caches.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Topology {
    /// The online logical CPUs, sorted by [`CpuInfo::cpu`], each exactly once.
    /// CPUs outside this process's affinity mask are included.
    pub cpus: Vec<CpuInfo>,
    /// One entry per distinct (kind, level) seen from the first online CPU,
    /// sorted by level, then Data, Instruction, Unified; empty if unknown.
    pub caches: Vec<CacheInfo>,
    /// Distinct packages among `cpus`.
    pub packages: usize,
    /// Distinct physical cores among `cpus`.
    pub cores: usize,
    /// Distinct NUMA nodes that hold at least one online CPU (memory-only
    /// nodes are not counted).
    pub numa_nodes: usize,
}

impl Topology {
    /// Detect the topology of the machine we run on.
    ///
    /// Tries hwloc (feature `hwloc`), then Linux sysfs. If both fail, returns a
    /// flat guess: the CPUs from [`super::allowed_cpus`], each its own core, one
    /// package, one NUMA node, no caches. Never panics; costs a few
    /// milliseconds (hwloc reads much of sysfs), so detect once and keep it.
    pub fn detect() -> Topology {
        #[cfg(feature = "hwloc")]
        {
            // hwlocality is alpha and asserts on things it considers
            // impossible; an odd machine must cost us the hwloc answer, not
            // the whole run.
            let hw = std::panic::catch_unwind(hwloc_backend::detect);
            if let Ok(Some(topology)) = hw {
                return topology;
            }
        }
        sysfs_detect().unwrap_or_else(flat_fallback)
    }

    /// The entry for logical CPU `cpu`, or `None` if it is not online.
    pub fn cpu(&self, cpu: usize) -> Option<&CpuInfo> {
        self.cpus.binary_search_by_key(&cpu, |info| info.cpu).ok().map(|i| &self.cpus[i])
    }

    /// How logical CPUs `a` and `b` relate. Symmetric in `a` and `b`.
    ///
    /// Package is checked before NUMA node, so two CPUs on different packages
    /// are [`Placement::OtherPackage`] even if a firmware quirk put them in one
    /// node. If either CPU is not in this topology (and `a != b`) nothing is
    /// known, and the answer is [`Placement::OtherCore`], the most common
    /// relation and the one that claims the least.
    pub fn placement(&self, a: usize, b: usize) -> Placement {
        if a == b {
            return Placement::SameCpu;
        }
        let (Some(x), Some(y)) = (self.cpu(a), self.cpu(b)) else {
            return Placement::OtherCore;
        };
        if x.package != y.package {
            Placement::OtherPackage
        } else if x.numa_node != y.numa_node {
            Placement::OtherNumaNode
        } else if x.core == y.core {
            Placement::SmtSibling
        } else {
            Placement::OtherCore
        }
    }

    /// A CPU `b` from `allowed` with `placement(a, b) == placement`, for
    /// pinning the second thread of a two-thread measurement next to one on
    /// `a`.
    ///
    /// Picks the lowest-numbered such CPU so repeated runs use the same pair.
    /// For [`Placement::SameCpu`] the answer is `a` itself when `a` is in
    /// `allowed`. Returns `None` when `a` is not an online CPU of this
    /// topology, or when no CPU in `allowed` has that relation to `a` (e.g.
    /// no SMT, a single package, or an affinity mask that excludes them).
    pub fn partner(&self, a: usize, placement: Placement, allowed: &[usize]) -> Option<usize> {
        self.cpu(a)?;
        allowed.iter().copied().filter(|&b| self.cpu(b).is_some() && self.placement(a, b) == placement).min()
    }

    /// Build a topology from per-CPU keys, making core and package numbers
    /// dense and deriving siblings and counts, so every backend produces the
    /// same shape.
    fn from_raw(mut raw: Vec<RawCpu>, mut caches: Vec<CacheInfo>) -> Option<Topology> {
        if raw.is_empty() {
            return None;
        }
        raw.sort_by_key(|r| r.cpu);
        raw.dedup_by_key(|r| r.cpu);

        let packages: BTreeSet<i64> = raw.iter().map(|r| r.package_key).collect();
        let package_index: BTreeMap<i64, usize> = packages.iter().enumerate().map(|(i, &k)| (k, i)).collect();
        // The core key includes the package because sysfs core_id restarts
        // in every package.
        let cores: BTreeSet<(i64, i64)> = raw.iter().map(|r| (r.package_key, r.core_key)).collect();
        let core_index: BTreeMap<(i64, i64), usize> = cores.iter().enumerate().map(|(i, &k)| (k, i)).collect();

        let mut cpus: Vec<CpuInfo> = raw
            .iter()
            .map(|r| CpuInfo {
                cpu: r.cpu,
                core: core_index[&(r.package_key, r.core_key)],
                package: package_index[&r.package_key],
                numa_node: r.numa_node,
                smt_siblings: Vec::new(),
            })
            .collect();
        let mut by_core: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for info in &cpus {
            by_core.entry(info.core).or_default().push(info.cpu);
        }
        for info in &mut cpus {
            info.smt_siblings = by_core[&info.core].iter().copied().filter(|&c| c != info.cpu).collect();
        }
        let numa_nodes = cpus.iter().map(|c| c.numa_node).collect::<BTreeSet<_>>().len();

        caches.retain(|c| c.level >= 1 && c.size > 0);
        caches.sort_by_key(|c| (c.level, kind_rank(&c.kind)));
        caches.dedup_by(|a, b| a.level == b.level && a.kind == b.kind);

        Some(Topology { cpus, caches, packages: packages.len(), cores: cores.len(), numa_nodes })
    }
}

/// What a backend knows about one CPU before numbering is made dense. Keys
/// only need to be equal for CPUs that share the thing; their values are
/// backend-specific.
#[derive(Debug, Clone)]
struct RawCpu {
    cpu: usize,
    core_key: i64,
    package_key: i64,
    numa_node: usize,
}

/// A core key no real core has, so a CPU whose core is unknown is treated as
/// a core of its own rather than merged with other unknowns.
fn lone_core_key(cpu: usize) -> i64 {
    -1 - i64::try_from(cpu).unwrap_or(i64::MAX - 1)
}

fn kind_rank(kind: &str) -> u8 {
    match kind {
        "Data" => 0,
        "Instruction" => 1,
        "Unified" => 2,
        _ => 3,
    }
}

fn read_trimmed(path: impl AsRef<Path>) -> Option<String> {
    fs::read_to_string(path).ok().map(|s| s.trim().to_string())
}

/// Online CPUs from `/sys/devices/system/cpu/online`, or `None` if unreadable.
pub(super) fn online_cpus() -> Option<Vec<usize>> {
    parse_cpu_list(&read_trimmed("/sys/devices/system/cpu/online")?).ok()
}

/// Parse a sysfs cache size such as `"32K"`, `"1024K"`, `"2M"` or `"512"`
/// into bytes.
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

const SYS_CPU: &str = "/sys/devices/system/cpu";

/// Topology from Linux sysfs, or `None` if the online list is unreadable.
fn sysfs_detect() -> Option<Topology> {
    let online = online_cpus()?;

    // NUMA membership is listed per node; CONFIG_NUMA=n kernels have no node
    // directory at all, which means a single node 0.
    let mut node_of: BTreeMap<usize, usize> = BTreeMap::new();
    if let Ok(entries) = fs::read_dir("/sys/devices/system/node") {
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(node) = name.to_str().and_then(|n| n.strip_prefix("node")).and_then(|n| n.parse::<usize>().ok())
            else {
                continue;
            };
            let list = read_trimmed(entry.path().join("cpulist")).unwrap_or_default();
            for cpu in parse_cpu_list(&list).unwrap_or_default() {
                node_of.insert(cpu, node);
            }
        }
    }

    let raw = online
        .iter()
        .map(|&cpu| {
            let dir = format!("{SYS_CPU}/cpu{cpu}/topology");
            let read_id = |file: &str| read_trimmed(format!("{dir}/{file}"))?.parse::<i64>().ok();
            // -1 is what the kernel writes when firmware did not say.
            let core_key = read_id("core_id").filter(|&id| id >= 0).unwrap_or_else(|| lone_core_key(cpu));
            let package_key = read_id("physical_package_id").unwrap_or(0);
            RawCpu { cpu, core_key, package_key, numa_node: node_of.get(&cpu).copied().unwrap_or(0) }
        })
        .collect();

    let first = *online.first()?;
    let mut caches = Vec::new();
    for index in 0.. {
        let dir = format!("{SYS_CPU}/cpu{first}/cache/index{index}");
        if !Path::new(&dir).exists() {
            break;
        }
        let read = |file: &str| read_trimmed(format!("{dir}/{file}"));
        let (Some(kind), Some(level), Some(size)) = (
            read("type"),
            read("level").and_then(|l| l.parse::<u32>().ok()),
            read("size").and_then(|s| parse_cache_size(&s)),
        ) else {
            continue;
        };
        let sharing = read("shared_cpu_list").and_then(|l| parse_cpu_list(&l).ok()).map_or(1, |l| l.len().max(1));
        caches.push(CacheInfo { kind, level, size, num_sharing: u32::try_from(sharing).unwrap_or(u32::MAX) });
    }
    Topology::from_raw(raw, caches)
}

/// The "nothing is known" topology promised by [`Topology::detect`].
fn flat_fallback() -> Topology {
    let raw = super::allowed_cpus()
        .into_iter()
        .map(|cpu| RawCpu { cpu, core_key: lone_core_key(cpu), package_key: 0, numa_node: 0 })
        .collect();
    Topology::from_raw(raw, Vec::new()).unwrap_or(Topology {
        cpus: vec![CpuInfo { cpu: 0, core: 0, package: 0, numa_node: 0, smt_siblings: Vec::new() }],
        caches: Vec::new(),
        packages: 1,
        cores: 1,
        numa_nodes: 1,
    })
}

#[cfg(feature = "hwloc")]
mod hwloc_backend {
    use super::{lone_core_key, CacheInfo, RawCpu, Topology};
    use hwlocality::object::attributes::ObjectAttributes;
    use hwlocality::object::types::{CacheType, ObjectType};
    use hwlocality::topology::builder::{BuildFlags, TypeFilter};

    /// Topology from hwloc, or `None` if hwloc cannot load one.
    pub(super) fn detect() -> Option<Topology> {
        let topology = hwlocality::Topology::builder()
            // By default hwloc hides CPUs outside our cgroup cpuset; we want
            // every online CPU and report the allowed ones separately.
            .with_flags(BuildFlags::INCLUDE_DISALLOWED)
            .ok()?
            .with_cpu_cache_type_filter(TypeFilter::KeepAll)
            .ok()?
            // Instruction caches are dropped by default, but Google
            // Benchmark's cache list has them.
            .with_cpu_icache_type_filter(TypeFilter::KeepAll)
            .ok()?
            .build()
            .ok()?;
        // HWLOC_XMLFILE / HWLOC_FSROOT in the environment can make hwloc
        // describe some other machine; its CPU numbers would then be useless
        // for pinning here.
        if !topology.is_this_system() {
            return None;
        }

        let mut raw = Vec::new();
        for pu in topology.objects_with_type(ObjectType::PU) {
            let cpu = pu.os_index()?;
            let core_key = pu
                .first_ancestor_with_type(ObjectType::Core)
                .and_then(|core| i64::try_from(core.logical_index()).ok())
                .unwrap_or_else(|| lone_core_key(cpu));
            let package_key = pu
                .first_ancestor_with_type(ObjectType::Package)
                .and_then(|package| i64::try_from(package.logical_index()).ok())
                .unwrap_or(0);
            // Nodeset bits are OS node numbers, the ones numactl uses.
            let numa_node = pu.nodeset().and_then(|set| set.first_set()).map_or(0, usize::from);
            raw.push(RawCpu { cpu, core_key, package_key, numa_node });
        }

        let first = raw.iter().map(|r| r.cpu).min()?;
        let mut caches = Vec::new();
        if let Some(pu) = topology.pu_with_os_index(first) {
            for ancestor in pu.ancestors() {
                let Some(ObjectAttributes::Cache(cache)) = ancestor.attributes() else {
                    continue;
                };
                // Memory-side caches sit above NUMA nodes and are not CPU
                // caches; Google Benchmark does not list them either.
                if !ancestor.object_type().is_cpu_cache() {
                    continue;
                }
                let kind = match cache.cache_type() {
                    CacheType::Data => "Data",
                    CacheType::Instruction => "Instruction",
                    CacheType::Unified => "Unified",
                    _ => continue,
                };
                let (Some(size), Ok(level)) = (cache.size(), u32::try_from(cache.depth())) else {
                    continue;
                };
                let sharing = ancestor.cpuset().and_then(|set| set.weight()).unwrap_or(1).max(1);
                caches.push(CacheInfo {
                    kind: kind.to_string(),
                    level,
                    size: size.get(),
                    num_sharing: u32::try_from(sharing).unwrap_or(u32::MAX),
                });
            }
        }
        Topology::from_raw(raw, caches)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(t: &Topology) -> impl Iterator<Item = (usize, usize)> + '_ {
        t.cpus.iter().flat_map(move |a| t.cpus.iter().map(move |b| (a.cpu, b.cpu)))
    }

    #[test]
    fn placement_serializes_as_snake_case() {
        let names: Vec<String> = Placement::ALL.iter().map(|p| serde_json::to_string(p).unwrap()).collect();
        assert_eq!(
            names,
            ["\"same_cpu\"", "\"smt_sibling\"", "\"other_core\"", "\"other_numa_node\"", "\"other_package\""]
        );
        for p in Placement::ALL {
            let back: Placement = serde_json::from_str(&serde_json::to_string(&p).unwrap()).unwrap();
            assert_eq!(back, p);
        }
    }

    #[test]
    fn placement_with_itself_is_same_cpu() {
        let t = Topology::detect();
        for info in &t.cpus {
            assert_eq!(t.placement(info.cpu, info.cpu), Placement::SameCpu);
        }
        assert_eq!(t.placement(100_000, 100_000), Placement::SameCpu);
    }

    #[test]
    fn placement_is_symmetric() {
        let t = Topology::detect();
        for (a, b) in pairs(&t) {
            assert_eq!(t.placement(a, b), t.placement(b, a), "cpus {a} and {b}");
        }
    }

    #[test]
    fn every_cpu_appears_once_sorted_and_online() {
        let t = Topology::detect();
        assert!(!t.cpus.is_empty());
        assert!(t.cpus.windows(2).all(|w| w[0].cpu < w[1].cpu));
        if let Some(online) = online_cpus() {
            let ours: Vec<usize> = t.cpus.iter().map(|c| c.cpu).collect();
            assert_eq!(ours, online);
        }
        for info in &t.cpus {
            assert_eq!(t.cpu(info.cpu), Some(info));
        }
    }

    #[test]
    fn counts_match_cpus() {
        let t = Topology::detect();
        let distinct = |f: fn(&CpuInfo) -> usize| t.cpus.iter().map(f).collect::<BTreeSet<_>>().len();
        assert_eq!(t.cores, distinct(|c| c.core));
        assert_eq!(t.packages, distinct(|c| c.package));
        assert_eq!(t.numa_nodes, distinct(|c| c.numa_node));
        assert!(t.packages >= 1 && t.cores >= t.packages && t.cpus.len() >= t.cores);
    }

    #[test]
    fn smt_siblings_are_symmetric_and_share_a_core() {
        let t = Topology::detect();
        for info in &t.cpus {
            assert!(!info.smt_siblings.contains(&info.cpu));
            for &s in &info.smt_siblings {
                let sib = t.cpu(s).expect("sibling is online");
                assert!(sib.smt_siblings.contains(&info.cpu));
                assert_eq!(sib.core, info.core);
                assert_eq!(t.placement(info.cpu, s), Placement::SmtSibling);
            }
        }
    }

    #[test]
    fn caches_are_sane() {
        let t = Topology::detect();
        for c in &t.caches {
            assert!(c.level >= 1, "{c:?}");
            assert!(c.size > 0, "{c:?}");
            assert!(c.num_sharing >= 1, "{c:?}");
            assert!(["Data", "Instruction", "Unified"].contains(&c.kind.as_str()));
        }
        let keys: BTreeSet<(u32, &str)> = t.caches.iter().map(|c| (c.level, c.kind.as_str())).collect();
        assert_eq!(keys.len(), t.caches.len(), "one entry per (kind, level)");
    }

    #[test]
    fn partner_has_the_asked_placement() {
        let t = Topology::detect();
        let all: Vec<usize> = t.cpus.iter().map(|c| c.cpu).collect();
        for &a in &all {
            for p in Placement::ALL {
                let expected = all.iter().copied().find(|&b| t.placement(a, b) == p);
                assert_eq!(t.partner(a, p, &all), expected, "cpu {a} {p:?}");
            }
            assert_eq!(t.partner(a, Placement::SameCpu, &all), Some(a));
            assert_eq!(t.partner(a, Placement::OtherCore, &[]), None);
        }
        assert_eq!(t.partner(100_000, Placement::SameCpu, &all), None);
    }

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
            })
            .collect();
        let t = Topology::from_raw(raw, Vec::new()).unwrap();
        assert_eq!((t.packages, t.cores, t.numa_nodes), (2, 4, 2));
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
            .map(|cpu| RawCpu { cpu, core_key: i64::try_from(cpu).unwrap(), package_key: 0, numa_node: cpu / 2 })
            .collect();
        let t = Topology::from_raw(raw, Vec::new()).unwrap();
        assert_eq!(t.placement(0, 1), Placement::OtherCore);
        assert_eq!(t.placement(0, 2), Placement::OtherNumaNode);
    }

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
    fn flat_fallback_is_well_formed() {
        let t = flat_fallback();
        assert!(!t.cpus.is_empty());
        assert_eq!(t.cores, t.cpus.len());
        assert_eq!((t.packages, t.numa_nodes), (1, 1));
        assert!(t.caches.is_empty());
    }

    /// hwloc and sysfs must tell the same story; numbering may differ, so
    /// compare relations rather than ids.
    #[cfg(feature = "hwloc")]
    #[test]
    fn hwloc_agrees_with_sysfs() {
        let (Some(hw), Some(fs)) = (hwloc_backend::detect(), sysfs_detect()) else {
            panic!("both backends should work on a Linux test machine");
        };
        let ids = |t: &Topology| t.cpus.iter().map(|c| c.cpu).collect::<Vec<_>>();
        assert_eq!(ids(&hw), ids(&fs));
        for (a, b) in pairs(&hw) {
            assert_eq!(hw.placement(a, b), fs.placement(a, b), "cpus {a} and {b}");
        }
        for (x, y) in hw.cpus.iter().zip(&fs.cpus) {
            assert_eq!(x.numa_node, y.numa_node);
            assert_eq!(x.smt_siblings, y.smt_siblings);
        }
        assert_eq!((hw.packages, hw.cores, hw.numa_nodes), (fs.packages, fs.cores, fs.numa_nodes));
        assert_eq!(hw.caches, fs.caches);
    }
}
