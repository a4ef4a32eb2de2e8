//! Which logical CPUs exist and how they relate: SMT siblings, cores,
//! packages, NUMA nodes, and the cache hierarchy seen from one CPU.
//!
//! The types and their queries live here; each backend has its own file. With
//! the `hwloc` feature the facts come from hwloc (`hwloc.rs`), which knows the
//! quirks of many platforms; sysfs (`sysfs.rs`) is the fallback when the
//! feature is off or hwloc fails at run time, and the last resort is a flat
//! "every CPU its own core" guess (`flat.rs`) so that callers always get an
//! answer. All three build the result through one builder (`raw.rs`), and so does a topology
//! described in `lscpu -p` text (`lscpu.rs`), for simulating a machine the tool does not run on.

mod flat;
#[cfg(feature = "hwloc")]
mod hwloc;
mod lscpu;
mod pair_class;
mod raw;
mod sysfs;

pub use pair_class::PairClass;

pub(super) use sysfs::online_cpus;

use serde::{Deserialize, Serialize};

/// How a point's parties are placed: two logical CPUs' relation, closest first, or no pinning at all.
///
/// Serialized as the snake_case strings `"same_cpu"`, `"smt_sibling"`, `"other_core"`, `"other_numa_node"`,
/// `"other_package"`, `"other_host"`, `"free"`: the values of a point's `placement:` parameter and of its
/// record's `placement` (`overhead_record::PointSpec::placement`, which the plan and the record reader set from the parameter,
/// so that the two never disagree).
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
    /// Different hosts: the two parties are ranks an MPI launcher started on two machines named by
    /// `--hosts` (docs/ARCHITECTURE.md "Hosts and MPI"). A topology never answers it: only a plan
    /// across hosts makes such a point.
    OtherHost,
    /// No party pinned: the scheduler places them on the point's CPUs, as users run threads and as
    /// crossbeam-channel's suite does (`msg.throughput`'s free streams). A topology never answers it either.
    Free,
}

impl Placement {
    /// Every relation of two CPUs within one machine, closest first; handy for iterating a benchmark over
    /// all of them ([`Placement::OtherHost`] and [`Placement::Free`] are not among them: no two CPUs of one
    /// topology have them).
    pub const ALL: [Placement; 5] = [
        Placement::SameCpu,
        Placement::SmtSibling,
        Placement::OtherCore,
        Placement::OtherNumaNode,
        Placement::OtherPackage,
    ];

    /// Its serde name, the value of a point's `placement` parameter: `same_cpu`, `smt_sibling`, …
    pub const fn name(self) -> &'static str {
        match self {
            Placement::SameCpu => "same_cpu",
            Placement::SmtSibling => "smt_sibling",
            Placement::OtherCore => "other_core",
            Placement::OtherNumaNode => "other_numa_node",
            Placement::OtherPackage => "other_package",
            Placement::OtherHost => "other_host",
            Placement::Free => "free",
        }
    }

    /// The placement named `name` ([`Placement::name`]); `None` for any other text.
    pub fn named(name: &str) -> Option<Placement> {
        Placement::ALL.into_iter().chain([Placement::OtherHost, Placement::Free]).find(|p| p.name() == name)
    }
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
    /// The last-level cache instance (an L3 shared by one core complex on
    /// AMD, by a whole package on most Intel parts) this CPU uses, numbered
    /// densely from 0 across the machine; `None` when unknown. Records
    /// written before it existed read as unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llc: Option<usize>,
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
    /// Whether CPUs `a` and `b` use the same last-level cache; `None` when
    /// either CPU's is unknown.
    pub fn share_llc(&self, a: usize, b: usize) -> Option<bool> {
        Some(self.cpu(a)?.llc? == self.cpu(b)?.llc?)
    }
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
            let hw = std::panic::catch_unwind(hwloc::detect);
            if let Ok(Some(topology)) = hw {
                return topology;
            }
        }
        sysfs::detect().unwrap_or_else(flat::fallback)
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
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::collections::BTreeSet;

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
        if let Some(online) = sysfs::online_cpus() {
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
    fn smt_siblings_share_their_last_level_cache_and_llcs_are_dense() {
        let t = Topology::detect();
        for info in &t.cpus {
            for &s in &info.smt_siblings {
                assert_ne!(t.share_llc(info.cpu, s), Some(false), "CPUs {} and {s}", info.cpu);
            }
        }
        let llcs: BTreeSet<usize> = t.cpus.iter().filter_map(|c| c.llc).collect();
        assert!(llcs.iter().copied().eq(0..llcs.len()), "{llcs:?}");
        assert_eq!(t.share_llc(100_000, 0), None);
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
}
