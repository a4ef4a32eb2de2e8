//! What `overhead run` prints when it is done: one screen (at most [`MAX_LINES`] lines), as hyperfine prints
//! a few lines per command and lmbench's summary fits a terminal. The machine and what the host did, the
//! warnings once, the points' flags counted, the key costs the HTML page opens with, the runtimes against the
//! reference on Souvatzis's switch-bound rows, the cheapest implementation of each kind, the findings that
//! matter, and the commands that show the rest. `overhead run --verbose` prints the full report instead.

use std::fmt::Write as _;
use std::path::Path;

use overhead_analysis::op_counts::Finding;
use overhead_record::RunRecord;

use super::choose::ratio_text;
use super::html::headline::headline;
use super::table::{flags_of, header};
use super::{format_ns, Format};

/// The summary's length limit, in lines: one screen of a 120 × 40 terminal and then some.
pub const MAX_LINES: usize = 60;

/// How many lines each list may take before it says how many more there are.
const KEY_COSTS: usize = 12;
const COMPARISONS: usize = 6;
const CHOICES: usize = 8;
const FINDINGS: usize = 4;

/// The summary of `record`, written at `record_path` (its `results.json`).
pub fn run_summary(record: &RunRecord, record_path: &Path) -> String {
    let mut out = header(record, Format::Table);
    out += &flag_counts(record);
    out += &key_costs(record);
    out += &comparisons(record);
    out += &choices(record);
    out += &findings(record);
    out += &more(record, record_path);
    out
}

/// One line: how many points carry each flag, and how many cells have no result.
fn flag_counts(record: &RunRecord) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for p in &record.points {
        for flag in flags_of(p) {
            match counts.iter_mut().find(|(f, _)| *f == flag) {
                Some((_, n)) => *n += 1,
                None => counts.push((flag, 1)),
            }
        }
    }
    let flagged = if counts.is_empty() {
        "no flags".to_string()
    } else {
        counts.iter().map(|(f, n)| format!("{n} {f}")).collect::<Vec<_>>().join(", ")
    };
    let skipped = match record.skipped.len() {
        0 => String::new(),
        n => format!("; {n} cells without a result (skipped, failed or timed out)"),
    };
    format!("  points: {} measured, {flagged}{skipped}\n", record.points.len())
}

/// The key costs, aligned: name, median, CI, what was chosen, flags.
fn key_costs(record: &RunRecord) -> String {
    let cards = headline(record);
    if cards.is_empty() {
        return String::new();
    }
    let width = cards.iter().map(|c| c.label.chars().count()).max().unwrap_or(0);
    let mut out = "\nKey costs (median, 95% CI)\n".to_string();
    for c in cards.iter().take(KEY_COSTS) {
        let flags = if c.flags.is_empty() { String::new() } else { format!("  [{}]", c.flags.join(", ")) };
        let detail = if c.detail.is_empty() { String::new() } else { format!("  {}", c.detail) };
        let pad = width - c.label.chars().count();
        let _ = writeln!(out, "  {}{}  {:>10}  {}{detail}{flags}", c.label, " ".repeat(pad), c.value, c.ci);
    }
    out
}

/// Each runtime against the reference on Souvatzis's switch-bound rows.
fn comparisons(record: &RunRecord) -> String {
    let Some(first) = record.comparisons.first() else { return String::new() };
    let mut out = format!(
        "\nRuntimes against {} on Souvatzis's switch-bound rows (geometric mean; the switch round trip)\n",
        first.reference
    );
    for c in record.comparisons.iter().take(COMPARISONS) {
        let switch = c.raw_switch.map_or(String::new(), |r| {
            format!("; switch ×{} [{}, {}]", ratio_text(r.ratio), ratio_text(r.low), ratio_text(r.high))
        });
        let _ = writeln!(out, "  {}: ×{} over {} rows{switch}", c.runtime, ratio_text(c.switch_bound_geomean), c.rows);
    }
    out += &more_line(record.comparisons.len(), COMPARISONS, "primitives");
    out
}

/// The cheapest implementation of each kind: one line per choice table, its best group first.
fn choices(record: &RunRecord) -> String {
    if record.choices.is_empty() {
        return String::new();
    }
    let mut out = "\nThe cheapest implementation of each kind (its best group; the next by its ratio)\n".to_string();
    for t in record.choices.iter().take(CHOICES) {
        let best: Vec<String> = t
            .best_group()
            .map(|c| format!("{} {}", c.implementation.as_deref().unwrap_or(&c.runtime), format_ns(c.median_ns)))
            .collect();
        let runner_up = t.candidates.iter().find(|c| !t.best_group().any(|b| b.point == c.point));
        let next = runner_up.and_then(|c| {
            Some(format!(
                "; then {} ×{}",
                c.implementation.as_deref().unwrap_or(&c.runtime),
                ratio_text(c.ratio?.ratio)
            ))
        });
        let setting = t.setting_text();
        let at = if setting.is_empty() { String::new() } else { format!(" {setting}") };
        let _ = writeln!(out, "  {}{at}: {}{}", t.experiment, best.join(", "), next.unwrap_or_default());
    }
    out += &more_line(record.choices.len(), CHOICES, "choose");
    out
}

/// What the kernel's counts contradict (a lock-free channel that sleeps, a spin that blocks), first; then how
/// many points have other findings.
fn findings(record: &RunRecord) -> String {
    let mut contradictions = Vec::new();
    let mut others = 0;
    for p in &record.points {
        for f in overhead_analysis::op_counts::findings(p) {
            match f {
                Finding::Contradicts { .. } => contradictions.push(format!("{}: {f}", p.name)),
                _ => others += 1,
            }
        }
    }
    if contradictions.is_empty() && others == 0 {
        return String::new();
    }
    let mut out = "\nFindings of the kernel's counts\n".to_string();
    for line in contradictions.iter().take(FINDINGS) {
        let _ = writeln!(out, "  {line}");
    }
    if contradictions.len() > FINDINGS {
        let _ = writeln!(out, "  … {} more contradictions", contradictions.len() - FINDINGS);
    }
    if others > 0 {
        let _ = writeln!(out, "  {others} other statements (switches, faults, migrations, kernel time)");
    }
    out += "  all of them: overhead report RECORD --table counts\n";
    out
}

/// `… and N more (overhead report RECORD --table KEY)` when a list was cut.
fn more_line(total: usize, shown: usize, key: &str) -> String {
    if total > shown {
        format!("  … and {} more: overhead report RECORD --table {key}\n", total - shown)
    } else {
        String::new()
    }
}

/// Where the page is and the commands that show more. The record's path itself is the last line of what
/// `overhead run` prints, as it always was, so that scripts can take it.
fn more(record: &RunRecord, record_path: &Path) -> String {
    let path = record_path.display();
    let page = record_path.with_file_name("report.html");
    let mut out = format!("\nThe page: {} (a browser shows the figures)\n", page.display());
    let _ = writeln!(out, "  every point and every section:  overhead report {path} --table all");
    if record.sides.is_some() {
        let _ = writeln!(out, "  the sides against the baseline:  overhead report {path} --table sides");
    }
    let _ = writeln!(out, "  one section:  overhead report {path} --table choose|counts|host_states|primitives|…");
    let _ = writeln!(out, "  the full report at the end of a run:  overhead run … --verbose");
    let _ = writeln!(out, "The record:");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::sample_record;

    /// The golden record's summary fits a screen, names where the rest is and keeps the header's facts.
    #[test]
    fn the_summary_fits_a_screen_and_says_where_the_rest_is() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/quick-run.json");
        let mut record = overhead_record::load(&path).unwrap();
        overhead_analysis::analyze(&mut record, &overhead_experiments::CATALOG);
        let text = run_summary(&record, Path::new("/tmp/r/results.json"));
        let lines = text.lines().count();
        assert!(lines <= MAX_LINES, "{lines} lines:\n{text}");
        assert!(text.contains("machine:") && text.contains("Key costs"), "{text}");
        assert!(text.contains("overhead report /tmp/r/results.json --table all"), "{text}");
        assert!(text.contains("/tmp/r/report.html"), "{text}");
        assert!(text.contains(&format!("points: {} measured", record.points.len())), "{text}");
        assert!(!text.to_lowercase().contains("seed"), "{text}");
    }

    /// A record with no points still says what it is and where it is, and nothing else.
    #[test]
    fn an_empty_record_gets_a_header_and_the_commands() {
        let mut record = sample_record();
        record.points.clear();
        let text = run_summary(&record, Path::new("r/results.json"));
        assert!(text.contains("points: 0 measured, no flags") && !text.contains("Key costs"), "{text}");
    }
}
