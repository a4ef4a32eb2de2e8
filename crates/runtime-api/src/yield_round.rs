//! The yield round as a runtime implements it: Ben-Asher & Feitelson 1991 §5.1 (Fig. 3), written once as `sched.yield`
//! against [`YieldRound`] (docs/ARCHITECTURE.md "Runtimes under test").

use overhead_harness::Harness;
use overhead_record::Outcome;

/// [`super::Capability::Yield`]: one measuring activity per CPU of `cpus` yields in a loop while `load`
/// extra activities per CPU do nothing but yield too; the time per iteration is one yield round, against
/// the empty loop. A runtime whose activities share one kernel thread
/// ([`super::RuntimeUnderTest::one_thread`]) is given one CPU.
pub trait YieldRound: Sync {
    /// Measures the yield round with `load` extra activities per CPU of `cpus`.
    ///
    /// Errors: the runtime could not start its threads or its pool; `load` is one it refuses.
    fn yield_round(&self, cpus: &[usize], load: usize, h: &Harness) -> anyhow::Result<Outcome>;
}

/// What a runtime offers of [`super::Capability::Yield`]: the loads it cannot measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct YieldLimits {
    /// Why it cannot measure a round with extra yielding activities (rayon's yield runs a pending job to
    /// completion and never time-shares loading jobs); `None` when it can.
    pub loaded: Option<&'static str>,
}

impl YieldLimits {
    /// Every load can be measured.
    pub const NONE: YieldLimits = YieldLimits { loaded: None };

    /// Why `load` extra yielding activities per CPU cannot be measured, when they cannot.
    pub fn refuses_load(&self, load: usize) -> Option<&'static str> {
        if load > 0 {
            self.loaded
        } else {
            None
        }
    }
}
