//! The yield round as a runtime implements it: seed 001 §5.1 (Fig. 3), written once as `sched.yield`
//! against [`YieldRound`] (docs/ARCHITECTURE.md "Runtimes under test").

use crate::harness::Harness;
use crate::record::Outcome;

/// [`super::Capability::Yield`]: one measuring activity per CPU of `cpus` yields in a loop while `load`
/// extra activities per CPU do nothing but yield too; the time per iteration is one yield round, against
/// the empty loop. A runtime whose activities share one kernel thread
/// ([`super::RuntimeUnderTest::one_thread`]) is given one CPU.
pub trait YieldRound: Sync {
    /// Why this runtime cannot measure `load` extra yielding activities per CPU, when it cannot (rayon's
    /// yield runs a pending job to completion and never time-shares loading jobs); `None` when it can.
    fn refuses_load(&self, load: usize) -> Option<&'static str> {
        let _ = load;
        None
    }
    /// Measures the yield round with `load` extra activities per CPU of `cpus`.
    ///
    /// Errors: the runtime could not start its threads or its pool; `load` is one it refuses.
    fn yield_round(&self, cpus: &[usize], load: usize, h: &Harness) -> anyhow::Result<Outcome>;
}
