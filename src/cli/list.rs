//! `overhead list`.

use std::process::ExitCode;

use overhead_experiments::registry;
use overhead_runtime_registry as runtimes;

/// Prints one line per experiment (ID, what it measures, source, runtimes), then one block per runtime: what
/// it is, whether a plain `overhead run` measures it, and the implementations it offers (the `impl:` and `lock:`
/// values the "choose" tables rank).
pub fn list() -> anyhow::Result<ExitCode> {
    println!("{}", fitted(experiments_table()));
    println!();
    println!("{}", fitted(runtimes_table()));
    Ok(ExitCode::SUCCESS)
}

/// Width the tables wrap to where no terminal says: `$COLUMNS`, else this (a pipe, a file, a CI log).
const DEFAULT_WIDTH: u16 = 120;

/// `table` wrapped to the terminal's width (comfy-table's dynamic arrangement: long cells break between
/// words), or to `$COLUMNS` or [`DEFAULT_WIDTH`] when stdout is not a terminal.
fn fitted(mut table: comfy_table::Table) -> comfy_table::Table {
    table.set_content_arrangement(comfy_table::ContentArrangement::Dynamic);
    if table.width().is_none() {
        let columns = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok());
        table.set_width(columns.unwrap_or(DEFAULT_WIDTH));
    }
    table
}

/// One row per runtime: name, default run or not, what it is, and its implementations one per line.
fn runtimes_table() -> comfy_table::Table {
    let mut table = comfy_table::Table::new();
    table.load_preset(comfy_table::presets::NOTHING);
    table.set_header(["runtime", "default run", "what", "implementations"]);
    for r in runtimes::registry() {
        let implementations: Vec<String> = r
            .offers()
            .implementations()
            .into_iter()
            .map(|(what, key, values)| format!("{what} ({key}): {}", values.join(", ")))
            .collect();
        let default = if r.in_default_run() { "yes" } else { "with --runtime" };
        let name = match r.flavor() {
            Some(flavor) => format!("{} (flavor:{flavor})", r.name()),
            None => r.name().to_string(),
        };
        table.add_row([name.as_str(), default, r.about(), &implementations.join("\n")]);
    }
    table
}

/// One row per experiment: ID, what it measures, source, the runtimes that have a cell for it.
fn experiments_table() -> comfy_table::Table {
    let mut table = comfy_table::Table::new();
    table.load_preset(comfy_table::presets::NOTHING);
    table.set_header(["ID", "what", "source", "runtimes"]);
    for e in registry() {
        let info = e.info();
        let mut runs: Vec<&str> = runtimes::registry()
            .iter()
            .filter(|r| overhead_runtime_api::missing(**r, e.requires()).is_none() && r.refuses(e.id()).is_none())
            .map(|r| r.name())
            .collect();
        // A runtime's flavors sit side by side in the registry: one name each.
        runs.dedup();
        table.add_row([info.id, info.summary, info.source, &runs.join(", ")]);
    }
    table
}
