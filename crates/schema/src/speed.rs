//! The keys under which a probe records the machine's speed around a point (the reference loop timed just
//! before and just after it, `overhead_harness::speed`), and how a reader takes them back.

use std::collections::BTreeMap;

/// How much slower than the run's typical speed a point's processes must mostly have run to flag the point
/// `slow` (`overhead_analysis::slow_points`): 1.25 means 25% slower than the median reference time of the run.
pub const SLOW_FACTOR: f64 = 1.25;

/// The key of a point's `extra` value holding the reference loop's ns per iteration just before its measurement.
pub const BEFORE: &str = "reference_loop_ns_before";

/// The key of a point's `extra` value holding the reference loop's ns per iteration just after its measurement.
pub const AFTER: &str = "reference_loop_ns_after";

/// Every reference time (ns per iteration) in these points' `extra` values, before and after each: the run's
/// usual speed is taken from all of them, so that a point whose probe before or after caught a slow spell does
/// not hide the fast state.
pub fn every_probe<'a>(extras: impl IntoIterator<Item = &'a BTreeMap<String, f64>>) -> Vec<f64> {
    extras.into_iter().flat_map(|extra| [BEFORE, AFTER].into_iter().filter_map(|k| extra.get(k).copied())).collect()
}

/// The slower of a point's two reference times (ns per iteration), if the record has them (older records do
/// not).
pub fn point_reference_ns(extra: &BTreeMap<String, f64>) -> Option<f64> {
    match (extra.get(BEFORE), extra.get(AFTER)) {
        (Some(&b), Some(&a)) => Some(b.max(a)),
        (b, a) => b.or(a).copied(),
    }
}
