//! How far apart two CPUs are for a cache line: the classes a core-to-core matrix is summarised by
//! (Ben-Asher & Feitelson 1991, §3–4, asked what the bus costs; today the "bus" is the coherence path between two cores,
//! and its length depends on which caches, nodes and packages lie between them).

use serde::{Deserialize, Serialize};

use overhead_machine::{Placement, Topology};

/// The coherence distance between two different CPUs, closest first. Serialized snake_case
/// (`smt_sibling`, `same_llc`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PairClass {
    /// Two hardware threads of one core: the line never leaves the core's L1/L2.
    SmtSibling,
    /// Different cores sharing the last-level cache (one core complex / L3).
    SameLlc,
    /// Different cores of one NUMA node with different last-level caches (another CCX or CCD).
    OtherLlc,
    /// Different cores of one NUMA node whose cache sharing is unknown (sysfs listed no caches).
    OtherCore,
    /// Different NUMA nodes of one package (sub-NUMA clustering, NPS modes).
    OtherNumaNode,
    /// Different packages (sockets).
    OtherPackage,
}

impl PairClass {
    /// The class of CPUs `a ≠ b` in `topology`; `None` for `a == b` (no pair). A CPU the topology does
    /// not know makes the pair [`PairClass::OtherCore`], the class that claims least.
    pub fn of(topology: &Topology, a: usize, b: usize) -> Option<PairClass> {
        Some(match topology.placement(a, b) {
            // A topology never places two of its CPUs on different hosts: no pair of this machine.
            Placement::SameCpu | Placement::OtherHost => return None,
            Placement::SmtSibling => PairClass::SmtSibling,
            Placement::OtherNumaNode => PairClass::OtherNumaNode,
            Placement::OtherPackage => PairClass::OtherPackage,
            Placement::OtherCore => match topology.share_llc(a, b) {
                Some(true) => PairClass::SameLlc,
                Some(false) => PairClass::OtherLlc,
                None => PairClass::OtherCore,
            },
        })
    }

    /// Words for a report row.
    pub fn label(self) -> &'static str {
        match self {
            PairClass::SmtSibling => "SMT sibling",
            PairClass::SameLlc => "same L3 (core complex)",
            PairClass::OtherLlc => "other L3, same node",
            PairClass::OtherCore => "other core (L3 unknown)",
            PairClass::OtherNumaNode => "other NUMA node",
            PairClass::OtherPackage => "other package",
        }
    }
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use overhead_machine::testing::simulated;

    #[test]
    fn every_class_is_found_on_a_simulated_two_socket_machine() {
        // 2 packages × 2 nodes × 2 L3 × 2 cores × 2 threads = 32 CPUs.
        let t = simulated(2, 2, 2, 2, 2);
        assert_eq!(PairClass::of(&t, 0, 0), None);
        assert_eq!(PairClass::of(&t, 0, 1), Some(PairClass::SmtSibling));
        assert_eq!(PairClass::of(&t, 0, 2), Some(PairClass::SameLlc));
        assert_eq!(PairClass::of(&t, 0, 4), Some(PairClass::OtherLlc));
        assert_eq!(PairClass::of(&t, 0, 8), Some(PairClass::OtherNumaNode));
        assert_eq!(PairClass::of(&t, 0, 16), Some(PairClass::OtherPackage));
        assert_eq!(PairClass::of(&t, 16, 0), Some(PairClass::OtherPackage), "symmetric");
        let mut unknown = t.clone();
        unknown.cpus.iter_mut().for_each(|c| c.llc = None);
        assert_eq!(PairClass::of(&unknown, 0, 4), Some(PairClass::OtherCore));
        assert_eq!(PairClass::of(&t, 0, 1000), Some(PairClass::OtherCore), "a CPU the topology lacks");
    }

    #[test]
    fn classes_serialize_snake_case() {
        assert_eq!(serde_json::to_string(&PairClass::SameLlc).unwrap(), "\"same_llc\"");
        assert_eq!(serde_json::to_string(&PairClass::OtherNumaNode).unwrap(), "\"other_numa_node\"");
    }
}
