//! A runtime's flavors side by side (tokio's `current_thread` and `multi_thread`, docs/METHOD.md §1): per
//! runtime, every setting two of its flavors measured, each flavor's median and 95% CI, and the later
//! flavor's median over the first's (`overhead_analysis::flavors`).

use comfy_table::{Cell, CellAlignment};

use crate::choose::ratio_with_interval;
use crate::sections::Section;
use overhead_analysis::flavors::{flavor_rows, FlavorRow};
use overhead_humanize::format_ns;
use overhead_record::{PointRecord, RunRecord};
use overhead_render::{new_table, Format};

/// The section: after Ben-Asher & Feitelson's tables, whose constructs the flavors share at one thread.
pub const SECTION: Section = Section {
    key: "flavors",
    title: "A runtime's flavors side by side: what the choice of scheduler costs",
    about: "per runtime with several flavors (tokio's current_thread and multi_thread): each setting both measured, their medians and the ratio",
    position: 22,
    render: flavors_section,
};

/// What the ratio column says.
const LEGEND: &str = "ratio: the second flavor's median over the first's, with a 95% interval (the conservative one \
from both CIs, or the paired one over the processes the two points ran in the same rounds, whichever is narrower); \
an interval that includes 1 is a difference this run does not show.";

/// One table per runtime with flavors; empty when no setting was measured in two flavors.
pub fn flavors_section(record: &RunRecord, format: Format) -> String {
    let rows = flavor_rows(&record.points);
    let mut runtimes: Vec<&str> = Vec::new();
    for row in &rows {
        if !runtimes.contains(&row.runtime) {
            runtimes.push(row.runtime);
        }
    }
    let mut out = String::new();
    for runtime in runtimes {
        let of_runtime: Vec<&FlavorRow> = rows.iter().filter(|r| r.runtime == runtime).collect();
        out += &format!("{}\n", table(&of_runtime, format));
    }
    if !out.is_empty() {
        out += LEGEND;
        out.push('\n');
    }
    out
}

/// The rows of one runtime whose flavors are those of its first row: setting, each flavor's median and CI,
/// the ratio.
fn table(rows: &[&FlavorRow], format: Format) -> comfy_table::Table {
    let flavors: Vec<&str> = rows[0].flavors.iter().map(|(f, _)| *f).collect();
    let mut table = new_table(format);
    let mut header = vec![format!("{}: experiment, setting", rows[0].runtime)];
    header.extend(flavors.iter().map(|f| format!("{f} (95% CI)")));
    header.extend(flavors[1..].iter().map(|f| format!("{f} ÷ {}", flavors[0])));
    table.set_header(header);
    for row in rows {
        let setting: Vec<String> = row.setting.iter().map(|(k, v)| format!("{k}:{v}")).collect();
        let mut cells = vec![Cell::new(format!("{} {}", row.experiment, setting.join(" ")))];
        for flavor in &flavors {
            let point = row.flavors.iter().find(|(f, _)| f == flavor).map(|(_, p)| *p);
            cells.push(right(point.map_or_else(|| "—".to_string(), estimate)));
        }
        cells.extend(row.ratios.iter().map(|r| right(r.as_ref().map_or_else(|| "—".to_string(), ratio_with_interval))));
        table.add_row(cells);
    }
    table
}

/// `240 ns (234 ns – 246 ns)`.
fn estimate(p: &PointRecord) -> String {
    let s = &p.summary;
    format!("{} ({} – {})", format_ns(s.median), format_ns(s.ci_low), format_ns(s.ci_high))
}

fn right(text: String) -> Cell {
    Cell::new(text).set_alignment(CellAlignment::Right)
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};

    /// A record with both flavors of one setting gets a table with their medians and the ratio; one without
    /// gets nothing.
    #[test]
    fn both_flavors_of_a_setting_make_a_row_with_their_ratio() {
        let mut current =
            point("spawn.bulk", "tokio", &[("flavor", "current_thread"), ("tasks", "1000"), ("threads", "1")], 206.0);
        (current.summary.ci_low, current.summary.ci_high) = (203.0, 208.0);
        let mut multi =
            point("spawn.bulk", "tokio", &[("flavor", "multi_thread"), ("tasks", "1000"), ("threads", "1")], 337.0);
        (multi.summary.ci_low, multi.summary.ci_high) = (327.0, 347.0);
        let with = |points: Vec<PointRecord>| RunRecord { points, ..sample_record() };
        let text = flavors_section(&with(vec![current, multi]), Format::Md);
        assert!(text.contains("current_thread (95% CI)") && text.contains("multi_thread ÷ current_thread"), "{text}");
        assert!(text.contains("spawn.bulk tasks:1000 threads:1"), "{text}");
        assert!(text.contains("206 ns (203 ns – 208 ns)") && text.contains("×1.64 (1.57–1.71)"), "{text}");
        let alone =
            point("spawn.bulk", "tokio", &[("flavor", "multi_thread"), ("tasks", "1000"), ("threads", "2")], 390.0);
        assert_eq!(flavors_section(&with(vec![alone]), Format::Md), "");
    }
}
