//! The last-resort topology, when neither hwloc nor sysfs answers: every allowed CPU its own core, one
//! package, one NUMA node, no caches. It claims the least, so placements come out as `other_core`.

use super::raw::{lone_core_key, RawCpu};
use super::{CpuInfo, Topology};
use crate::allowed_cpus;

/// The "nothing is known" topology promised by [`Topology::detect`]: the CPUs of [`allowed_cpus`], or CPU
/// 0 alone if even that list were empty.
pub(super) fn fallback() -> Topology {
    let raw = allowed_cpus()
        .into_iter()
        .map(|cpu| RawCpu { cpu, core_key: lone_core_key(cpu), package_key: 0, numa_node: 0, llc_key: None })
        .collect();
    Topology::from_raw(raw, Vec::new()).unwrap_or_else(cpu0_alone)
}

/// One CPU, numbered 0, on one core, package and node.
fn cpu0_alone() -> Topology {
    Topology {
        cpus: vec![CpuInfo { cpu: 0, core: 0, package: 0, numa_node: 0, smt_siblings: Vec::new(), llc: None }],
        caches: Vec::new(),
        packages: 1,
        cores: 1,
        numa_nodes: 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_fallback_is_well_formed() {
        let t = fallback();
        assert!(!t.cpus.is_empty());
        assert_eq!(t.cores, t.cpus.len());
        assert_eq!((t.packages, t.numa_nodes), (1, 1));
        assert!(t.caches.is_empty());
        assert_eq!(cpu0_alone().cpu(0).map(|c| c.core), Some(0));
    }
}
