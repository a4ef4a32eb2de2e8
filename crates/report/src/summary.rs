//! What `overhead run` prints when it is done: one screen (at most [`MAX_LINES`] lines), as hyperfine prints
//! a few lines per command and lmbench's summary fits a terminal. The machine and what the host did, the
//! warnings once, the points' flags counted, the key costs the HTML page opens with, the runtimes against the
//! reference on Souvatzis's switch-bound rows, the cheapest implementation of each kind, the findings that
//! matter, and the commands that show the rest. `overhead run --verbose` prints the full report instead.

use overhead_humanize::format_ratio;
use std::fmt::Write as _;
use std::path::Path;

use overhead_analysis::op_counts::Finding;
use overhead_record::RunRecord;

use super::format_ns;
use super::html::headline::headline;
use super::table::{completion, flags_of, machine_shape};

/// The screen's length limit for the summary and the record's path after it, in lines of at most [`WIDTH`]
/// characters: one screen of a 120 × 40 terminal and then some.
pub const MAX_LINES: usize = 60;

/// The line `overhead run` prints after the summary: the record's path, so that a script takes the last line.
const RECORD_LINE: usize = 1;

/// The summary's width: a longer line is wrapped at a space, its continuation indented.
pub const WIDTH: usize = 118;

/// How many lines each list may take before it says how many more there are.
const KEY_COSTS: usize = 12;
const COMPARISONS: usize = 6;
const CHOICES: usize = 6;
const FINDINGS: usize = 4;
/// A key cost's detail is cut after this many characters (the page has it whole).
const DETAIL: usize = 48;

/// The summary of `record`, written at `record_path` (its `results.json`).
pub fn run_summary(record: &RunRecord, record_path: &Path) -> String {
    // The lists give way, the choices first, until the screen holds it all (a run with many warnings).
    let mut budget = Budget { comparisons: COMPARISONS, choices: CHOICES };
    loop {
        let text = summary_within(record, record_path, budget);
        if text.lines().count() + RECORD_LINE <= MAX_LINES || budget.comparisons == 0 {
            return text;
        }
        match budget.choices {
            0 => budget.comparisons -= 1,
            _ => budget.choices -= 1,
        }
    }
}

/// How many lines the runtimes' comparisons and the choices may take.
#[derive(Debug, Clone, Copy)]
struct Budget {
    comparisons: usize,
    choices: usize,
}

/// The summary with at most `budget` lines of comparisons and choices, wrapped at [`WIDTH`].
fn summary_within(record: &RunRecord, record_path: &Path, budget: Budget) -> String {
    let mut out = compact_header(record);
    out += &flag_counts(record);
    out += &key_costs(record);
    out += &comparisons(record, budget.comparisons);
    out += &choices(record, budget.choices);
    out += &findings(record);
    out += &more(record, record_path);
    out.lines().flat_map(|l| wrap(l, WIDTH)).map(|l| l + "\n").collect()
}

/// `line` in lines of at most `width` characters, broken at spaces; each continuation indented four spaces
/// more than the line. A word longer than the width stays whole.
fn wrap(line: &str, width: usize) -> Vec<String> {
    let lead = line.len() - line.trim_start().len();
    let mut out = Vec::new();
    let mut current = line[..lead].to_string();
    let mut has_word = false;
    for word in line[lead..].split(' ') {
        if has_word && current.chars().count() + 1 + word.chars().count() > width {
            out.push(std::mem::take(&mut current));
            current = " ".repeat(lead + 4);
            has_word = false;
        }
        if has_word {
            current.push(' ');
        }
        current += word;
        has_word = true;
    }
    out.push(current);
    out
}

/// The facts of the full report's header in a few lines: the machine, the mode, the machine's speed and
/// state, the host's states and spread, every warning once. What an interval covers and the time source's
/// details are in the full report.
fn compact_header(record: &RunRecord) -> String {
    let m = &record.machine;
    let kernel = m.kernel.split(" #").next().unwrap_or(&m.kernel);
    let mut out = format!("overhead run on {}: {}, kernel {kernel}\n", m.host_name, machine_shape(m));
    let rounds =
        record.rounds.map_or(String::new(), |r| format!(", {}–{} processes per point", r.min_rounds, r.max_rounds));
    let started: String = record.started_utc.chars().take(19).collect::<String>().replace('T', " ");
    let _ = writeln!(out, "  {:?} mode{rounds}, started {started} UTC{}", record.mode, completion(record));
    if let Some(s) = &record.speed {
        let lo = s.course.iter().map(|w| w.median_ns).fold(f64::INFINITY, f64::min);
        let hi = s.course.iter().map(|w| w.median_ns).fold(0.0, f64::max);
        let course =
            if s.course.len() >= 2 { format!(", {lo:.4}–{hi:.4} ns between 5 s windows") } else { String::new() };
        let _ = writeln!(out, "  speed: the reference loop {:.4} ns per iteration{course}", s.median_ns);
    }
    if let Some(state) = &record.machine_state {
        let _ = writeln!(
            out,
            "  machine state: other processes took at most {:.1}% of a measured CPU, steal at most {:.1}%",
            state.max_other() * 100.0,
            state.max_steal() * 100.0
        );
    }
    if let Some(line) = super::host_states::header_line(record) {
        let _ = writeln!(out, "  host states: {}", line.split("; fingerprints").next().unwrap_or(&line));
    }
    if let Some(spread) = &record.host_spread {
        let absolute = record.points.iter().filter(|p| p.noisy || p.unstable).count();
        let shown = record.points.iter().filter(|p| p.shown_noisy() || p.shown_unstable()).count();
        let _ = writeln!(
            out,
            "  spread: processes of one point differ by {:.0}% here; {shown} points are noisy or unstable beyond {}× \
             their family's typical spread ({absolute} by the fixed thresholds)",
            spread.process_spread * 100.0,
            spread.factor
        );
    }
    for w in record.warnings.iter().chain(&record.speed_warning) {
        let _ = writeln!(out, "  warning: {}", first_sentences(w, WARNING_CHARS));
    }
    out
}

/// A warning's characters shown at most: two lines (the full report has every word).
const WARNING_CHARS: usize = 180;

/// `text` cut after the last sentence that ends within `limit` characters, else at `limit` with "…"; whole
/// when it is short enough.
fn first_sentences(text: &str, limit: usize) -> String {
    if text.chars().count() <= limit {
        return text.to_string();
    }
    let head: String = text.chars().take(limit).collect();
    match head.rfind(". ").or_else(|| head.rfind("; ")) {
        Some(at) if at > limit / 3 => format!("{}… (the full report has the rest)", &head[..at + 1]),
        _ => format!("{}…", head.trim_end()),
    }
}

/// One line: how many points carry each flag, and how many cells have no result.
fn flag_counts(record: &RunRecord) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for p in &record.points {
        for flag in flags_of(p).into_iter().filter(|f| *f != "notes") {
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
        let detail = match c.detail.char_indices().nth(DETAIL) {
            _ if c.detail.is_empty() => String::new(),
            Some((cut, _)) => format!("  {}…", &c.detail[..cut]),
            None => format!("  {}", c.detail),
        };
        let pad = width - c.label.chars().count();
        let _ = writeln!(out, "  {}{}  {:>10}  {}{detail}{flags}", c.label, " ".repeat(pad), c.value, c.ci);
    }
    out
}

/// Each runtime against the reference on Souvatzis's switch-bound rows.
fn comparisons(record: &RunRecord, shown: usize) -> String {
    let Some(first) = record.comparisons.first() else { return String::new() };
    let mut out = format!(
        "\nRuntimes against {} on Souvatzis's switch-bound rows (geometric mean; the switch round trip)\n",
        first.reference
    );
    for c in record.comparisons.iter().take(shown) {
        let switch = c.raw_switch.map_or(String::new(), |r| {
            format!("; switch ×{} [{}, {}]", format_ratio(r.ratio), format_ratio(r.low), format_ratio(r.high))
        });
        let _ =
            writeln!(out, "  {}: ×{} over {} rows{switch}", c.runtime, format_ratio(c.switch_bound_geomean), c.rows);
    }
    out += &more_line(record.comparisons.len(), shown, "primitives");
    out
}

/// The cheapest implementation of each kind: one line per choice table, its best group first.
fn choices(record: &RunRecord, shown: usize) -> String {
    if record.choices.is_empty() {
        return String::new();
    }
    let mut out =
        "\nThe cheapest implementation of each kind (the fastest; the next outside its CI, by its ratio)\n".to_string();
    for t in record.choices.iter().take(shown) {
        let name = |c: &overhead_record::Candidate| c.implementation.clone().unwrap_or_else(|| c.label());
        let Some(best) = t.candidates.first() else { continue };
        let tied: Vec<String> = t.best_group().skip(1).map(name).collect();
        let tied = if tied.is_empty() { String::new() } else { format!(" (tied within the CIs: {})", tied.join(", ")) };
        let runner_up = t.candidates.iter().find(|c| !t.best_group().any(|b| b.point == c.point));
        let next = runner_up
            .and_then(|c| Some(format!("; next {} ×{}", name(c), format_ratio(c.ratio?.ratio))))
            .unwrap_or_default();
        let setting = t.setting_text();
        let at = if setting.is_empty() { String::new() } else { format!(" {setting}") };
        let _ = writeln!(out, "  {}{at}: {} {}{tied}{next}", t.experiment, name(best), format_ns(best.median_ns));
    }
    out += &more_line(record.choices.len(), shown, "choose");
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
    if contradictions.is_empty() {
        return format!(
            "\nThe kernel's counts: {others} statements (switches, faults, migrations, kernel time), none contradicting \
             a runtime's claim: overhead report RECORD --table counts\n"
        );
    }
    let mut out = "\nThe kernel's counts contradict\n".to_string();
    for line in contradictions.iter().take(FINDINGS) {
        let _ = writeln!(out, "  {line}");
    }
    if contradictions.len() > FINDINGS {
        let _ = writeln!(out, "  … {} more", contradictions.len() - FINDINGS);
    }
    let _ = writeln!(out, "  and {others} other statements: overhead report RECORD --table counts");
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
    let mut out =
        format!("\nThe page: {} (a browser shows the figures); the record is the last line\n", page.display());
    let _ = writeln!(out, "  every point and every section:  overhead report {path} --table all");
    if record.sides.is_some() {
        let _ = writeln!(out, "  the sides against the baseline:  overhead report {path} --table sides");
    }
    let _ = writeln!(out, "  one section:  overhead report {path} --table choose|counts|host_states|primitives|…");
    let _ = writeln!(out, "  the full report at the end of a run:  overhead run … --verbose");
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
        assert!(text.lines().all(|l| l.chars().count() <= WIDTH || !l.trim().contains(' ')), "{text}");
        assert!(text.contains("overhead run on ") && text.contains("Key costs"), "{text}");
        assert!(text.contains("overhead report /tmp/r/results.json --table all"), "{text}");
        assert!(text.contains("/tmp/r/report.html"), "{text}");
        assert!(text.contains(&format!("points: {} measured", record.points.len())), "{text}");
        assert!(!text.to_lowercase().contains("seed"), "{text}");
    }

    #[test]
    fn long_lines_wrap_at_spaces_with_an_indent() {
        let line = format!("  {}", ["word"; 40].join(" "));
        let wrapped = wrap(&line, 30);
        assert!(wrapped.len() > 1 && wrapped.iter().all(|l| l.chars().count() <= 30), "{wrapped:?}");
        assert!(wrapped[1].starts_with("      word"), "{wrapped:?}");
        assert_eq!(wrapped.join(" ").split_whitespace().count(), 40, "no word lost");
        assert_eq!(wrap("short", 30), ["short"]);
        assert_eq!(wrap("", 30), [""]);
    }

    /// Long warnings are cut and the lists give way: the screen holds at most MAX_LINES lines.
    #[test]
    fn many_long_warnings_still_fit_a_screen() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/quick-run.json");
        let mut record = overhead_record::load(&path).unwrap();
        overhead_analysis::analyze(&mut record, &overhead_experiments::CATALOG);
        let long = "a warning that goes on and on about the machine. ".repeat(20);
        record.warnings = vec![long.clone(), long.clone(), long.clone(), long];
        let text = run_summary(&record, Path::new("r/results.json"));
        // The record's path follows on the screen.
        assert!(text.lines().count() < MAX_LINES, "{} lines:\n{text}", text.lines().count());
        assert!(text.contains("(the full report has"), "{text}");
        assert!(text.trim_end().ends_with("--verbose"), "{text}");
    }

    #[test]
    fn a_long_text_is_cut_after_a_sentence() {
        assert_eq!(first_sentences("short.", 20), "short.");
        let cut = first_sentences("One sentence here. Another one that is long enough to pass.", 30);
        assert_eq!(cut, "One sentence here.… (the full report has the rest)");
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
