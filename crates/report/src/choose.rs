//! The report's `choose` section: each choice table the analysis derived
//! (`RunRecord::choices`, `overhead_analysis::choose`), its implementations ranked by median with the ratio
//! to the fastest and the verdict — best, tied with best, slower — in the terminal and Markdown styles
//! (docs/METHOD.md "Choosing an implementation"). The HTML page draws the same tables as bar charts
//! (`html/choose.rs`).

use comfy_table::{Cell, CellAlignment};
use overhead_humanize::format_ratio;

use super::{format_ns, new_table, Format};
use overhead_record::{Candidate, ChoiceTable, RatioCi, RunRecord, SkipKind, Verdict};

/// The section's caption: what the columns and the verdicts mean.
pub const CAPTION: &str = "Each table is one primitive at one setting, its implementations (runtime / implementation) \
ranked by median. best: the lowest median. tied with best: its ratio to the best's median has a 95% interval that \
includes 1, so this run cannot tell the two apart; the interval is conservative, built from both points' 95% CIs \
(this one's low end over the best's high end to its high end over the best's low end), or, marked ‡, the \
narrower paired one from the two points' processes of the same rounds (Student's t over the pairs); a tie is \
a difference not shown, not an equality. ×k slower: the whole interval lies above 1. When the best's CI reaches zero the \
interval has no upper end (≥ ×k) and its low end alone decides; undecided: no interval at all (the best's CI lies \
at or below zero). Flags as in the results table: a flagged best or tie is only as sure as its flags allow. cs/op and kernel: context switches per \
operation of every thread of the probe process and the kernel's share of its CPU time (the section on the kernel's counts).";

/// `×1.05 (0.91–1.28)`: a ratio with its interval.
pub(crate) fn ratio_with_interval(r: &RatioCi) -> String {
    format!("×{} ({}–{})", format_ratio(r.ratio), format_ratio(r.low), format_ratio(r.high))
}

/// The ratio column: `×1.05 (0.91–1.28)`, then ` ‡` when the interval is the paired one; `≥ ×4.50 (no upper end)` when the best's CI reaches zero; `—`
/// for the best and where there is no interval.
pub fn ratio_column(c: &Candidate) -> String {
    let paired = if c.paired_rounds.is_some() { " ‡" } else { "" };
    match (&c.ratio, c.open_low) {
        (Some(r), _) => ratio_with_interval(r) + paired,
        (None, Some(low)) => format!("≥ ×{} (no upper end)", format_ratio(low)),
        (None, None) => "—".into(),
    }
}

/// The verdict as the tables say it: `best`, `tied with best`, `×1.80 slower` (`≥ ×4.50 slower` when the
/// interval has no upper end), `undecided`.
pub fn verdict_text(c: &Candidate) -> String {
    match (c.verdict, &c.ratio, c.open_low) {
        (Verdict::Best, ..) => "best".into(),
        (Verdict::Tied, ..) => "tied with best".into(),
        (Verdict::Slower, Some(r), _) => format!("×{} slower", format_ratio(r.ratio)),
        (Verdict::Slower, None, Some(low)) => format!("≥ ×{} slower", format_ratio(low)),
        (Verdict::Slower, None, None) => "slower".into(),
        (Verdict::Undecided, ..) => "undecided".into(),
    }
}

/// A table's heading: `sync.mutex, threads:2 — ns per operation`.
pub fn heading(t: &ChoiceTable) -> String {
    let setting = t.setting_text();
    let at = if setting.is_empty() { String::new() } else { format!(", {setting}") };
    format!("{}{at} — time {}", t.experiment, t.metric.time_per())
}

/// One table: rank, implementation, median, CI, ratio to the best, verdict, flags; then the candidates of
/// the setting that have no result.
fn table(t: &ChoiceTable, record: &RunRecord, format: Format) -> String {
    let mut table = new_table(format);
    table.set_header([
        "rank",
        "implementation",
        "median",
        "95% CI",
        "÷ best (95%)",
        "verdict",
        "cs/op",
        "kernel",
        "flags",
    ]);
    let right = |text: String| Cell::new(text).set_alignment(CellAlignment::Right);
    for (i, c) in t.candidates.iter().enumerate() {
        let point = record.points.iter().find(|p| p.name == c.point);
        table.add_row([
            right((i + 1).to_string()),
            Cell::new(c.label()),
            right(format_ns(c.median_ns)),
            right(format!("{} – {}", format_ns(c.ci_low_ns), format_ns(c.ci_high_ns))),
            right(ratio_column(c)),
            Cell::new(verdict_text(c)),
            right(point.map_or("—".into(), super::counts::switches_cell)),
            right(point.map_or("—".into(), super::counts::kernel_cell)),
            Cell::new(c.flags.iter().map(|f| f.name()).collect::<Vec<_>>().join(",")),
        ]);
    }
    let mut out = match format {
        Format::Table => format!("{}\n{table}\n", heading(t)),
        Format::Md => format!("### {}\n\n{table}\n\n", heading(t)),
    };
    let bullet = if format == Format::Md { "- " } else { "  " };
    for n in &t.not_measured {
        let kind = match n.kind {
            SkipKind::Skipped => "skipped",
            SkipKind::Failed => "failed",
            SkipKind::TimedOut => "timed out",
        };
        out += &format!("{bullet}not measured: {} — {kind}: {}\n", n.label(), n.reason);
    }
    if !t.not_measured.is_empty() && format == Format::Md {
        out += "\n";
    }
    out
}

/// Every choice table of the record, then the caption; empty when the record has none (no primitive with
/// two implementations measured at one setting).
pub fn choose_section(record: &RunRecord, format: Format) -> String {
    if record.choices.is_empty() {
        return String::new();
    }
    let tables: String = record.choices.iter().map(|t| table(t, record, format)).collect();
    format!("{tables}{CAPTION}\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};

    fn record() -> RunRecord {
        let mut record = sample_record();
        let mutex = |lock: &str, (low, median, high): (f64, f64, f64)| {
            let mut p = point("sync.mutex", "os", &[("lock", lock), ("threads", "2")], median);
            (p.summary.ci_low, p.summary.ci_high) = (low, high);
            p
        };
        record.points = vec![mutex("std", (40.0, 50.0, 60.0)), mutex("futex", (30.0, 38.0, 45.0))];
        record.points.push(mutex("spin", (90.0, 95.0, 100.0)));
        record.points[2].noisy = true;
        overhead_analysis::analyze(&mut record, &overhead_experiments::CATALOG);
        record
    }

    #[test]
    fn ranks_with_ratio_verdict_and_flags_in_both_formats() {
        let record = record();
        for format in [Format::Table, Format::Md] {
            let text = choose_section(&record, format);
            assert!(text.contains("sync.mutex, threads:2 — time per operation"), "{text}");
            let lines: Vec<&str> = text.lines().collect();
            let row =
                |label: &str| *lines.iter().find(|l| l.contains(label)).unwrap_or_else(|| panic!("{label}: {text}"));
            assert!(row("os / futex").contains("best"), "{text}");
            // std: 50/38 with 40/45 – 60/30: tied.
            assert!(
                row("os / std").contains("×1.32 (0.89–2.00)") && row("os / std").contains("tied with best"),
                "{text}"
            );
            assert!(row("os / spin").contains("×2.50 slower") && row("os / spin").contains("noisy"), "{text}");
            assert!(text.contains("includes 1"), "the caption says what a tie is");
        }
        let mut empty = sample_record();
        overhead_analysis::analyze(&mut empty, &overhead_experiments::CATALOG);
        assert!(choose_section(&empty, Format::Table).is_empty(), "one candidate is no choice");
    }
}
