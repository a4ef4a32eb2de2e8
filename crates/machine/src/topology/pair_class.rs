//! How far apart two CPUs are for a cache line: the classes a core-to-core matrix is summarised by
//! (Ben-Asher & Feitelson 1991, §3–4, asked what the bus costs; today the "bus" is the coherence path between two cores,
//! and its length depends on which caches, nodes and packages lie between them), and the one CPU a plan takes
//! to stand for each class (docs/METHOD.md "The plan grows with the topology").

use serde::{Deserialize, Serialize};

use super::{Placement, Topology};

/// The coherence distance between two different CPUs, closest first. Serialized snake_case
/// (`smt_sibling`, `same_llc`, …). It refines [`Placement::OtherCore`] by the last-level cache.
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
    /// Every class, closest first.
    pub const ALL: [PairClass; 6] = [
        PairClass::SmtSibling,
        PairClass::SameLlc,
        PairClass::OtherLlc,
        PairClass::OtherCore,
        PairClass::OtherNumaNode,
        PairClass::OtherPackage,
    ];

    /// The class of CPUs `a ≠ b` in `topology`; `None` for `a == b` (no pair). A CPU the topology does
    /// not know makes the pair [`PairClass::OtherCore`], the class that claims least.
    pub fn of(topology: &Topology, a: usize, b: usize) -> Option<PairClass> {
        Some(match topology.placement(a, b) {
            // A topology never places two of its CPUs on different hosts: no pair of this machine.
            Placement::SameCpu | Placement::OtherHost | Placement::Free => return None,
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

impl Topology {
    /// The lowest-numbered CPU of `allowed` whose pair with `a` is of `class`; `None` when `a` is not a CPU
    /// of this topology or no allowed CPU is of that class (CPUs the topology does not know are passed
    /// over, as in [`Topology::partner`]).
    pub fn class_partner(&self, a: usize, class: PairClass, allowed: &[usize]) -> Option<usize> {
        self.cpu(a)?;
        allowed.iter().copied().filter(|&b| self.cpu(b).is_some() && PairClass::of(self, a, b) == Some(class)).min()
    }

    /// One CPU of `allowed` for each class this machine has around `a`, closest class first: the partners a
    /// plan pairs `a` with when one pair per class stands for all the pairs of that class. Its length is at
    /// most [`PairClass::ALL`]'s, whatever the CPU count.
    pub fn class_representatives(&self, a: usize, allowed: &[usize]) -> Vec<(PairClass, usize)> {
        PairClass::ALL.into_iter().filter_map(|class| Some((class, self.class_partner(a, class, allowed)?))).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::simulated;

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

    /// One representative per class the machine has, each of its class, however many CPUs.
    #[test]
    fn one_representative_per_class() {
        let t = simulated(2, 2, 2, 2, 2);
        let all: Vec<usize> = (0..32).collect();
        let reps = t.class_representatives(0, &all);
        let classes: Vec<PairClass> = reps.iter().map(|&(c, _)| c).collect();
        assert_eq!(
            classes,
            [
                PairClass::SmtSibling,
                PairClass::SameLlc,
                PairClass::OtherLlc,
                PairClass::OtherNumaNode,
                PairClass::OtherPackage
            ]
        );
        assert_eq!(reps.iter().map(|&(_, cpu)| cpu).collect::<Vec<_>>(), [1, 2, 4, 8, 16]);
        for &(class, cpu) in &reps {
            assert_eq!(PairClass::of(&t, 0, cpu), Some(class));
        }
        let big = simulated(2, 1, 8, 8, 2);
        let all: Vec<usize> = (0..256).collect();
        assert_eq!(big.class_representatives(0, &all).len(), 4, "no sub-NUMA nodes: four classes");
        assert_eq!(simulated(1, 1, 1, 16, 1).class_representatives(0, &(0..16).collect::<Vec<_>>()).len(), 1);
        assert!(t.class_representatives(0, &[0]).is_empty(), "no other CPU allowed");
        assert!(t.class_representatives(1000, &all).is_empty(), "a CPU the topology lacks");
        assert_eq!(t.class_partner(0, PairClass::OtherPackage, &[31, 20]), Some(20), "the lowest allowed");
    }
}
