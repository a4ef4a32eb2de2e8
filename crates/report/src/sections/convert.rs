//! Kiszka's conversion table for today: one row per routine and direction, the cost of one conversion
//! (median ± half-width of its 95% CI, the identity loop subtracted) and the worst error against the
//! exact routine over intervals up to 1 µs … 1 year at this machine's counter rate, then the goals of
//! the recommended fast path.

use crate::sections::Section;
use comfy_table::{Cell, CellAlignment};
use overhead_render::new_table;

use overhead_convert::{Direction, Routine, RANGES};
use overhead_humanize::format_ns;
use overhead_record::{PointRecord, PointSpec, RunRecord};
use overhead_render::Format;
use overhead_schema::experiments::clock::{ConvertParams, ConvertResult};

const EXPERIMENT: &str = overhead_schema::experiments::clock::CONVERT;

/// The recommended fast path's cost goal per conversion (ns).
const FAST_PATH_GOAL_NS: f64 = 2.0;

fn is_row(spec: &PointSpec, routine: Routine, direction: Direction) -> bool {
    spec.experiment == EXPERIMENT
        && spec.params_as::<ConvertParams>().is_ok_and(|p| (p.routine, p.direction) == (routine, direction))
}

fn point(record: &RunRecord, routine: Routine, direction: Direction) -> Option<&PointRecord> {
    record.points.iter().find(|p| is_row(&p.spec, routine, direction))
}

/// `0`, `72`, `2.13e5`: whole units up to 99 999, then 3 significant digits.
fn format_error(v: f64) -> String {
    if v < 1e5 {
        format!("{v:.0}")
    } else {
        format!("{v:.2e}")
    }
}

/// The worst error of `p` over `range_key` (e.g. `1h`) at this machine's rate, from its result.
fn max_error(p: &PointRecord, direction: Direction, range_key: &str) -> Option<f64> {
    p.result_as::<ConvertResult>().ok()?.max_error(direction, range_key)
}

/// The table, its footnotes and the fast-path goal lines; empty when the record has no `clock.convert`
/// point.
pub fn convert_table(record: &RunRecord, format: Format) -> String {
    let any = record.points.iter().map(|p| &p.spec).chain(record.skipped.iter().map(|s| &s.spec));
    if !any.clone().any(|s| s.experiment == EXPERIMENT) {
        return String::new();
    }
    let hz = record
        .points
        .iter()
        .find(|p| p.spec.experiment == EXPERIMENT)
        .and_then(|p| p.result_as::<ConvertResult>().ok())
        .map(|r| r.hz);
    let mut table = new_table(format);
    let mut header = vec!["routine".to_string(), "direction (error unit)".into(), "per conversion".into()];
    header.extend(RANGES.iter().map(|r| format!("≤ {}", r.label)));
    table.set_header(header);
    let mut footnotes: Vec<String> = Vec::new();
    for routine in Routine::ALL {
        for direction in Direction::ALL {
            let right = |text: String| Cell::new(text).set_alignment(CellAlignment::Right);
            let label = format!("{} ({})", direction.name(), direction.output_unit());
            let mut cells = vec![Cell::new(routine.name()), Cell::new(label)];
            if let Some(p) = point(record, routine, direction) {
                let s = &p.summary;
                cells.push(right(format!("{} ±{}", format_ns(s.median), format_ns(s.ci_half_width()))));
                for range in RANGES {
                    cells.push(right(max_error(p, direction, range.key).map_or("—".into(), format_error)));
                }
            } else if let Some(s) = record.skipped.iter().find(|s| is_row(&s.spec, routine, direction)) {
                footnotes.push(format!("{} / {}: {}", routine.name(), direction.name(), s.reason));
                cells.push(right(format!("— [{}]", footnotes.len())));
            } else {
                continue;
            }
            table.add_row(cells);
        }
    }
    let mut out = format!("{table}\n");
    for (i, note) in footnotes.iter().enumerate() {
        out += &format!("[{}] {note}\n", i + 1);
    }
    let rate = hz.map_or("this machine's rate".into(), |hz| format!("{hz:.0} Hz (this machine)"));
    out += &format!(
        "per conversion: median ± half-width of its 95% CI over 64 inputs < 2^32, identity loop subtracted; \
         ≤ range: worst |routine − exact| found over intervals up to the range at {rate}; — : not applicable \
         (input past a 32-bit routine, or a rate the routine cannot take)\n"
    );
    out += &goals(record);
    out
}

/// The goal lines of the recommended fast path (the `Converter`): cost ≤ 2 ns, no slower than quanta,
/// and its worst error up to 1 h.
fn goals(record: &RunRecord) -> String {
    let mut out = String::new();
    let summary = |r, d| point(record, r, d).map(|p| &p.summary);
    for direction in Direction::ALL {
        let Some(fast) = summary(Routine::FastPath, direction) else { continue };
        let mut line = format!(
            "fast_path {}: {} per conversion (goal ≤ {}: {})",
            direction.name(),
            format_ns(fast.median),
            format_ns(FAST_PATH_GOAL_NS),
            if fast.median <= FAST_PATH_GOAL_NS { "met" } else { "NOT met" }
        );
        if let Some(quanta) = summary(Routine::Quanta, direction) {
            // Sub-ns differences drown in a loaded machine's noise: overlapping CIs are a tie.
            let verdict = if fast.median <= quanta.median {
                "no slower than"
            } else if fast.ci_low <= quanta.ci_high {
                "tied (CIs overlap) with"
            } else {
                "SLOWER than"
            };
            line += &format!("; {verdict} quanta ({})", format_ns(quanta.median));
        }
        if let Some(err) = point(record, Routine::FastPath, direction).and_then(|p| max_error(p, direction, "1h")) {
            let unit = match (direction, err == 1.0) {
                (Direction::NsToTick, true) => "tick",
                _ => direction.output_unit(),
            };
            line += &format!(
                "; worst error up to 1 h: {} {unit} (goal ≤ 1: {})",
                format_error(err),
                if err <= 1.0 { "met" } else { "NOT met" }
            );
        }
        out += &line;
        out += "\n";
    }
    out
}

/// The report's `convert` section (docs/ARCHITECTURE.md "Renderers").
pub const SECTION: Section = Section {
    key: "convert",
    title: "Kiszka 2006 conversion table: cost and worst error by routine",
    about: "Kiszka's conversion table: cost and worst error per range of each tick↔ns routine",
    position: 30,
    render: convert_table,
};

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point as fixture_point, sample_record};
    use overhead_record::{SkipKind, SkippedPoint};

    fn convert_point(routine: &str, direction: &str, median: f64, errors: &[(&str, f64)]) -> PointRecord {
        let mut p = fixture_point(EXPERIMENT, "os", &[("routine", routine), ("direction", direction)], median);
        p.extra.insert("hz".into(), 2_995_234_567.0);
        for (key, v) in errors {
            p.extra.insert((*key).into(), *v);
        }
        p
    }

    #[test]
    fn rows_errors_footnotes_and_goals() {
        let mut record = sample_record();
        record.points = vec![
            convert_point("kernel", "tick_to_ns", 0.9, &[("max_error_ns_1us", 0.0), ("max_error_ns_1h", 213_456.0)]),
            convert_point("fast_path", "tick_to_ns", 0.7, &[("max_error_ns_1h", 1.0)]),
            convert_point("fast_path", "ns_to_tick", 2.5, &[("max_error_ticks_1h", 1.0)]),
            convert_point("quanta", "tick_to_ns", 1.1, &[]),
        ];
        let spec = fixture_point(EXPERIMENT, "os", &[("routine", "quanta"), ("direction", "ns_to_tick")], 1.0).spec;
        record.skipped = vec![SkippedPoint::new(spec, SkipKind::Skipped, "quanta exposes no ns→tick conversion")];
        let text = convert_table(&record, Format::Md);
        let kernel = text.lines().find(|l| l.contains("kernel")).unwrap();
        assert!(kernel.contains("2.13e5") && kernel.contains("tick_to_ns (ns)"), "{kernel}");
        // rows follow the routine order, not the record's
        assert!(text.find("kernel").unwrap() < text.find("| fast_path").unwrap());
        assert!(text.contains("— [1]") && text.contains("[1] quanta / ns_to_tick: quanta exposes no"), "{text}");
        assert!(text.contains("at 2995234567 Hz"), "{text}");
        assert!(text.contains("fast_path tick_to_ns: 0.700 ns per conversion (goal ≤ 2.00 ns: met); no slower than quanta (1.10 ns); worst error up to 1 h: 1 ns (goal ≤ 1: met)"), "{text}");
        assert!(
            text.contains(
                "fast_path ns_to_tick: 2.50 ns per conversion (goal ≤ 2.00 ns: NOT met); worst error up to 1 h: 1 tick"
            ),
            "{text}"
        );
    }

    #[test]
    fn empty_without_convert_points() {
        assert!(convert_table(&sample_record(), Format::Table).is_empty());
    }
}
