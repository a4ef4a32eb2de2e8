//! Topology from the hwloc C library (through `hwlocality`), which knows the quirks of many platforms.
//! Opt-in: built only with the `hwloc` feature (Cargo.toml says what the build needs).

use hwlocality::object::attributes::ObjectAttributes;
use hwlocality::object::types::{CacheType, ObjectType};
use hwlocality::object::TopologyObject;
use hwlocality::topology::builder::{BuildFlags, TypeFilter};

use super::raw::{lone_core_key, RawCpu};
use super::{CacheInfo, Topology};

/// Topology from hwloc, or `None` if hwloc cannot load one or describes another machine.
pub(super) fn detect() -> Option<Topology> {
    let topology = load()?;
    let raw: Vec<RawCpu> = topology.objects_with_type(ObjectType::PU).map(raw_cpu).collect::<Option<_>>()?;
    let first = raw.iter().map(|r| r.cpu).min()?;
    let caches = topology.pu_with_os_index(first).map(caches_above).unwrap_or_default();
    Topology::from_raw(raw, caches)
}

/// hwloc's topology of this machine, every online CPU and every CPU cache included.
fn load() -> Option<hwlocality::Topology> {
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
    topology.is_this_system().then_some(topology)
}

/// One processing unit (logical CPU) as a [`RawCpu`]; `None` if it has no OS index.
fn raw_cpu(pu: &TopologyObject) -> Option<RawCpu> {
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
    // hwloc's own cache objects would do as well; sysfs says the same on Linux and keeps one rule.
    Some(RawCpu { cpu, core_key, package_key, numa_node, llc_key: super::sysfs::llc_key(cpu) })
}

/// The CPU caches above processing unit `pu`, nearest first.
fn caches_above(pu: &TopologyObject) -> Vec<CacheInfo> {
    pu.ancestors().filter_map(cache_info).collect()
}

/// `object` as a [`CacheInfo`] if it is a CPU cache of a known kind, size and level.
fn cache_info(object: &TopologyObject) -> Option<CacheInfo> {
    let Some(ObjectAttributes::Cache(cache)) = object.attributes() else {
        return None;
    };
    // Memory-side caches sit above NUMA nodes and are not CPU
    // caches; Google Benchmark does not list them either.
    if !object.object_type().is_cpu_cache() {
        return None;
    }
    let kind = match cache.cache_type() {
        CacheType::Data => "Data",
        CacheType::Instruction => "Instruction",
        CacheType::Unified => "Unified",
        _ => return None,
    };
    let (Some(size), Ok(level)) = (cache.size(), u32::try_from(cache.depth())) else {
        return None;
    };
    let sharing = object.cpuset().and_then(|set| set.weight()).unwrap_or(1).max(1);
    Some(CacheInfo {
        kind: kind.to_string(),
        level,
        size: size.get(),
        num_sharing: u32::try_from(sharing).unwrap_or(u32::MAX),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::sysfs;

    /// hwloc and sysfs must tell the same story; numbering may differ, so
    /// compare relations rather than ids.
    #[test]
    fn hwloc_agrees_with_sysfs() {
        let (Some(hw), Some(fs)) = (detect(), sysfs::detect()) else {
            panic!("both backends should work on a Linux test machine");
        };
        let ids = |t: &Topology| t.cpus.iter().map(|c| c.cpu).collect::<Vec<_>>();
        assert_eq!(ids(&hw), ids(&fs));
        for &a in &ids(&hw) {
            for &b in &ids(&hw) {
                assert_eq!(hw.placement(a, b), fs.placement(a, b), "cpus {a} and {b}");
            }
        }
        for (x, y) in hw.cpus.iter().zip(&fs.cpus) {
            assert_eq!(x.numa_node, y.numa_node);
            assert_eq!(x.smt_siblings, y.smt_siblings);
        }
        assert_eq!((hw.packages, hw.cores, hw.numa_nodes), (fs.packages, fs.cores, fs.numa_nodes));
        assert_eq!(hw.caches, fs.caches);
    }
}
