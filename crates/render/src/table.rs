//! Tables in the style of every report table, and the text formats they are written in: condensed box
//! drawing for a terminal, or GitHub Markdown (comfy-table's presets).

use comfy_table::{presets, Table};

/// How the text renderers draw a table and its headings: box drawing for a terminal, or GitHub Markdown.
/// The text style of `report::OutputFormat`'s `table` and `md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Box-drawn table for a terminal.
    Table,
    /// GitHub-flavoured Markdown.
    Md,
}

/// An empty comfy-table in the style of every report table: condensed box drawing for a terminal, or
/// GitHub Markdown.
pub fn new_table(format: Format) -> Table {
    let mut table = Table::new();
    table.load_preset(match format {
        Format::Table => presets::UTF8_FULL_CONDENSED,
        Format::Md => presets::ASCII_MARKDOWN,
    });
    table
}
