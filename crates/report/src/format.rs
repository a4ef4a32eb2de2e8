//! What the renderers write: the one output format that `overhead report --format`, `overhead compare
//! --format` and `overhead run --export` name ([`OutputFormat`]), and the style of the text tables inside
//! the terminal and Markdown renderings ([`Format`]). Which formats a command takes follows from the
//! exporters (`report::export`): every format writes a run record; a comparison only where an exporter
//! exists for it.

use overhead_render::Format;

/// One output format, as the command line spells it (`table`, `md`, `html`, `csv`, `bmf`,
/// `github-benchmark`, `github`). Each has an exporter for a run record (`report::export::for_record`); `table`, `md`
/// and `html` also for a comparison (`report::export::for_comparison`); `csv`, `bmf` and `github-benchmark`
/// are the files `overhead run --export` writes beside `results.json` ([`OutputFormat::export_file_name`]), as
/// is `github`, the step summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// Box-drawn tables for a terminal.
    Table,
    /// GitHub-flavoured Markdown.
    Md,
    /// One self-contained HTML page: for a record, key costs, plots, the studies' tables and every point (what
    /// `run` writes as report.html); for a comparison, changes coloured by significance.
    Html,
    /// One CSV row per point.
    Csv,
    /// Bencher Metric Format (JSON).
    Bmf,
    /// github-action-benchmark's customSmallerIsBetter (JSON).
    GithubBenchmark,
    /// A CI step's summary in Markdown, for `$GITHUB_STEP_SUMMARY`: the verdict line, the families and the
    /// flagged points (a run with sides, a comparison), or the run's one-screen summary.
    Github,
}

impl OutputFormat {
    /// Every format, in the order `--help` lists them.
    pub const ALL: [OutputFormat; 7] = [
        OutputFormat::Table,
        OutputFormat::Md,
        OutputFormat::Html,
        OutputFormat::Csv,
        OutputFormat::Bmf,
        OutputFormat::GithubBenchmark,
        OutputFormat::Github,
    ];

    /// The format's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            OutputFormat::Table => "table",
            OutputFormat::Md => "md",
            OutputFormat::Html => "html",
            OutputFormat::Csv => "csv",
            OutputFormat::Bmf => "bmf",
            OutputFormat::GithubBenchmark => "github-benchmark",
            OutputFormat::Github => "github",
        }
    }

    /// The style of the text tables of a terminal (`table`) or Markdown (`md`) rendering; `None` for the
    /// formats that are not made of text sections (HTML, the machine-readable exports).
    pub fn text_style(self) -> Option<Format> {
        match self {
            OutputFormat::Table => Some(Format::Table),
            OutputFormat::Md => Some(Format::Md),
            OutputFormat::Html
            | OutputFormat::Csv
            | OutputFormat::Bmf
            | OutputFormat::GithubBenchmark
            | OutputFormat::Github => None,
        }
    }

    /// The file `overhead run --export` writes for this format next to `results.json`; `None` for the
    /// renderings a run makes anyway (it prints the table and writes `report.html`) or not at all (`md`).
    pub fn export_file_name(self) -> Option<&'static str> {
        match self {
            OutputFormat::Csv => Some("results.csv"),
            OutputFormat::Bmf => Some("results.bmf.json"),
            OutputFormat::GithubBenchmark => Some("results.github-benchmark.json"),
            OutputFormat::Github => Some("results.github.md"),
            OutputFormat::Table | OutputFormat::Md | OutputFormat::Html => None,
        }
    }
}

impl std::fmt::Display for OutputFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn the_names_are_the_command_line_spellings() {
        assert_eq!(OutputFormat::ALL.as_slice(), OutputFormat::value_variants());
        for format in OutputFormat::ALL {
            let value = format.to_possible_value().unwrap();
            assert_eq!(value.get_name(), format.name());
            assert_eq!(OutputFormat::from_str(format.name(), false), Ok(format));
        }
    }

    #[test]
    fn only_the_terminal_and_markdown_renderings_have_a_text_style() {
        let styled: Vec<OutputFormat> = OutputFormat::ALL.into_iter().filter(|f| f.text_style().is_some()).collect();
        assert_eq!(styled, [OutputFormat::Table, OutputFormat::Md]);
    }

    #[test]
    fn the_file_exports_are_csv_bmf_github_benchmark_and_the_step_summary() {
        let files: Vec<&str> = OutputFormat::ALL.into_iter().filter_map(OutputFormat::export_file_name).collect();
        assert_eq!(files, ["results.csv", "results.bmf.json", "results.github-benchmark.json", "results.github.md"]);
    }
}
