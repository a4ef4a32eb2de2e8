//! Where is the best granularity? The decade sweep with its stop rule, and the refinement around the
//! best decade (Ben-Asher & Feitelson 1991 §7: 10^0…10^7 activities, then "a more accurate measurement showed the optimal
//! number to be 1900"). Pure functions of a cost callback, so the search is tested apart from the
//! hardware.

use std::collections::BTreeMap;

/// One evaluated task count and its cost (elapsed ns of the whole work).
pub type Eval = (u64, f64);

/// 1, 10, 100, … up to and including `max_tasks` (at least `[1]`).
pub fn decades(max_tasks: u64) -> Vec<u64> {
    std::iter::successors(Some(1u64), |&t| t.checked_mul(10)).take_while(|&t| t <= max_tasks.max(1)).collect()
}

/// Evaluates `cost` at each decade up to `max_tasks`, in order, and stops after the first count whose
/// cost exceeds `stop_factor` × the best so far (the overhead dominates from there on), or when `cost`
/// returns `None` (out of time). Returns the evaluations in order.
pub fn sweep_decades(max_tasks: u64, stop_factor: f64, mut cost: impl FnMut(u64) -> Option<f64>) -> Vec<Eval> {
    let mut out: Vec<Eval> = Vec::new();
    for tasks in decades(max_tasks) {
        let Some(c) = cost(tasks) else { break };
        out.push((tasks, c));
        let best = out.iter().map(|e| e.1).fold(f64::INFINITY, f64::min);
        if c > stop_factor * best {
            break;
        }
    }
    out
}

/// The lowest-cost evaluation (the first of equals).
pub fn best(evals: &[Eval]) -> Option<Eval> {
    evals.iter().copied().fold(None, |b: Option<Eval>, e| match b {
        Some(b) if b.1 <= e.1 => Some(b),
        _ => Some(e),
    })
}

/// The range to refine in: one decade either side of `best_tasks`, within `[1, max_tasks]`.
pub fn bracket(best_tasks: u64, max_tasks: u64) -> (u64, u64) {
    ((best_tasks / 10).max(1), best_tasks.saturating_mul(10).min(max_tasks.max(1)))
}

/// Golden-section search for the task count of least cost in `[lo, hi]`, on a logarithmic scale (the
/// cost curve is smooth in log(tasks), as the study's Table 4 is). Counts already in `known` are not
/// evaluated again, nor is any count twice. Stops when the bracket's `hi/lo` falls below `1 + rel_tol`,
/// when its two inner counts round to the same integer, after `max_evals` new evaluations, or when
/// `cost` returns `None`. Assumes one minimum in the range; with noise it finds a count in the flat
/// bottom. Returns the new evaluations, in order.
pub fn refine(
    lo: u64,
    hi: u64,
    rel_tol: f64,
    max_evals: usize,
    known: &[Eval],
    mut cost: impl FnMut(u64) -> Option<f64>,
) -> Vec<Eval> {
    const INV_PHI: f64 = 0.618_033_988_749_894_9;
    let mut memo: BTreeMap<u64, f64> = known.iter().copied().collect();
    let mut new: Vec<Eval> = Vec::new();
    let mut eval = |t: u64, new: &mut Vec<Eval>| -> Option<f64> {
        if let Some(&c) = memo.get(&t) {
            return Some(c);
        }
        if new.len() >= max_evals {
            return None;
        }
        let c = cost(t)?;
        memo.insert(t, c);
        new.push((t, c));
        Some(c)
    };
    let count = |x: f64| x.exp().round().max(1.0) as u64;
    let (mut a, mut b) = ((lo.max(1) as f64).ln(), (hi.max(lo).max(1) as f64).ln());
    while (b - a).exp() > 1.0 + rel_tol {
        let (c, d) = (b - INV_PHI * (b - a), a + INV_PHI * (b - a));
        let (tc, td) = (count(c), count(d));
        if tc == td {
            break;
        }
        let (Some(fc), Some(fd)) = (eval(tc, &mut new), eval(td, &mut new)) else { break };
        if fc <= fd {
            b = d;
        } else {
            a = c;
        }
    }
    new
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ben-Asher & Feitelson 1991 Table 4 (elapsed s per number of activities) with the 1900-activity measurement, read as
    /// a curve piecewise linear in log10(tasks).
    fn seed_table4(tasks: u64) -> f64 {
        const POINTS: [(f64, f64); 9] = [
            (1.0, 384.350),
            (10.0, 100.230),
            (100.0, 100.210),
            (1000.0, 85.750),
            (1900.0, 85.005),
            (10000.0, 85.625),
            (100000.0, 95.185),
            (1000000.0, 170.975),
            (10000000.0, 1154.620),
        ];
        let x = (tasks as f64).log10();
        let i = POINTS.iter().rposition(|p| p.0.log10() <= x).unwrap().min(POINTS.len() - 2);
        let ((x0, y0), (x1, y1)) = ((POINTS[i].0.log10(), POINTS[i].1), (POINTS[i + 1].0.log10(), POINTS[i + 1].1));
        y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    }

    #[test]
    fn decades_up_to_the_cap() {
        assert_eq!(decades(10_000_000).len(), 8);
        assert_eq!(decades(999), vec![1, 10, 100]);
        assert_eq!(decades(0), vec![1]);
    }

    /// The sweep stops after the first count that costs more than 4× the best, and never evaluates
    /// beyond it.
    #[test]
    fn sweep_stops_where_the_overhead_dominates() {
        let curve = |t: u64| {
            Some(match t {
                1 => 100.0,
                10 => 10.0,
                100 => 5.0,
                1000 => 30.0,
                _ => panic!("evaluated {t} after the stop"),
            })
        };
        let evals = sweep_decades(10_000_000, 4.0, curve);
        assert_eq!(evals.iter().map(|e| e.0).collect::<Vec<_>>(), [1, 10, 100, 1000]);
        assert_eq!(best(&evals), Some((100, 5.0)));
        // The study's own table never triggers the rule before the last decade (1154 s > 4 × 85.6 s).
        let seed = sweep_decades(10_000_000, 4.0, |t| Some(seed_table4(t)));
        assert_eq!(seed.len(), 8);
        assert_eq!(best(&seed).unwrap().0, 10_000);
    }

    #[test]
    fn sweep_stops_when_out_of_time() {
        let evals = sweep_decades(1000, 4.0, |t| (t < 100).then_some(1.0));
        assert_eq!(evals.len(), 2);
    }

    /// A planted minimum at 1900 on a smooth curve is found to within the tolerance.
    #[test]
    fn refine_finds_a_planted_minimum() {
        let planted = 1900.0f64;
        let curve = |t: u64| Some(1.0 + ((t as f64).ln() - planted.ln()).powi(2));
        let (lo, hi) = bracket(1000, 10_000_000);
        assert_eq!((lo, hi), (100, 10_000));
        let evals = refine(lo, hi, 0.02, 30, &[], curve);
        let (found, _) = best(&evals).unwrap();
        assert!((found as f64 / planted - 1.0).abs() < 0.03, "found {found}, planted 1900; {evals:?}");
        assert!(evals.len() <= 16, "{} evaluations", evals.len());
        let mut counts: Vec<u64> = evals.iter().map(|e| e.0).collect();
        counts.sort_unstable();
        counts.dedup();
        assert_eq!(counts.len(), evals.len(), "a count was evaluated twice");
    }

    /// The study's own curve: between its decades 1000 and 10000 the refinement lands on the 1900 that
    /// the study's more accurate measurement found.
    #[test]
    fn refine_on_the_seed_curve_finds_1900() {
        let decades = sweep_decades(10_000_000, 4.0, |t| Some(seed_table4(t)));
        let (best_decade, _) = best(&decades).unwrap();
        let (lo, hi) = bracket(best_decade, 10_000_000);
        let evals = refine(lo, hi, 0.01, 40, &decades, |t| Some(seed_table4(t)));
        let (found, cost) = best(&evals).unwrap();
        assert!((found as f64 / 1900.0 - 1.0).abs() < 0.02, "found {found} ({cost} s); {evals:?}");
    }

    #[test]
    fn refine_respects_the_evaluation_cap_and_tiny_ranges() {
        let mut calls = 0;
        let evals = refine(1, 1_000_000, 0.0, 5, &[], |t| {
            calls += 1;
            Some(t as f64)
        });
        assert_eq!((evals.len(), calls), (5, 5));
        assert!(refine(1, 1, 0.02, 10, &[], |_| Some(0.0)).is_empty());
        let small = refine(1, 3, 0.02, 10, &[], |t| Some((t as f64 - 2.0).abs()));
        assert!(small.len() <= 3);
    }
}
