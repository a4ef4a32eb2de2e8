//! `overhead report RECORD`.

use std::process::ExitCode;

use super::{ReportArgs, UsageError};
use overhead_record::load;
use overhead_report::export::for_record;
use overhead_report::{section, Format, OutputFormat, Section};

/// Prints the report of a record, one section of it, or an export of its points, through the format's
/// exporter (`report::export`). A file that is not a record, or `--table` with a format that is not made
/// of sections (`html`, the exports), is the user's input error (exit 2).
pub fn report(args: ReportArgs) -> anyhow::Result<ExitCode> {
    let mut record = load(&args.record).map_err(|e| UsageError(e.to_string()))?;
    overhead_analysis::analyze(&mut record, &overhead_experiments::CATALOG);
    // clap admits only `all` (no section: the whole record), `summary` and the section keys.
    if args.table == "summary" {
        print!("{}", overhead_report::summary::run_summary(&record, &args.record));
        return Ok(ExitCode::SUCCESS);
    }
    let text = match section(&args.table) {
        None => for_record(args.format).render(&record)?,
        // The sides' verdicts are rows a script reads: the one section with a CSV of its own.
        Some(section) if section.key == "sides" && args.format == OutputFormat::Csv => {
            overhead_report::sides::sides_csv(&record)?
        }
        Some(section) => (section.render)(&record, section_style(section, args.format)?),
    };
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}

/// The text style `--table KEY` renders its section in: that of `--format table` or `md`.
///
/// Errors: any other format, which holds every section and every point (a [`UsageError`] naming both
/// flags and what they take).
fn section_style(section: &Section, format: OutputFormat) -> Result<Format, UsageError> {
    format.text_style().ok_or_else(|| {
        UsageError(format!(
            "--table {} with --format {format}: a section alone is text, for --format table or md; \
             --format {format} holds every section and every point (leave out --table)",
            section.key
        ))
    })
}
