//! Many more rayon jobs than workers on a barrier (Ben-Asher & Feitelson 1991 §8.2 experiment 2): a scope on the pool;
//! `rayon::yield_now` in the barrier runs pending jobs nested on the waiter's stack.

use super::fan_out::scope;
use super::Rayon;
use overhead_harness::empty_loop;
use overhead_harness::Harness;
use overhead_record::Outcome;
use overhead_runtime_api::activity_barrier::{
    ActivityBarrier, ActivityBarrierLimits, BarrierKind, Oversubscribed, Variant,
};
use overhead_runtime_api::fan_out::pool_notes;
use overhead_runtime_api::yield_barrier::YieldBarrier;

/// What rayon offers of many activities on a barrier: neither `just_sync` nor a blocking barrier.
pub(super) const LIMITS: ActivityBarrierLimits = ActivityBarrierLimits {
    just_sync: Some(
        "rayon: a job's yield runs other jobs nested on its stack, and a nested job that passed an episode cannot \
         return to let those below it reach the next one",
    ),
    blocking: Some(
        "rayon: a job blocked in a barrier holds its worker; with more jobs than workers the rest never run",
    ),
};

impl ActivityBarrier for Rayon {
    /// `just_spawn`: a scope of A empty jobs; `spawn_sync` with `barrier:yield`: a scope of A jobs passing
    /// a fresh [`YieldBarrier`] whose wait yields with `rayon::yield_now`.
    fn activity_barrier(&self, point: Oversubscribed<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let Oversubscribed { variant, barrier, activities: a, cpus } = point;
        let just_spawn = variant == Variant::JustSpawn;
        anyhow::ensure!(
            just_spawn || (variant, barrier) == (Variant::SpawnSync, BarrierKind::Yield),
            "rayon implements only just_spawn and spawn_sync with the yield barrier"
        );
        let (pool, refused) = super::pool(cpus)?;
        let control = |n: u64| pool.install(|| empty_loop(n));
        let measurement = if just_spawn {
            h.measure(|n| pool.install(|| (0..n).for_each(|_| scope(a as u64, &|| {}))), control)
        } else {
            h.measure(
                |n| {
                    pool.install(|| {
                        for _ in 0..n {
                            let b = YieldBarrier::new(a);
                            scope(a as u64, &|| {
                                let mut sense = false;
                                if !b.arrive(&mut sense) {
                                    while !b.released(sense) {
                                        std::hint::black_box(rayon::yield_now());
                                    }
                                }
                            });
                        }
                    })
                },
                control,
            )
        };
        let mut outcome = Outcome::from(measurement);
        outcome.notes.extend(pool_notes(&refused));
        Ok(outcome)
    }
}
