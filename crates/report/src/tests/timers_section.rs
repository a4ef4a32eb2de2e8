//! Kiszka's timer section (`overhead_experiments::timer`) over an analysed record: its fits of time against
//! the counts need the analysis, which only this crate sees beside the experiments.

use crate::sections::timers::timers_table;
use overhead_experiments::timer::HotPath;
use overhead_record::PointRecord;
use overhead_render::Format;

const EXPERIMENT: &str = HotPath::ID;
use overhead_record::fixture::{point, sample_record};
use overhead_record::{SkipKind, SkippedPoint};

fn hotpath(scenario: &str, base: &str, start: &str, median: f64, counts: [f64; 6]) -> PointRecord {
    let mut p = point(EXPERIMENT, "os", &[("scenario", scenario), ("time_base", base), ("start", start)], median);
    p.extra =
        overhead_schema::variants::timer_scenario::COUNT_EXTRA_KEYS.iter().map(|k| k.to_string()).zip(counts).collect();
    p.extra.insert("fired_per_op".into(), 1.0);
    p
}

/// The sample record with one `timer.hotpath` point per `(scenario, time base, start, median, counts)`.
fn with_hotpaths(points: &[(&str, &str, &str, f64, [f64; 6])]) -> overhead_record::RunRecord {
    let mut record = sample_record();
    record.points = points.iter().map(|&(s, b, start, median, counts)| hotpath(s, b, start, median, counts)).collect();
    record
}

#[test]
fn rows_in_002s_order_with_time_and_differences_marked() {
    let mut record = with_hotpaths(&[
        ("periodic_timer", "ns", "relative", 30.0, [2.0, 1.0, 1.0, 0.0, 1.0, 2.0]),
        ("periodic_timer", "tsc", "relative", 20.0, [0.0, 0.0, 0.0, 0.0, 1.0, 2.0]),
        ("absolute_timeout", "ns", "absolute", 15.0, [2.0, 2.0, 0.0, 0.0, 0.0, 1.0]),
    ]);
    let spec = hotpath("periodic_timer", "tsc", "absolute", 1.0, [0.0; 6]).spec;
    record.skipped = vec![SkippedPoint::new(spec, SkipKind::Failed, "it broke")];
    let text = timers_table(&record, Format::Md);
    let periodic = &text[text.find("§1.3 Periodic timers").unwrap()..text.find("§5.3").unwrap()];
    let (tsc, abs, ns) = (
        periodic.find("| TSC-based ").unwrap(),
        periodic.find("TSC-based+ABS").unwrap(),
        periodic.find("| ns-based ").unwrap(),
    );
    assert!(tsc < abs && abs < ns, "002's row order: {periodic}");
    assert!(periodic.contains("20.0 ns ±"), "{periodic}");
    assert!(periodic.contains("fewest conversions: TSC-based (0); fastest here: TSC-based (20.0 ns)"));
    assert!(!text.contains("§2.3"), "scenarios without points are left out");
    let timeout = text.lines().find(|l| l.contains("ns-based+ABS")).unwrap();
    assert!(timeout.contains("2 (002: 1)"), "a count unlike 002's shows 002's: {timeout}");
    assert!(text.contains("[1] §1 TSC-based+ABS: it broke"), "{text}");
    let tsc = periodic.lines().find(|l| l.starts_with("| TSC-based ")).unwrap();
    assert!(tsc.contains("2 (002: 3)"), "the counter reads of §1 TSC-based differ from 002's: {tsc}");
}

/// Times that follow the counter reads exactly, not the conversions.
#[test]
fn fits_say_what_the_time_follows() {
    let mut record = with_hotpaths(&[
        ("periodic_timer", "tsc", "relative", 20.0, [0.0, 0.0, 0.0, 0.0, 1.0, 2.0]),
        ("relative_timer", "ns", "relative", 30.0, [3.0, 2.0, 1.0, 0.0, 1.0, 3.0]),
        ("absolute_timeout", "ns", "absolute", 10.0, [1.0, 1.0, 0.0, 0.0, 0.0, 1.0]),
    ]);
    overhead_analysis::analyze(&mut record, &overhead_experiments::CATALOG);
    let text = timers_table(&record, Format::Table);
    assert!(
        text.contains("over 3 rows: +4.3 ns per conversion (r² 0.43); +10.0 ns per counter read (r² 1.00)"),
        "{text}"
    );
}

#[test]
fn empty_without_timer_points() {
    assert!(timers_table(&sample_record(), Format::Table).is_empty());
}
