//! Souvatzis's timing table as the analysis sees it (docs/ARCHITECTURE.md "The data flow"): each runtime's
//! comparison with the reference runtime on the switch-bound rows of the table
//! ([`crate::primitive_rows`]), derived into the record ([`comparisons`]); the primitives section only
//! formats them.

use crate::primitive_rows::{matches, Row, REFERENCE, ROWS};
use overhead_record::{Catalog, RatioCi, RunRecord, RuntimeComparison};
use overhead_stats::Summary;

/// The summary of the row's point for `runtime`, if measured.
fn summary<'r>(record: &'r RunRecord, row: &Row, runtime: &str, catalog: &dyn Catalog) -> Option<&'r Summary> {
    record.points.iter().find(|p| matches(row, &p.spec, runtime, catalog)).map(|p| &p.summary)
}

/// The ratio of two medians `a / b` with a conservative 95% interval built from their own 95% CIs
/// (`a.ci_low / b.ci_high` to `a.ci_high / b.ci_low`): the ratio is "≤ 1 within its CI" when the low end is.
/// `None` when either CI reaches zero (a point on the linear scale, docs/METHOD.md "Two levels"): a ratio's
/// interval never reaches zero or below.
pub fn ratio_with_ci(a: &Summary, b: &Summary) -> Option<RatioCi> {
    if !(b.median > 0.0 && b.ci_low > 0.0 && a.median > 0.0 && a.ci_low > 0.0) {
        return None;
    }
    Some(RatioCi { ratio: a.median / b.median, low: ratio_low_end(a, b)?, high: a.ci_high / b.ci_low })
}

/// The low end of [`ratio_with_ci`]'s interval, `a.ci_low / b.ci_high`; it exists also when `b`'s CI
/// reaches zero and the interval has no upper end, which is enough to say whether the interval includes 1.
/// `None` when `b`'s CI lies at or below zero.
pub fn ratio_low_end(a: &Summary, b: &Summary) -> Option<f64> {
    (b.ci_high > 0.0).then(|| a.ci_low / b.ci_high)
}

/// Every runtime with a point of the table other than the reference, in column order, compared with
/// the reference: the geometric mean of runtime / reference over the switch-bound rows both measured, and
/// the raw switch round trip's ratio with its interval. A runtime sharing no switch-bound row with the
/// reference gets none.
pub fn comparisons(record: &RunRecord, catalog: &dyn Catalog) -> Vec<RuntimeComparison> {
    let mut runtimes: Vec<&str> = Vec::new();
    for p in &record.points {
        if ROWS.iter().any(|r| r.experiment == p.spec.experiment) && !runtimes.contains(&p.spec.runtime.as_str()) {
            runtimes.push(&p.spec.runtime);
        }
    }
    runtimes.sort_by_key(|r| catalog.runtime_rank(r));
    runtimes.into_iter().filter(|r| *r != REFERENCE).filter_map(|r| comparison(record, r, catalog)).collect()
}

/// `runtime` against [`REFERENCE`].
fn comparison(record: &RunRecord, runtime: &str, catalog: &dyn Catalog) -> Option<RuntimeComparison> {
    let median = |row: &Row, runtime: &str| summary(record, row, runtime, catalog).map(|s| s.median);
    let ratios: Vec<f64> = ROWS
        .iter()
        .filter(|r| r.switch_bound)
        .filter_map(|r| Some(median(r, runtime)? / median(r, REFERENCE)?))
        .filter(|x| x.is_finite() && *x > 0.0)
        .collect();
    if ratios.is_empty() {
        return None;
    }
    let geomean = overhead_stats::geometric_mean(&ratios);
    let csloop = ROWS.iter().find(|r| r.experiment == overhead_schema::experiments::sched::SWITCH).expect("csloop row");
    let raw_switch = summary(record, csloop, runtime, catalog)
        .zip(summary(record, csloop, REFERENCE, catalog))
        .and_then(|(a, b)| ratio_with_ci(a, b));
    Some(RuntimeComparison {
        runtime: runtime.into(),
        reference: REFERENCE.into(),
        switch_bound_geomean: geomean,
        rows: ratios.len(),
        raw_switch,
    })
}

/// Test fixture: `fiber-ucontext` 40× `fiber-asm` on the raw switch and 4× on task create/destroy.
#[cfg(any(test, feature = "testing"))]
pub fn ucontext_vs_asm_points() -> Vec<overhead_record::PointRecord> {
    use overhead_record::fixture::point;
    vec![
        point("sched.switch", "fiber-asm", &[("mechanism", "raw_switch"), ("placement", "same_cpu")], 10.0),
        point("sched.switch", "fiber-ucontext", &[("mechanism", "raw_switch"), ("placement", "same_cpu")], 400.0),
        point("spawn.create", "fiber-asm", &[("kind", "task")], 50.0),
        point("spawn.create", "fiber-ucontext", &[("kind", "task")], 200.0),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};
    use overhead_record::RecordOrder;

    #[test]
    fn ratio_interval_is_built_from_both_cis() {
        let mut a = Summary::of(&[2.0, 2.0, 2.0]).unwrap();
        let mut b = a.clone();
        (a.ci_low, a.ci_high) = (1.8, 2.4);
        (b.ci_low, b.ci_high) = (1.6, 2.5);
        assert_eq!(ratio_with_ci(&a, &b), Some(RatioCi { ratio: 1.0, low: 1.8 / 2.5, high: 2.4 / 1.6 }));
        b.ci_low = 0.0;
        assert!(ratio_with_ci(&a, &b).is_none(), "a CI reaching zero gives no bounded ratio");
        assert!(ratio_with_ci(&b, &a).is_none(), "nor one whose low end would be zero");
        assert_eq!(ratio_low_end(&a, &b), Some(1.8 / 2.5), "but its low end still exists");
        (b.ci_low, b.ci_high) = (-1.0, 0.0);
        assert!(ratio_low_end(&a, &b).is_none(), "a CI at or below zero gives none");
    }

    /// ucontext/asm: 40× on the switch, 4× on create: geometric mean √160 ≈ 12.6 over two rows; os, with
    /// no switch-bound row shared with the reference, gets no comparison.
    #[test]
    fn geometric_mean_over_the_shared_switch_bound_rows() {
        let mut record = sample_record();
        record.points = ucontext_vs_asm_points();
        record.points.push(point("base.loop", "os", &[], 0.3));
        let found = comparisons(&record, &RecordOrder);
        assert_eq!(found.len(), 1, "{found:?}");
        let c = &found[0];
        assert_eq!((c.runtime.as_str(), c.reference.as_str(), c.rows), ("fiber-ucontext", "fiber-asm", 2));
        assert!((c.switch_bound_geomean - 160f64.sqrt()).abs() < 1e-9, "{c:?}");
        let raw = c.raw_switch.unwrap();
        assert!(raw.low < 40.0 && (raw.ratio - 40.0).abs() < 1e-9 && 40.0 < raw.high, "{raw:?}");
    }
}
