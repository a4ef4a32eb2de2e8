//! Machines for tests (`testing` feature): topologies of machines this one is not, so that a plan or a
//! summary by placement can be tested for a two-socket server on a two-CPU guest.

use crate::{CpuInfo, Topology};

/// A simulated machine: `packages` × `nodes_per_package` × `llcs_per_node` × `cores_per_llc` cores of
/// `smt` threads each, CPUs numbered core by core (siblings adjacent).
pub fn simulated(
    packages: usize,
    nodes_per_package: usize,
    llcs_per_node: usize,
    cores_per_llc: usize,
    smt: usize,
) -> Topology {
    let mut cpus = Vec::new();
    let cores = packages * nodes_per_package * llcs_per_node * cores_per_llc;
    for core in 0..cores {
        let llc = core / cores_per_llc;
        let node = llc / llcs_per_node;
        let package = node / nodes_per_package;
        for t in 0..smt {
            let cpu = core * smt + t;
            let smt_siblings = (0..smt).map(|s| core * smt + s).filter(|&c| c != cpu).collect();
            cpus.push(CpuInfo { cpu, core, package, numa_node: node, smt_siblings, llc: Some(llc) });
        }
    }
    Topology { cpus, caches: Vec::new(), packages, cores, numa_nodes: packages * nodes_per_package }
}
