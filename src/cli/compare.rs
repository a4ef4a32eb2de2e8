//! `overhead compare A.json B.json [C.json …]`: every point of B, C, … against A.

use std::process::ExitCode;

use super::{CompareArgs, CompareFormat, UsageError};
use crate::analysis::compare::{compare as compare_sides, Side};
use crate::record::load_summaries;
use crate::report::{compare_tables, Format};

/// Prints the comparison. An unreadable or foreign file is the user's input error (exit 2).
pub fn compare(args: CompareArgs) -> anyhow::Result<ExitCode> {
    let sides = args
        .records
        .iter()
        .map(|path| {
            let points = load_summaries(path).map_err(|e| UsageError(e.to_string()))?;
            Ok(Side { label: path.display().to_string(), points })
        })
        .collect::<Result<Vec<_>, UsageError>>()?;
    let comparison = compare_sides(&sides);
    match args.format {
        CompareFormat::Table => print!("{}", compare_tables(&comparison, Format::Table)),
        CompareFormat::Md => print!("{}", compare_tables(&comparison, Format::Md)),
        CompareFormat::Html => print!("{}", crate::report::html::compare_html(&comparison)?),
    }
    Ok(ExitCode::SUCCESS)
}
