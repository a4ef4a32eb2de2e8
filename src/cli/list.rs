//! `overhead list`.

use std::process::ExitCode;

use crate::experiments::registry;
use crate::runtimes;

/// Prints one line per experiment: ID, what it measures, source, runtimes.
pub fn list() -> anyhow::Result<ExitCode> {
    let mut table = comfy_table::Table::new();
    table.load_preset(comfy_table::presets::NOTHING);
    table.set_header(["ID", "what", "source", "runtimes"]);
    for e in registry() {
        let info = e.info();
        let runs: Vec<&str> = runtimes::registry()
            .iter()
            .filter(|r| runtimes::missing(**r, e.requires()).is_none() && r.refuses(e.id()).is_none())
            .map(|r| r.name())
            .collect();
        table.add_row([info.id, info.summary, info.source, &runs.join(",")]);
    }
    println!("{table}");
    Ok(ExitCode::SUCCESS)
}
