//! What is derived from the probes' answers into the record (docs/ARCHITECTURE.md "Layout"): a point from the
//! processes that measured it, with its two-level estimate and flags; and, over the whole record, the host's
//! states and each point's time per state, the fits,
//! the `slow` flags, the speed warning, Souvatzis's runtime comparisons, Kiszka's count fits and the
//! choice between implementations ([`analyze`]). Renderers only format what this stage wrote.

pub mod choose;
pub mod compare;
pub mod crosscheck;
pub mod fits;
pub mod flavors;
pub mod gate;
pub mod host_spread;
pub mod host_states;
pub mod intervals;
mod merge;
pub mod merge_details;
pub mod networked_case;
pub mod op_counts;
pub mod placement_class;
pub mod primitive_rows;
pub mod regimes;
pub mod run_level;
pub mod runtime_comparisons;
pub mod sides;
mod speed;
pub mod timer_counts;

pub use merge::{add_distinct_notes, cycle_floor_ns, fastest_reference_ns, merge_processes, Flagging, Process};
pub use speed::{run_speed, slow_points, speed_warning, SPEED_WINDOW_S};

use overhead_record::{Catalog, RunRecord};

/// Derives everything the record holds about its points as a whole, replacing what was there: the fits
/// through series of points (Ben-Asher & Feitelson's `a + b·load`), each point's `slow` flag and the run's speed
/// warning. Idempotent. `overhead run` calls it as points arrive and at the end; `overhead report` calls it
/// on load, so a record written before a derived field existed reads the same as a new one. `catalog` names
/// the order of experiments and runtimes and the runtimes' own channels (`overhead_experiments::CATALOG`;
/// [`overhead_record::RecordOrder`] where the registries are not at hand).
pub fn analyze(record: &mut RunRecord, catalog: &dyn Catalog) {
    // What the registries answer goes into the record first, for its readers (the report reads it instead
    // of the registries).
    record.catalog = catalog.snapshot();
    // First: every interval over processes on the scale a time lives on (an older record's made again);
    // then a point whose time depends on the host's state headlines one state, and everything below reads
    // the headline.
    intervals::apply(record);
    host_states::apply(record);
    crosscheck::apply(record);
    regimes::apply(record);
    // Then the flags against the run's typical spread: the headline estimates are final.
    host_spread::apply(record);
    record.fits = fits::derive_fits(&record.points);
    let slow = slow_points(&record.points);
    for (point, slow) in record.points.iter_mut().zip(slow) {
        point.slow = slow;
    }
    record.speed_warning = speed_warning(&record.points);
    record.speed = run_speed(&record.points);
    record.comparisons = runtime_comparisons::comparisons(record, catalog);
    record.count_fits = timer_counts::count_fits(&record.points);
    record.choices = choose::choice_tables(&record.points, &record.skipped, catalog);
    if let Some(mut sides) = record.sides.take() {
        sides.ratios = sides::side_ratios(&record.points, &record.skipped, &sides);
        record.sides = Some(sides);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};
    use overhead_schema::speed::{AFTER, BEFORE};

    #[test]
    fn analysis_writes_flags_and_warning_into_the_record_and_is_idempotent() {
        let mut record = sample_record();
        record.points = (0..10)
            .map(|k| {
                let mut p = point("base.loop", "os", &[], 1.0);
                p.extra.insert(BEFORE.into(), 0.28);
                p.extra.insert(AFTER.into(), if k == 3 { 0.56 } else { 0.28 });
                p
            })
            .collect();
        analyze(&mut record, &overhead_record::RecordOrder);
        let once = serde_json::to_string(&record).unwrap();
        assert_eq!(record.points.iter().filter(|p| p.slow).count(), 1);
        assert!(record.points[3].slow);
        assert!(record.speed_warning.as_deref().is_some_and(|w| w.contains("1 point(s)")));
        analyze(&mut record, &overhead_record::RecordOrder);
        assert_eq!(serde_json::to_string(&record).unwrap(), once, "a second analysis changed the record");
    }
}
