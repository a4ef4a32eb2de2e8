//! `overhead history`: this machine's runs from the history, and the run level per family learned from
//! them (docs/METHOD.md §13); `--clear` removes them.

use std::process::ExitCode;

use comfy_table::{Cell, CellAlignment};

use super::{HistoryArgs, UsageError};
use overhead_analysis::run_level::of_history;
use overhead_history::{by_config, default_path, History};
use overhead_machine::MachineInfo;
use overhead_record::RunConfig;
use overhead_report::{new_table, Format};

/// Lists or clears the history. Errors: no data folder, or a history that cannot be opened (exit 2 for the
/// former: the user's environment).
pub fn history(args: HistoryArgs) -> anyhow::Result<ExitCode> {
    let path = default_path().ok_or_else(|| UsageError("no data folder for the history: set XDG_DATA_HOME".into()))?;
    let machine = (!args.all_machines).then(|| RunConfig::machine_of(&MachineInfo::detect()));
    let whose = machine.as_deref().map_or("every machine".to_string(), |m| format!("this machine ({m})"));
    if !path.exists() {
        println!("history: {} holds no runs yet (every `overhead run` adds one)", path.display());
        return Ok(ExitCode::SUCCESS);
    }
    let mut history = History::open(&path)?;
    if let Some(notice) = &history.notice {
        eprintln!("history: {notice}");
    }
    if args.clear {
        let removed = history.clear(machine.as_deref())?;
        println!("history: removed {removed} run(s) of {whose} from {}", path.display());
        return Ok(ExitCode::SUCCESS);
    }
    let loaded = history.load(machine.as_deref())?;
    for d in &loaded.damaged {
        eprintln!("history: skipped a damaged entry: {d}");
    }
    println!("history: {} — {} run(s) of {whose}\n", path.display(), loaded.entries.len());
    print!("{}", runs_table(&loaded.entries));
    let groups = by_config(&loaded.entries);
    println!("\n{} configuration(s); runs of one configuration are repetitions of each other:", groups.len());
    for (k, (config, runs)) in groups.iter().enumerate() {
        println!(
            "  {}: {} run(s): {}, kernel {}, build {}",
            k + 1,
            runs.len(),
            config.options,
            config.kernel,
            config.build
        );
    }
    let level = of_history(loaded.entries.iter().map(|e| &e.summary));
    println!("\nRun level per family ({})", level.description());
    print!("{}", families_table(&loaded.entries, &level));
    println!(
        "\nbetween runs: median over the family's points of the half-width of the 95% range of a run's median \
         (within-run error and run level); shift: the sd of the shift the family's points share from run to run; \
         λ: a point's run-level variance beyond the shift in units of its within-run variance; (data): before \
         moderation by the defaults"
    );
    Ok(ExitCode::SUCCESS)
}

fn runs_table(entries: &[overhead_history::Entry]) -> String {
    let mut table = new_table(Format::Table);
    table.set_header([
        "id",
        "started (UTC)",
        "options",
        "build",
        "points",
        "speed (ns/iter)",
        "other",
        "steal",
        "record",
    ]);
    let pct = |x: Option<f64>| x.map_or("—".into(), |x| format!("{:.1}%", x * 100.0));
    for e in entries {
        let s = &e.summary;
        let config = s.config.as_ref();
        let right = |t: String| Cell::new(t).set_alignment(CellAlignment::Right);
        table.add_row(vec![
            right(e.id.to_string()),
            Cell::new(s.started_utc.get(..19).unwrap_or(&s.started_utc)),
            Cell::new(config.map_or("—", |c| c.options.as_str())),
            Cell::new(config.map_or("—", |c| c.build.as_str())),
            right(s.points.len().to_string()),
            right(s.speed_ns.map_or("—".into(), |v| format!("{v:.4}"))),
            right(pct(s.max_other_share)),
            right(pct(s.max_steal_share)),
            Cell::new(&e.record_path),
        ]);
    }
    table.to_string()
}

fn families_table(entries: &[overhead_history::Entry], level: &overhead_analysis::run_level::RunLevel) -> String {
    let mut table = new_table(Format::Table);
    table.set_header([
        "family",
        "points",
        "df",
        "between runs",
        "shift",
        "λ",
        "shift (data)",
        "λ (data)",
        "speed covariate",
    ]);
    let Some(newest) = entries.last() else { return table.to_string() };
    let spreads = level.between_runs_pct(&newest.summary);
    for (family, names) in newest.summary.families() {
        let f = level.family(family);
        let mut spread: Vec<f64> = names.iter().filter_map(|n| spreads.get(*n).copied()).collect();
        spread.sort_by(f64::total_cmp);
        let median = spread.get(spread.len() / 2).map_or("—".into(), |m| format!("±{m:.1}%"));
        let right = |t: String| Cell::new(t).set_alignment(CellAlignment::Right);
        table.add_row(vec![
            Cell::new(family),
            right(names.len().to_string()),
            right(format!("{:.0}", f.df)),
            right(median),
            right(format!("{:.2}%", f.shift_var.sqrt() * 100.0)),
            right(format!("{:.2}", f.lambda)),
            right(f.data.map_or("—".into(), |d| format!("{:.2}%", d.1.sqrt() * 100.0))),
            right(f.data.map_or("—".into(), |d| format!("{:.2}", d.0))),
            Cell::new(&f.speed_decision),
        ]);
    }
    table.to_string()
}
