//! The arithmetic of a clock-offset exchange, apart from the hardware: from counter readings taken in
//! turn by two CPUs, the offset of one counter against the other with its uncertainty, and the backward
//! steps (warps).
//!
//! The estimator is Cristian's (1989) and NTP's: the initiator reads `start`, the responder reads
//! `reply` after seeing it, the initiator reads `end` after seeing the reply. If both one-way trips take
//! equally long, `reply` was taken at the initiator's `(start + end) / 2`, so the responder's counter is
//! ahead by `reply − (start + end) / 2`; whatever the trips take, the true offset lies within ± half the
//! round trip `end − start` of that. The exchange with the smallest round trip gives the tightest bound,
//! as in the kernel's TSC synchronisation check (`arch/x86/kernel/tsc_sync.c`) and core-to-core
//! latency tools.

/// One exchange, counter readings in ticks: `start` and `end` on the initiating CPU, `reply` on the
/// responding CPU, each taken after seeing the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exchange {
    pub start: u64,
    pub reply: u64,
    pub end: u64,
}

/// The responder's counter minus the initiator's counter at the same instant, from the exchange with
/// the smallest round trip, all in ticks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OffsetEstimate {
    /// Responder minus initiator (ticks); positive when the responder's counter is ahead.
    pub offset_ticks: f64,
    /// The true offset lies within ± this of `offset_ticks`: half the smallest round trip (ticks).
    pub uncertainty_ticks: f64,
    /// The smallest round trip `end − start` seen (ticks).
    pub min_rtt_ticks: u64,
    /// Exchanges the estimate was chosen from (those whose round trip is not negative).
    pub exchanges: usize,
}

/// The offset estimate from the exchange with the smallest round trip; `None` when no exchange has
/// `end ≥ start` (a counter that runs backwards on one CPU gives no bound).
pub fn estimate_offset(exchanges: impl IntoIterator<Item = Exchange>) -> Option<OffsetEstimate> {
    let mut best: Option<(u64, Exchange)> = None;
    let mut count = 0;
    for x in exchanges {
        let Some(rtt) = x.end.checked_sub(x.start) else { continue };
        count += 1;
        if best.is_none_or(|(b, _)| rtt < b) {
            best = Some((rtt, x));
        }
    }
    let (rtt, x) = best?;
    // In i128 so that counters beyond 2^53 (f64's exact integers) lose nothing before the halving.
    let twice_offset = 2 * x.reply as i128 - x.start as i128 - x.end as i128;
    Some(OffsetEstimate {
        offset_ticks: twice_offset as f64 / 2.0,
        uncertainty_ticks: rtt as f64 / 2.0,
        min_rtt_ticks: rtt,
        exchanges: count,
    })
}

/// The offset of B's counter against A's that both directions of a ping-pong allow: `ab` from the
/// exchanges A started (B minus A), `ba` from those B started (A minus B). Each bounds the true offset
/// whatever the one-way trips took (`ab`: `offset ± uncertainty`; `ba`: `−offset ± uncertainty`), so
/// the truth lies in the intersection of the two intervals; its centre is the estimate and its half
/// width the uncertainty (ticks), never wider than either bound alone. The midpoint of one direction
/// alone is biased by half the difference of its two trips, which the intersection cancels when the
/// fast exchanges of the two directions are asymmetric in opposite ways.
///
/// `None` when the intervals do not meet: no single constant offset fits both directions (the counters
/// moved against each other during the exchange, or one stepped backwards).
pub fn combine_directions(ab: &OffsetEstimate, ba: &OffsetEstimate) -> Option<(f64, f64)> {
    let low = (ab.offset_ticks - ab.uncertainty_ticks).max(-ba.offset_ticks - ba.uncertainty_ticks);
    let high = (ab.offset_ticks + ab.uncertainty_ticks).min(-ba.offset_ticks + ba.uncertainty_ticks);
    (low <= high).then(|| ((low + high) / 2.0, (high - low) / 2.0))
}

/// The exchanges in a sequence of readings taken in turn by two CPUs, A at even and B at odd indices:
/// with `initiator` 0 those A starts (`r[k], r[k+1], r[k+2]` for even `k`: B's offset against A), with
/// `initiator` 1 those B starts (odd `k`: A's offset against B).
pub fn exchanges(readings: &[u64], initiator: usize) -> impl Iterator<Item = Exchange> + '_ {
    readings.windows(3).enumerate().filter(move |(k, _)| k % 2 == initiator % 2).map(|(_, w)| Exchange {
        start: w[0],
        reply: w[1],
        end: w[2],
    })
}

/// Backward steps in readings taken in turn by A (even indices) and B (odd): `(a_to_b, b_to_a)`, the
/// number of times a reading on B is below the reading on A just before it, and the reverse. Each
/// reading was taken after the previous one was seen, so on synchronised counters neither can happen;
/// a count here is the kernel's "TSC warp".
pub fn count_warps(readings: &[u64]) -> (u64, u64) {
    let mut a_to_b = 0;
    let mut b_to_a = 0;
    for (k, w) in readings.windows(2).enumerate() {
        if w[1] < w[0] {
            if k % 2 == 0 {
                a_to_b += 1;
            } else {
                b_to_a += 1;
            }
        }
    }
    (a_to_b, b_to_a)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Readings of a ping-pong where B's counter is `offset` ticks ahead of A's and each one-way trip
    /// takes `trips[k]` ticks of true time (A's counter is true time).
    fn simulate(offset: i64, trips: &[u64]) -> Vec<u64> {
        let mut now = 1_000_000u64;
        let mut readings = vec![now];
        for (k, trip) in trips.iter().enumerate() {
            now += trip;
            let on_b = k % 2 == 0;
            readings.push(if on_b { (now as i64 + offset) as u64 } else { now });
        }
        readings
    }

    /// `n` one-way trip times drawn from `range` (ticks) by a xorshift generator advancing `seed`.
    fn random_trips(seed: &mut u64, n: usize, range: std::ops::Range<u64>) -> Vec<u64> {
        (0..n)
            .map(|_| {
                *seed ^= *seed << 13;
                *seed ^= *seed >> 7;
                *seed ^= *seed << 17;
                range.start + *seed % (range.end - range.start)
            })
            .collect()
    }

    #[test]
    fn recovers_a_known_offset_and_its_uncertainty_from_the_fastest_exchange() {
        // Trips of 100–400 ticks, one symmetric fast exchange of 60 + 60 in the middle.
        let trips = [300, 400, 250, 100, 60, 60, 350, 200, 300, 120];
        let readings = simulate(5_000, &trips);
        let ab = estimate_offset(exchanges(&readings, 0)).unwrap();
        assert_eq!(ab.min_rtt_ticks, 120);
        assert_eq!(ab.uncertainty_ticks, 60.0);
        assert_eq!(ab.offset_ticks, 5_000.0);
        assert_eq!(ab.exchanges, 5);
        // B-initiated exchanges see A's counter 5000 behind; the fastest is 100 + 60.
        let ba = estimate_offset(exchanges(&readings, 1)).unwrap();
        assert_eq!(ba.min_rtt_ticks, 160);
        assert_eq!(ba.offset_ticks, -5_000.0 + 20.0, "asymmetric trips bias the midpoint by half their difference");
        assert!((ba.offset_ticks - -5_000.0).abs() <= ba.uncertainty_ticks, "the truth lies within the bound");
    }

    #[test]
    fn the_truth_is_always_within_the_bound() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for offset in [-100_000i64, -37, 0, 1, 999_999] {
            let readings = simulate(offset, &random_trips(&mut seed, 41, 30..530));
            for (initiator, truth) in [(0, offset as f64), (1, -offset as f64)] {
                let e = estimate_offset(exchanges(&readings, initiator)).unwrap();
                assert!((e.offset_ticks - truth).abs() <= e.uncertainty_ticks, "{e:?} vs {truth}");
            }
        }
    }

    #[test]
    fn exchanges_alternate_initiators() {
        let r = [10, 20, 30, 40, 50];
        let a: Vec<Exchange> = exchanges(&r, 0).collect();
        let b: Vec<Exchange> = exchanges(&r, 1).collect();
        assert_eq!(a, [Exchange { start: 10, reply: 20, end: 30 }, Exchange { start: 30, reply: 40, end: 50 }]);
        assert_eq!(b, [Exchange { start: 20, reply: 30, end: 40 }]);
    }

    #[test]
    fn both_directions_together_bound_the_offset_tighter_and_antisymmetrically() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for offset in [-5_000i64, -3, 0, 40, 77_777] {
            let readings = simulate(offset, &random_trips(&mut seed, 61, 40..340));
            let ab = estimate_offset(exchanges(&readings, 0)).unwrap();
            let ba = estimate_offset(exchanges(&readings, 1)).unwrap();
            let (both, uncertainty) = combine_directions(&ab, &ba).unwrap();
            assert!((both - offset as f64).abs() <= uncertainty, "{both} ± {uncertainty} vs {offset}");
            assert!(uncertainty <= ab.uncertainty_ticks.min(ba.uncertainty_ticks));
            let (reverse, reverse_uncertainty) = combine_directions(&ba, &ab).unwrap();
            assert_eq!((reverse, reverse_uncertainty), (-both, uncertainty));
        }
    }

    #[test]
    fn opposite_biases_cancel_and_disjoint_bounds_give_none() {
        // True offset 0. A's fastest exchange went 20 ticks out and 60 back: B − A = −20 ± 40. If B's
        // fastest also went 20 out and 60 back, A − B = −20 ± 40, so B − A lies in [−20, 60] and the
        // intersection [−20, 20] is centred on the truth. If B's went 60 out and 20 back, both
        // directions give [−60, 20] and nothing is gained.
        let est = |offset_ticks: f64, uncertainty_ticks: f64| OffsetEstimate {
            offset_ticks,
            uncertainty_ticks,
            min_rtt_ticks: (2.0 * uncertainty_ticks) as u64,
            exchanges: 1,
        };
        assert_eq!(combine_directions(&est(-20.0, 40.0), &est(-20.0, 40.0)), Some((0.0, 20.0)));
        assert_eq!(combine_directions(&est(-20.0, 40.0), &est(20.0, 40.0)), Some((-20.0, 40.0)));
        // B − A within 1000 ± 10 one way and A − B within 1000 ± 10 the other: no constant offset fits.
        assert_eq!(combine_directions(&est(1_000.0, 10.0), &est(1_000.0, 10.0)), None);
    }

    #[test]
    fn a_counter_running_backwards_gives_no_estimate() {
        assert_eq!(estimate_offset([Exchange { start: 50, reply: 10, end: 40 }]), None);
        assert_eq!(estimate_offset([]), None);
    }

    #[test]
    fn offsets_beyond_f64_exact_integers_keep_their_ticks() {
        let base = 1u64 << 60;
        let e = estimate_offset([Exchange { start: base, reply: base + 7, end: base + 2 }]).unwrap();
        assert_eq!(e.offset_ticks, 6.0);
    }

    #[test]
    fn warps_are_counted_by_direction() {
        // B is 1000 behind: every A→B step goes backwards once the trip is shorter than 1000.
        let readings = simulate(-1_000, &[100, 100, 100, 100, 2_000, 100]);
        assert_eq!(count_warps(&readings), (2, 0));
        assert_eq!(count_warps(&simulate(0, &[100; 8])), (0, 0));
        // B ahead: the B→A steps go backwards.
        assert_eq!(count_warps(&simulate(1_000, &[100; 6])), (0, 3));
    }
}
