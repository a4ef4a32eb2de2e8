//! `overhead report RECORD`.

use std::process::ExitCode;

use super::{ReportArgs, UsageError};
use crate::record::load;
use crate::report::{render, section};

/// Prints the report of a record, or one section of it. A file that is not a record is the user's input
/// error (exit 2).
pub fn report(args: ReportArgs) -> anyhow::Result<ExitCode> {
    let mut record = load(&args.record).map_err(|e| UsageError(e.to_string()))?;
    crate::analysis::analyze(&mut record);
    match section(&args.table) {
        Some(section) => print!("{}", (section.render)(&record, args.format)),
        // clap admits only `all` and the section keys.
        None => print!("{}", render(&record, args.format)),
    }
    Ok(ExitCode::SUCCESS)
}
