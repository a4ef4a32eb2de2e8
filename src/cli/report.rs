//! `overhead report RECORD`.

use std::process::ExitCode;

use super::{ReportArgs, ReportTable, UsageError};
use crate::record::load;
use crate::report::{
    convert_table, grain_table, latency_table, matrices_section, primitives_table, render, seed001_tables, timers_table,
};

/// Prints the report of a record. A file that is not a record is the user's input error (exit 2).
pub fn report(args: ReportArgs) -> anyhow::Result<ExitCode> {
    let record = load(&args.record).map_err(|e| UsageError(e.to_string()))?;
    match args.table {
        ReportTable::All => print!("{}", render(&record, args.format)),
        ReportTable::Primitives => print!("{}", primitives_table(&record, args.format)),
        ReportTable::Convert => print!("{}", convert_table(&record, args.format)),
        ReportTable::Matrices => print!("{}", matrices_section(&record, args.format)),
        ReportTable::Latency => print!("{}", latency_table(&record, args.format)),
        ReportTable::Timers => print!("{}", timers_table(&record, args.format)),
        ReportTable::Grain => print!("{}", grain_table(&record, args.format)),
        ReportTable::Seed001 => print!("{}", seed001_tables(&record, args.format)),
    }
    Ok(ExitCode::SUCCESS)
}
