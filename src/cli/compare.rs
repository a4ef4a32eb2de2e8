//! `overhead compare A.json B.json [C.json …]`: every point of B, C, … against A; a side may be several
//! replicates joined by commas. The run level comes from the replicates, else the machine's history, else
//! the measured defaults (docs/METHOD.md §13).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::{CompareArgs, UsageError};
use overhead_analysis::compare::{compare as compare_sides, ComparedRuns, Comparison};
use overhead_analysis::gate::{comparison_failures, side_failures, unjudged_failure, Failure, Gate, Judged};
use overhead_analysis::run_level::of_history;
use overhead_analysis::run_level::{RunLevel, RunLevelSource};
use overhead_history::{default_path, History};
use overhead_record::{load, load_summaries, PointRunSummary, RecordError, RunSummary};
use overhead_report::export::{for_comparison, Exporter};
use overhead_report::OutputFormat;

/// Prints the comparison. An unreadable or foreign file, or an empty side, is the user's input error
/// (exit 2).
pub fn compare(args: CompareArgs) -> anyhow::Result<ExitCode> {
    let mut gate =
        args.fail_on.as_deref().map(|spec| Gate::parse(spec, args.fail_on_points)).transpose().map_err(UsageError)?;
    if let Some(pct) = args.fail_on_unjudged.as_deref() {
        gate = gate.map(|g| g.with_max_unjudged(pct)).transpose().map_err(UsageError)?;
    }
    if let [one] = &args.records[..] {
        return compare_sides_of(Path::new(one), args.format, gate);
    }
    let runs: Vec<(String, Vec<RunSummary>)> = args
        .records
        .iter()
        .map(|side| {
            let paths: Vec<&str> = side.split(',').filter(|p| !p.is_empty()).collect();
            if paths.is_empty() {
                return Err(UsageError(format!("{side:?}: expected a record's path, or several joined by commas")));
            }
            let runs = paths.iter().map(|p| read_run(Path::new(p))).collect::<Result<Vec<_>, _>>()?;
            Ok((side.clone(), runs))
        })
        .collect::<Result<_, UsageError>>()?;
    if let Some(note) = modes_note(&runs) {
        eprintln!("{note}");
    }
    let levels = run_levels(&runs, args.no_history);
    let sides: Vec<ComparedRuns> =
        runs.into_iter().zip(levels).map(|((label, runs), level)| ComparedRuns { label, runs, level }).collect();
    let comparison = compare_sides(&sides);
    print!("{}", comparison_exporter(args.format)?.render(&comparison)?);
    let judged = Judged::of_comparison(&comparison);
    Ok(gate_status(gate.map(|g| (comparison_failures(&comparison, g), g)), judged))
}

/// A note when the records were made in different modes (`quick`, `default`, `full`: the first word of a
/// run's options), `None` when they agree or a mode is unknown (a plain Google Benchmark file). Each mode sizes
/// its batches to its own target (0.25, 0.5 and 1 ms; `msg.throughput`'s streams 2.5 and 5 ms; docs/METHOD.md
/// §1 and §9), so part of a change between them is the mode's.
fn modes_note(runs: &[(String, Vec<RunSummary>)]) -> Option<String> {
    let mode_of = |run: &RunSummary| run.config.as_ref()?.options.split_whitespace().next().map(str::to_string);
    let modes: Vec<(String, String)> = runs
        .iter()
        .flat_map(|(label, side)| side.iter().map(move |run| Some((label.clone(), mode_of(run)?))))
        .collect::<Option<_>>()?;
    let first = &modes.first()?.1;
    if modes.iter().all(|(_, m)| m == first) {
        return None;
    }
    let listed: Vec<String> = modes.iter().map(|(label, mode)| format!("{label}: {mode}")).collect();
    Some(format!(
        "note: the records were made in different modes ({}); each mode sizes its batches to its own target \
         (docs/METHOD.md §1), so part of a change between them is the mode's",
        listed.join(", ")
    ))
}

/// Exit 1 when the gate found failures (each said on stderr) or left more points unjudged than it was
/// allowed, 0 otherwise or without a gate. With a gate, stderr's last line says how many points it judged.
fn gate_status(failures: Option<(Vec<Failure>, Gate)>, judged: Judged) -> ExitCode {
    let Some((failures, gate)) = failures else { return ExitCode::SUCCESS };
    for f in &failures {
        eprintln!("fail: {f}");
    }
    let unjudged = unjudged_failure(judged, gate);
    if let Some(u) = &unjudged {
        eprintln!("fail: {u}");
    }
    eprintln!("{}", judged.verdict_line());
    if failures.is_empty() && unjudged.is_none() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// One record of a run with sides: its sides against its baseline (docs/METHOD.md §17), as the report's
/// `sides` section (`table`, `md`) or the record's page, which opens with them (`html`).
///
/// Errors: the file is not a record, or a record without sides (a [`UsageError`] saying what compare takes).
fn compare_sides_of(path: &Path, format: OutputFormat, gate: Option<Gate>) -> anyhow::Result<ExitCode> {
    let mut record = load(path).map_err(|e| UsageError(e.to_string()))?;
    if record.sides.is_none() {
        return Err(UsageError(format!(
            "{}: a record without sides; compare takes two or more records, or one of a run with --side",
            path.display()
        ))
        .into());
    }
    overhead_analysis::analyze(&mut record, &overhead_experiments::CATALOG);
    let text = match format.text_style() {
        Some(style) => overhead_report::sides::sides_section(&record, style),
        None if format == OutputFormat::Github => overhead_report::export::for_record(format).render(&record)?,
        None => overhead_report::export::for_record(OutputFormat::Html).render(&record)?,
    };
    print!("{text}");
    let ratios = record.sides.as_ref().map(|s| s.ratios.as_slice()).unwrap_or_default();
    Ok(gate_status(gate.map(|g| (side_failures(ratios, g), g)), Judged::of_sides(ratios)))
}

/// The exporter of a comparison in `format`.
///
/// Errors: a format that holds one record's points, not changes between records (clap takes only the
/// others; a [`UsageError`] all the same, naming the flag and what it takes).
fn comparison_exporter(format: OutputFormat) -> Result<&'static dyn Exporter<Comparison>, UsageError> {
    for_comparison(format).ok_or_else(|| {
        let takes: Vec<&str> =
            OutputFormat::ALL.into_iter().filter(|&f| for_comparison(f).is_some()).map(OutputFormat::name).collect();
        UsageError(format!("--format {format}: compare writes {}", takes.join(", ")))
    })
}

/// A record, or a plain Google Benchmark file, as a run summary.
fn read_run(path: &Path) -> Result<RunSummary, UsageError> {
    let label = path.display().to_string();
    match load(path) {
        Ok(record) => Ok(RunSummary::of_record(&record, &label)),
        Err(RecordError::PlainGoogleBenchmark { .. }) => {
            let points = load_summaries(path).map_err(|e| UsageError(e.to_string()))?;
            Ok(RunSummary {
                label,
                started_utc: String::new(),
                config: None,
                speed_ns: None,
                max_other_share: None,
                max_steal_share: None,
                points: points.iter().map(|(n, s)| (n.clone(), PointRunSummary::of(s, 0))).collect(),
                process_wall_ms: Default::default(),
                host_state_rtt_ns: Default::default(),
            })
        }
        Err(e) => Err(UsageError(e.to_string())),
    }
}

/// The run level of each side, in the order of the sources: replicates given on the command line (pooled
/// over the sides that have them); else the history of each side's machine; else the defaults.
fn run_levels(sides: &[(String, Vec<RunSummary>)], no_history: bool) -> Vec<RunLevel> {
    let replicated: Vec<Vec<&RunSummary>> =
        sides.iter().filter(|(_, runs)| runs.len() >= 2).map(|(_, runs)| runs.iter().collect()).collect();
    if !replicated.is_empty() {
        let runs = replicated.iter().map(Vec::len).sum();
        let level = RunLevel::estimate(&replicated, RunLevelSource::Replicates { runs, groups: replicated.len() });
        return vec![level; sides.len()];
    }
    let history = if no_history { None } else { open_history() };
    let compared: Vec<&RunSummary> = sides.iter().flat_map(|(_, runs)| runs).collect();
    sides
        .iter()
        .map(|(_, runs)| {
            let machine = runs.first().and_then(|r| r.config.as_ref()).map(|c| c.machine.clone());
            match (&history, machine) {
                (Some(h), Some(machine)) => match h.load(Some(&machine)) {
                    Ok(mut loaded) => {
                        for d in &loaded.damaged {
                            eprintln!("history: skipped a damaged entry: {d}");
                        }
                        // The records compared are never part of the run level that judges them: their own
                        // difference would widen the interval it is judged by.
                        loaded.entries.retain(|e| !compared.iter().any(|r| same_run(r, &e.summary)));
                        of_history(loaded.entries.iter().map(|e| &e.summary))
                    }
                    Err(e) => {
                        eprintln!("history: could not be read ({e:#}); the run level is assumed");
                        RunLevel::assumed()
                    }
                },
                _ => RunLevel::assumed(),
            }
        })
        .collect()
}

/// Whether two summaries are the same run: the same start time and configuration (a record and its entry in
/// the history carry both; a plain Google Benchmark file, without a start time, is no run of the history).
fn same_run(a: &RunSummary, b: &RunSummary) -> bool {
    !a.started_utc.is_empty() && a.started_utc == b.started_utc && a.config == b.config
}

/// The history, if there is one to read; a problem is told on stderr and the comparison goes on without it.
fn open_history() -> Option<History> {
    let path: PathBuf = default_path()?;
    if !path.exists() {
        return None;
    }
    match History::open(&path) {
        Ok(h) => {
            if let Some(notice) = &h.notice {
                eprintln!("history: {notice}");
            }
            Some(h)
        }
        Err(e) => {
            eprintln!("history: {e:#}; the run level is assumed");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::RunConfig;

    fn run(options: Option<&str>) -> RunSummary {
        RunSummary {
            label: "r".into(),
            started_utc: String::new(),
            config: options.map(|o| RunConfig {
                machine: "m".into(),
                kernel: "k".into(),
                build: "b".into(),
                options: o.into(),
            }),
            speed_ns: None,
            max_other_share: None,
            max_steal_share: None,
            points: Default::default(),
            process_wall_ms: Default::default(),
            host_state_rtt_ns: Default::default(),
        }
    }

    /// Records of two modes get a note naming each side's; one mode, or a file without options, none.
    #[test]
    fn records_of_different_modes_are_noted() {
        let sides =
            |a: Option<&str>, b: Option<&str>| vec![("a".to_string(), vec![run(a)]), ("b".into(), vec![run(b)])];
        let note = modes_note(&sides(Some("quick"), Some("default --only msg"))).expect("a note");
        assert!(note.contains("a: quick, b: default") && note.contains("§1"), "{note}");
        assert_eq!(modes_note(&sides(Some("default"), Some("default --only msg"))), None);
        assert_eq!(modes_note(&sides(Some("quick"), None)), None);
    }
}
