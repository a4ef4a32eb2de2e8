//! No interval of a time or a ratio reaches zero or below anywhere a person reads it (docs/METHOD.md "Two
//! levels"): a record whose processes scatter as a shared host's do (log-normal, sd 0.8 between processes,
//! two to five of them), rendered as the terminal's tables, the summary, Markdown and HTML, and compared with
//! a second such record.

use overhead_analysis::{analyze, merge_processes, Flagging, Process};
use overhead_record::fixture::{point, sample_record};
use overhead_record::{PointRecord, RecordOrder, RunRecord, RunSummary};
use overhead_stats::synthetic::Rng;

use crate::export::for_record;
use crate::{Format, OutputFormat};

const RULES: Flagging = Flagging { noisy_fraction: 0.05, unstable_spread: 0.01, cycle_ns: None };

/// One point of `k` processes whose medians scatter log-normally by `sd` around `median`.
fn noisy_point(rng: &mut Rng, experiment: &str, runtime: &str, median: f64, k: usize, sd: f64) -> PointRecord {
    let processes: Vec<Process> = (1..=k)
        .map(|round| Process {
            record: point(experiment, runtime, &[], median * (sd * rng.normal()).exp()),
            round,
            wall_ms: 10.0,
            started_s: None,
        })
        .collect();
    merge_processes(&processes, &RULES)
}

fn noisy_record(seed: u64) -> RunRecord {
    let mut rng = Rng::new(seed);
    let mut record = sample_record();
    let mut points = Vec::new();
    for (i, k) in [2, 3, 3, 5, 2, 3].into_iter().enumerate() {
        for (experiment, median) in [("msg.ipc", 80_000.0), ("base.call", 40.0), ("sched.switch", 2_000.0)] {
            for runtime in ["os", "fiber-asm", "tokio"] {
                let mut p = noisy_point(&mut rng, experiment, runtime, median * (1.0 + i as f64), k, 0.8);
                p.spec.params.push(("size".into(), i.to_string()));
                p.name = p.spec.name();
                points.push(p);
            }
        }
    }
    record.points = points;
    analyze(&mut record, &RecordOrder);
    record
}

/// Every number in `text` that opens an interval (`a – b`, `[a, b]`) and reads zero or less, with the text
/// around it.
fn intervals_at_or_below_zero(text: &str) -> Vec<String> {
    // A time's low end before its unit and a dash, or a ratio's after a bracket.
    let opens = regex::Regex::new(r"([-−]?[0-9][0-9.]*)\s?[nµm]?s\s?–|[\[(]([-−]?[0-9][0-9.]*)(?:–|,\s)").unwrap();
    opens
        .captures_iter(text)
        .filter(|c| {
            let whole = c.get(0).unwrap();
            let number = c.get(1).or(c.get(2)).unwrap();
            let starts_a_number = !text[..whole.start()].ends_with(|c: char| c.is_alphanumeric() || c == '.');
            starts_a_number && number.as_str().replace('−', "-").parse::<f64>().is_ok_and(|x| x <= 0.0)
        })
        .map(|c| {
            let m = c.get(0).unwrap();
            let from = text.floor_char_boundary(m.start().saturating_sub(60));
            text[from..text.ceil_char_boundary((m.end() + 20).min(text.len()))].to_string()
        })
        .collect()
}

#[test]
fn no_rendered_interval_of_a_time_or_ratio_reaches_zero() {
    let record = noisy_record(51);
    assert!(record.points.iter().all(|p| p.summary.ci_low > 0.0), "every interval positive in the record");
    let mut texts = vec![
        crate::render(&record, Format::Table),
        crate::render(&record, Format::Md),
        crate::summary::run_summary(&record, std::path::Path::new("results.json")),
    ];
    texts.push(for_record(OutputFormat::Html).render(&record).unwrap());
    for text in &texts {
        let bad = intervals_at_or_below_zero(text);
        assert!(bad.is_empty(), "intervals at or below zero: {bad:?}");
    }
    // A comparison's changes are ratios: their interval never reaches −100%.
    let a = RunSummary::of_record(&record, "a");
    let b = RunSummary::of_record(&noisy_record(52), "b");
    let sides: Vec<overhead_analysis::compare::ComparedRuns> = [a, b]
        .into_iter()
        .map(|r| overhead_analysis::compare::ComparedRuns {
            label: r.label.clone(),
            runs: vec![r],
            level: overhead_analysis::run_level::RunLevel::assumed(),
        })
        .collect();
    let comparison = overhead_analysis::compare::compare(&sides);
    let text = crate::compare_tables(&comparison, Format::Table);
    let changes = regex::Regex::new(r"\[([-+][0-9.]+)%, ([-+][0-9.]+)%\]").unwrap();
    let lows: Vec<f64> = changes.captures_iter(&text).map(|c| c[1].parse().unwrap()).collect();
    assert!(!lows.is_empty(), "the comparison shows changes with intervals:\n{text}");
    assert!(lows.iter().all(|&low| low > -100.0), "{lows:?}");
}

/// The search itself finds what it looks for.
#[test]
fn the_search_finds_an_interval_below_zero() {
    assert_eq!(intervals_at_or_below_zero("89.0 µs, −27.6 µs – 206 µs").len(), 1);
    assert_eq!(intervals_at_or_below_zero("switch ×216 [−82.46, 578]").len(), 1);
    assert!(intervals_at_or_below_zero("81.1 µs  21.8 µs – 301 µs; ×1.2 [0.8, 1.9]").is_empty());
}
