//! `overhead list`.

use std::process::ExitCode;

use crate::experiments::registry;

/// Prints one line per experiment: ID, what it measures, source, runtimes.
pub fn list() -> anyhow::Result<ExitCode> {
    let mut table = comfy_table::Table::new();
    table.load_preset(comfy_table::presets::NOTHING);
    table.set_header(["ID", "what", "source", "runtimes"]);
    for e in registry() {
        let info = e.info();
        table.add_row([info.id, info.summary, info.source, &e.runtimes().join(",")]);
    }
    println!("{table}");
    Ok(ExitCode::SUCCESS)
}
