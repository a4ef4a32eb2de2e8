//! `overhead report RECORD`.

use std::process::ExitCode;

use super::{ReportArgs, ReportTable, UsageError};
use crate::record::load;
use crate::report::{primitives_table, render, seed001_tables};

/// Prints the report of a record. A file that is not a record is the user's input error (exit 2).
pub fn report(args: ReportArgs) -> anyhow::Result<ExitCode> {
    let record = load(&args.record).map_err(|e| UsageError(e.to_string()))?;
    match args.table {
        ReportTable::All => print!("{}", render(&record, args.format)),
        ReportTable::Primitives => print!("{}", primitives_table(&record, args.format)),
        ReportTable::Seed001 => print!("{}", seed001_tables(&record, args.format)),
    }
    Ok(ExitCode::SUCCESS)
}
