//! How far apart two CPUs are for a cache line: the classes a core-to-core matrix is summarised by. The class
//! itself lives with the topology (`overhead_machine::PairClass`), where the plan also takes one pair per
//! class; it is named here too, where the analysis has always found it.

pub use overhead_machine::PairClass;
