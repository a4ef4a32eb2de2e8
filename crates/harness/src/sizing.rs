//! How a batch grows while it is sized: doubling while a batch is short of half the target, then one
//! predicted step to it (docs/METHOD.md §1).
//!
//! Plain doubling (Ben-Asher & Feitelson 1991 §1: double until start-up transients vanish) stops anywhere
//! between 1× and 2× the target, and its kept batches ran 1.4× the target on average. A batch of half the
//! target is thousands of clock steps long, and its per-operation time predicts N for the target, as
//! JMH's and criterion's warm-up estimates do. The step is never more than 2.2× (what doubling would have
//! taken): an operation whose cost per operation grows with N (a blocking barrier whose threads fall out of
//! step and sleep) must not be predicted from a short batch into one ten times the target, which an
//! eighth of the target did (a `sync.barrier` batch of 960 episodes, 14 ms against 0.25). The confirmation
//! batch that follows must still reach the target, so a prediction from a slow (preempted, cold) batch
//! only costs another step.

/// A batch this fraction of the target or longer predicts N for the target; a shorter one doubles.
pub const PREDICT_FROM: f64 = 0.5;

/// A predicted N aims this far past the target, so that a batch a little faster than the one it was
/// predicted from still reaches the target.
pub const MARGIN: f64 = 1.1;

/// A confirmed sizing batch longer than this many targets overshot it: the operation's cost per operation
/// jumped between two sizes (a stream whose parties the scheduler put on one CPU: 52 ns a message at
/// 131072 messages, 1069 ns at 262144, every batch of a 5 ms target then 280 ms and the process 1.8 s).
/// A batch may end anywhere up to 2.2× [`MARGIN`] past the target by design; eight times is a regime change.
pub const OVERSHOOT: f64 = 8.0;

/// Significant bits a predicted N keeps (rounded up): N stays a multiple of a power of two near N/16, so a
/// batch of 128 or more split over 2, 4 or 8 parties splits evenly, at most 12.5% over the prediction.
const KEPT_BITS: u32 = 4;

/// The N of the next sizing batch after a batch of `n` operations took `ticks`, short of `target_ticks`:
/// `n` doubled while the batch was shorter than [`PREDICT_FROM`] of the target, else `n` scaled to
/// [`MARGIN`] × the target, rounded up to [`KEPT_BITS`] significant bits. Always more than `n` and at most
/// `max_ops`.
pub fn next_batch_ops(n: u64, ticks: f64, target_ticks: f64, max_ops: u64) -> u64 {
    let next = if ticks >= target_ticks * PREDICT_FROM && ticks > 0.0 {
        round_up_to_bits((n as f64 * MARGIN * target_ticks / ticks).ceil() as u64)
    } else {
        n.saturating_mul(2)
    };
    next.max(n.saturating_add(1)).min(max_ops)
}

/// The N that brings a confirmed sizing batch of `n` operations that took `ticks`, more than [`OVERSHOOT`] ×
/// `target_ticks`, back to [`MARGIN`] × the target (rounded up as [`next_batch_ops`] rounds, below `n`);
/// `None` when it did not overshoot, or `n` is 1 (an operation longer than the target is a batch of its
/// own). Sizing takes this step once and goes on from the smaller N: a regime that lasts sizes its own N
/// there, one that passes lets sizing grow back (docs/METHOD.md §1, "A batch that overshoots").
pub fn shrink_overshoot(n: u64, ticks: f64, target_ticks: f64) -> Option<u64> {
    if n <= 1 || ticks.is_nan() || ticks <= OVERSHOOT * target_ticks {
        return None;
    }
    let aimed = (n as f64 * MARGIN * target_ticks / ticks).ceil().max(1.0) as u64;
    Some(round_up_to_bits(aimed).min(n - 1))
}

/// `n` rounded up so that only its [`KEPT_BITS`] highest bits may be set.
fn round_up_to_bits(n: u64) -> u64 {
    let bits = u64::BITS - n.leading_zeros();
    if bits <= KEPT_BITS {
        return n;
    }
    let step = 1u64 << (bits - KEPT_BITS);
    n.div_ceil(step).saturating_mul(step)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_batches_double() {
        assert_eq!(next_batch_ops(1, 1.0, 1000.0, u64::MAX), 2);
        assert_eq!(next_batch_ops(64, 499.0, 1000.0, u64::MAX), 128);
    }

    /// 3 ticks an operation against 1000 ticks: a batch of 256 (768 ticks, past half) predicts
    /// 1.1 × 1000 / 3 = 367, rounded up to 4 significant bits: 384 (1152 ticks), where doubling went on to
    /// 512 (1536 ticks).
    #[test]
    fn a_long_enough_batch_predicts_the_target() {
        let next = next_batch_ops(256, 768.0, 1000.0, u64::MAX);
        assert_eq!(next, 384);
        assert!(next as f64 * 3.0 >= 1000.0 && next as f64 * 3.0 <= 1.25 * 1000.0);
    }

    /// From half the target the step is at most 2.2×, never the 8.8× a prediction from an eighth allowed.
    #[test]
    fn a_predicted_step_is_at_most_what_doubling_takes_plus_a_tenth() {
        assert_eq!(next_batch_ops(100, 500.0, 1000.0, u64::MAX), 224);
        assert!(next_batch_ops(1 << 20, 500.0, 1000.0, u64::MAX) as f64 <= 2.2 * (1 << 20) as f64 * 1.125);
    }

    /// The stream above: 262144 messages took 56 targets; the step back aims at 1.1 targets, 5150 messages,
    /// rounded up to 4 significant bits (5632); a batch within 8 targets, or of one operation, stays.
    #[test]
    fn an_overshooting_batch_steps_back_to_the_target() {
        assert_eq!(shrink_overshoot(262_144, 56.0 * 1000.0, 1000.0), Some(5632));
        assert_eq!(shrink_overshoot(262_144, 8.0 * 1000.0, 1000.0), None);
        assert_eq!(shrink_overshoot(1, 1e9, 1000.0), None);
        assert_eq!(shrink_overshoot(2, 1e9, 1000.0), Some(1), "never below one operation");
        assert_eq!(shrink_overshoot(3, 9.0 * 1000.0, 1000.0), Some(1));
        assert_eq!(shrink_overshoot(4, f64::NAN, 1000.0), None, "a batch time that is no number");
    }

    #[test]
    fn the_next_batch_always_grows_and_stops_at_the_cap() {
        // A batch just short of the target still grows.
        assert!(next_batch_ops(1000, 999.0, 1000.0, u64::MAX) > 1000);
        assert_eq!(next_batch_ops(1 << 20, 1.0, 1e12, 1 << 20), 1 << 20);
        assert_eq!(next_batch_ops(u64::MAX / 2 + 1, 1.0, 1e30, u64::MAX), u64::MAX);
    }

    #[test]
    fn rounding_keeps_four_significant_bits_and_never_rounds_down() {
        for n in 1..5000u64 {
            let r = round_up_to_bits(n);
            assert!(r >= n && (r as f64) <= n as f64 * 1.125, "{n} → {r}");
            let bits = u64::BITS - r.leading_zeros();
            assert!(bits <= KEPT_BITS || r % (1 << (bits - KEPT_BITS)) == 0, "{n} → {r}");
        }
        assert_eq!(round_up_to_bits(367), 384);
        assert_eq!(round_up_to_bits(15), 15);
        assert_eq!(round_up_to_bits(17), 18);
    }
}
