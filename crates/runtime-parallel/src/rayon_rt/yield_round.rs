//! The yield round on rayon (Ben-Asher & Feitelson 1991 §5.1), at load 0 only: `rayon::yield_now` that finds nothing
//! pending.

use super::Rayon;
use overhead_harness::empty_loop;
use overhead_harness::Harness;
use overhead_record::Outcome;
use overhead_runtime_api::fan_out::pool_notes;
use overhead_runtime_api::yield_round::YieldRound;

/// Why rayon measures only `load:0`.
pub(super) const NO_TIME_SHARING: &str = "rayon::yield_now runs one pending job to completion on the yielding job's stack; a \
                               yielding job is not resumed until that job ends, so yielding load jobs cannot time-share";

impl YieldRound for Rayon {
    /// One job per worker (`ThreadPool::broadcast`) calling `rayon::yield_now`, which finds nothing
    /// pending: the cost of a yield that has nothing to run.
    fn yield_round(&self, cpus: &[usize], load: usize, h: &Harness) -> anyhow::Result<Outcome> {
        anyhow::ensure!(load == 0, "{NO_TIME_SHARING}");
        let (pool, refused) = super::pool(cpus)?;
        let measurement = h.measure(
            |n| {
                pool.broadcast(|_| {
                    for _ in 0..n {
                        std::hint::black_box(rayon::yield_now());
                    }
                });
            },
            |n| {
                pool.broadcast(|_| empty_loop(n));
            },
        );
        let mut outcome = Outcome::from(measurement);
        outcome.notes.extend(pool_notes(&refused));
        Ok(outcome)
    }
}
