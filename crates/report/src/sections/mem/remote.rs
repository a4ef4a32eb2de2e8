//! Ben-Asher & Feitelson 1991 §4, Table 3 ("relative access rates under different conditions"), from `mem.remote`: columns
//! access | conditions | rate | Ben-Asher & Feitelson 1991, one row per case in the study's order, each rate relative to
//! the undisturbed reference activity (2 decimals, ± from the point's CI), the study's own value beside
//! it; skipped rows keep their place with the reason below the table; the NUMA rows when measured.

use comfy_table::{Cell, CellAlignment};

use overhead_record::{PointRecord, RunRecord};
use overhead_render::new_table;
use overhead_render::Format;
use overhead_schema::experiments::mem::{Reference, RemoteParams, RemoteResult};

/// The experiment this part reads.
const EXPERIMENT: &str = overhead_schema::experiments::mem::REMOTE;

/// Table 3's rows: case parameter, access, conditions, the study's rate.
pub const ROWS: [(&str, &str, &str, &str); 8] = [
    ("local_free", "local", "free memory", "1.00"),
    ("local_one_remote", "local", "contention from a single remote activity (another word of its line)", "0.74"),
    ("local_many_remote", "local", "contention from multiple remote activities", "0.57"),
    ("remote_unused", "remote", "to unused memory (a line another CPU touched, then left)", "0.11"),
    ("remote_used", "remote", "to locally used memory (the line a local activity increments)", "0.11"),
    ("remote_heavy", "remote", "with heavy contention (every other CPU on one word): slowest–fastest", "0.01–0.03"),
    ("numa_local", "local node", "pointer chase over 4× the last-level cache, vs. a second local buffer", "—"),
    ("numa_remote", "remote node", "pointer chase over 4× the last-level cache, first touched on another node", "—"),
];

/// The Table 3 layout. Empty when the record has no `mem.remote` point.
pub fn render(record: &RunRecord, format: Format) -> String {
    let points: Vec<&PointRecord> = record.points.iter().filter(|p| p.spec.experiment == EXPERIMENT).collect();
    if points.is_empty() {
        return String::new();
    }
    let case_of = |params: &[(String, String)]| params.iter().find(|(k, _)| k == "case").map(|(_, v)| v.clone());
    let point = |case: &str| points.iter().copied().find(|p| case_of(&p.spec.params).as_deref() == Some(case));
    let skip = |case: &str| {
        record
            .skipped
            .iter()
            .find(|s| s.spec.experiment == EXPERIMENT && case_of(&s.spec.params).as_deref() == Some(case))
    };
    let mut table = new_table(format);
    table.set_header(vec!["access", "conditions", "rate", "Ben-Asher & Feitelson 1991"]);
    let mut footnotes = Vec::new();
    let mut clock_rows = false;
    let mut previous_access = "";
    for (case, access, conditions, seed) in ROWS {
        let numa = case.starts_with("numa");
        let rate = match (point(case), skip(case)) {
            (Some(p), _) => {
                let clock = p.spec.params_as::<RemoteParams>().is_ok_and(|q| q.reference == Reference::Clock) && !numa;
                clock_rows |= clock;
                format!("{}{}", rate_cell(p), if clock { " †" } else { "" })
            }
            (None, Some(s)) if numa => {
                let line = format!("NUMA rows: skipped — {}", s.reason);
                if !footnotes.contains(&line) {
                    footnotes.push(line);
                }
                continue;
            }
            (None, Some(s)) => {
                footnotes.push(format!("{access}, {conditions}: skipped — {}", s.reason));
                "skipped".into()
            }
            (None, None) if numa => continue,
            (None, None) => "not run".into(),
        };
        let shown_access = if access == previous_access { "" } else { access };
        previous_access = access;
        table.add_row(vec![
            Cell::new(shown_access),
            Cell::new(conditions),
            Cell::new(rate).set_alignment(CellAlignment::Right),
            Cell::new(seed).set_alignment(CellAlignment::Right),
        ]);
    }
    let heading = "mem.remote: relative access rates under different conditions (Ben-Asher & Feitelson 1991 Table 3)";
    let mut out = match format {
        Format::Table => format!("{heading}\n"),
        Format::Md => format!("### {heading}\n\n"),
    };
    out += &format!("{table}\n");
    let bullet = if format == Format::Md { "- " } else { "  " };
    out += &format!(
        "{bullet}rate: the activity's increments over the undisturbed reference activity's in the same interval \
         (its own line, 250 in-line increments a loop), median over windows, ± from the 95% CI of its time per \
         increment\n"
    );
    if clock_rows {
        out += &format!(
            "{bullet}† reference: the clock — too few CPUs for an isolated reference activity; the rate is the \
             activity's increments per ns over its own alone, in an adjacent window on the same CPU\n"
        );
    }
    for line in footnotes {
        out += &format!("{bullet}{line}\n");
    }
    out
}

/// "0.74 ± 0.02", or for a row of several activities (remote_heavy) "0.05–0.09 (mean 0.07 ± 0.01)"; the
/// ± is the rate scaled by the half-width of the point's CI relative to its median (the rate is inversely
/// proportional to the time per increment), left out when the point has no interval.
fn rate_cell(p: &PointRecord) -> String {
    let Ok(r) = p.result_as::<RemoteResult>() else { return "n/a".into() };
    let rate = r.relative_rate;
    let s = &p.summary;
    let plus_minus = if s.median > 0.0 && s.ci_high > s.ci_low {
        format!(" ± {:.2}", rate * (s.ci_high - s.ci_low) / 2.0 / s.median)
    } else {
        String::new()
    };
    match (r.relative_rate_min, r.relative_rate_max) {
        (Some(min), Some(max)) => format!("{min:.2}–{max:.2} (mean {rate:.2}{plus_minus})"),
        _ => format!("{rate:.2}{plus_minus}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};
    use overhead_record::{SkipKind, SkippedPoint};

    fn remote_point(case: &str, reference: &str, rate: f64) -> PointRecord {
        // The fixture's samples are 0.95…1.05 × the median; its CI is then some fraction of the median.
        let mut p = point("mem.remote", "os", &[("case", case), ("reference", reference)], 10.0);
        p.extra.insert("relative_rate".into(), rate);
        p.extra.insert("windows".into(), 20.0);
        p
    }

    fn record() -> RunRecord {
        let mut record = sample_record();
        record.skipped.clear();
        let mut heavy = remote_point("remote_heavy", "clock", 0.07);
        heavy.extra.insert("relative_rate_min".into(), 0.05);
        heavy.extra.insert("relative_rate_max".into(), 0.09);
        record.points = vec![
            remote_point("local_free", "activity", 1.0),
            remote_point("local_one_remote", "clock", 0.74),
            remote_point("remote_unused", "activity", 0.98),
            remote_point("remote_used", "clock", 0.11),
            heavy,
        ];
        let skip = |case: &str, why: &str| {
            let spec = point("mem.remote", "os", &[("case", case), ("reference", "activity")], 1.0).spec;
            SkippedPoint::new(spec, SkipKind::Skipped, why)
        };
        record.skipped.push(skip("local_many_remote", "needs 4 usable CPUs"));
        record.skipped.push(skip("numa_local", "the machine has one NUMA node"));
        record.skipped.push(skip("numa_remote", "the machine has one NUMA node"));
        record
    }

    #[test]
    fn table_3_layout_with_the_seed_column_and_skips() {
        let record = record();
        let p = &record.points[1];
        let half = 0.74 * (p.summary.ci_high - p.summary.ci_low) / 2.0 / p.summary.median;
        for format in [Format::Md, Format::Table] {
            let text = render(&record, format);
            let header = text.lines().find(|l| l.contains("conditions")).unwrap();
            assert!(
                header.contains("access") && header.contains("rate") && header.contains("Ben-Asher & Feitelson 1991"),
                "{header}"
            );
            let row = |what: &str| text.lines().find(|l| l.contains(what)).unwrap_or_else(|| panic!("{what}: {text}"));
            assert!(row("free memory").contains("1.00"), "{text}");
            let one = row("contention from a single remote");
            assert!(one.contains(&format!("0.74 ± {half:.2} †")) && one.contains("0.74"), "{one}");
            assert!(row("multiple remote").contains("skipped") && row("multiple remote").contains("0.57"));
            assert!(row("with heavy contention").contains("0.05–0.09 (mean 0.07"), "{text}");
            assert!(row("with heavy contention").contains("0.01–0.03"));
            assert!(row("to unused memory").contains("0.98") && row("to unused memory").contains("0.11"));
            assert!(text.contains("contention from multiple remote activities: skipped — needs 4 usable CPUs"));
            assert!(text.contains("† reference: the clock"), "{text}");
            assert!(text.contains("NUMA rows: skipped — the machine has one NUMA node"), "{text}");
            assert!(!text.contains("pointer chase"), "NUMA rows only when measured: {text}");
            // The study's order: local rows, then remote rows, "local"/"remote" once each.
            let free = text.find("free memory").unwrap();
            assert!(free < text.find("to unused memory").unwrap());
            assert!(text.find("to unused memory").unwrap() < text.find("with heavy contention").unwrap());
        }
        assert!(render(&record, Format::Md).starts_with("### mem.remote"));
    }

    #[test]
    fn numa_rows_when_measured() {
        let mut record = record();
        record.skipped.retain(|s| !s.spec.param("case").unwrap().starts_with("numa"));
        record.points.push(remote_point("numa_local", "clock", 1.0));
        record.points.push(remote_point("numa_remote", "clock", 0.55));
        let text = render(&record, Format::Table);
        let remote = text.lines().find(|l| l.contains("first touched on another node")).unwrap();
        assert!(remote.contains("0.55") && !remote.contains('†'), "{remote}");
        assert!(text.contains("remote node"));
    }

    #[test]
    fn empty_without_points() {
        assert!(render(&sample_record(), Format::Md).is_empty());
    }
}
