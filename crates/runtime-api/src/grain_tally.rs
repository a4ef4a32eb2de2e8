//! Where the sweep's per-CPU task counts come from (Ben-Asher & Feitelson 1991 Fig. 7, `res[exp][get_pid()]++`): Rust
//! tasks count themselves on the CPU they ran on ([`Work`]); a runtime whose tasks cannot (OpenMP's C
//! tasks) brings its own tally (`crate::openmp::OmpTally`).

use super::grain_work::Work;

/// A source of per-CPU task counts for the sweep's runs.
pub trait Tally {
    /// Called untimed after every run, before the next one starts (nothing for tallies that add up by
    /// themselves).
    fn after_run(&self) {}

    /// Tasks run on each CPU since the last call (index = CPU; the last entry: other CPUs), and zeroes
    /// the counts. Call it while no task runs.
    fn take_counts(&self) -> Vec<u64>;
}

impl Tally for Work {
    fn take_counts(&self) -> Vec<u64> {
        Work::take_counts(self)
    }
}
