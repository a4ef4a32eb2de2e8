//! One figure of the HTML page: a plot ([`super::plot`]) with its title, caption lines and legend, and the
//! pieces figures share (anchors, a labelled table as grouped bars). Generic: the report's groups of figures
//! and the experiments' own fill them from the record.

use serde::Serialize;

use super::plot::{bars_legend, bars_svg, LegendEntry};
use overhead_record::LabelledTable;

/// One plot with its title and caption lines.
#[derive(Debug, Serialize)]
pub struct Figure {
    /// The anchor: `fig-` and the plot's subject.
    pub id: String,
    pub title: String,
    pub caption: Vec<String>,
    /// The plot, an `<svg>` element.
    pub svg: String,
    /// Its series' colours and names, shown under it.
    pub legend: Vec<LegendEntry>,
}

/// `text` as an anchor fragment: lower-case letters, digits and dashes.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

/// A labelled table as grouped bars, with their legend: its rows are the categories (`row_axis` says what they
/// are), its columns the bars of each.
pub fn table_bars(title: &str, row_axis: &str, table: &LabelledTable) -> anyhow::Result<(String, Vec<LegendEntry>)> {
    let categories: Vec<String> = table.rows.iter().map(|(label, _)| label.clone()).collect();
    let groups: Vec<(String, Vec<f64>)> = table
        .columns
        .iter()
        .enumerate()
        .map(|(j, column)| {
            (
                column.clone(),
                table.rows.iter().map(|(_, cells)| cells.get(j).copied().flatten().unwrap_or(0.0)).collect(),
            )
        })
        .collect();
    Ok((bars_svg(title, &table.unit, row_axis, &categories, &groups)?, bars_legend(&groups)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_anchor_safe() {
        assert_eq!(slug("msg.ipc — placement:same_cpu"), "msg-ipc-placement-same-cpu");
        assert_eq!(slug("mem.c2c/runtime:os/op:cas — rtt"), "mem-c2c-runtime-os-op-cas-rtt");
    }
}
