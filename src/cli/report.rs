//! `overhead report RECORD`.

use std::process::ExitCode;

use super::{ReportArgs, ReportFormat, UsageError};
use crate::record::load;
use crate::report::export::ExportFormat;
use crate::report::{render, section, Format};

/// Prints the report of a record, one section of it, or an export of its points. A file that is not a
/// record, or `--table` with an export format, is the user's input error (exit 2).
pub fn report(args: ReportArgs) -> anyhow::Result<ExitCode> {
    let mut record = load(&args.record).map_err(|e| UsageError(e.to_string()))?;
    crate::analysis::analyze(&mut record);
    let format = match args.format {
        ReportFormat::Table => Format::Table,
        ReportFormat::Md => Format::Md,
        ReportFormat::Html => {
            if args.table != "all" {
                return Err(UsageError(format!(
                    "--table {}: the HTML report is one page of every section; use --format table or md for one",
                    args.table
                ))
                .into());
            }
            print!("{}", crate::report::html::html_report(&record)?);
            return Ok(ExitCode::SUCCESS);
        }
        export => {
            if args.table != "all" {
                return Err(UsageError(format!(
                    "--table {}: sections are for --format table or md; an export holds every point",
                    args.table
                ))
                .into());
            }
            print!("{}", export_format(export).exporter().export(&record)?);
            return Ok(ExitCode::SUCCESS);
        }
    };
    match section(&args.table) {
        Some(section) => print!("{}", (section.render)(&record, format)),
        // clap admits only `all` and the section keys.
        None => print!("{}", render(&record, format)),
    }
    Ok(ExitCode::SUCCESS)
}

/// The export an export `--format` names (never called with `table`, `md` or `html`).
fn export_format(format: ReportFormat) -> ExportFormat {
    match format {
        ReportFormat::Csv => ExportFormat::Csv,
        ReportFormat::Bmf => ExportFormat::Bmf,
        _ => ExportFormat::GithubBenchmark,
    }
}
