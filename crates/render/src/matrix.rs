//! A matrix (`details.matrices`: Ben-Asher & Feitelson 1991 Table 1's relative rates, cross-CPU clock offsets, …) as a
//! labelled grid, with `±` where the method gives an uncertainty and `—` for empty cells, as Table 1 prints
//! its diagonal. Generic: it knows nothing of the experiments.

use comfy_table::{Cell, CellAlignment, ContentArrangement};

use super::table::{new_table, Format};
use overhead_record::Matrix;

/// In a terminal, a matrix with more columns than this is summarised by its extremes (it would not fit
/// a screen); Markdown and the record keep every cell.
pub const MAX_TERMINAL_COLUMNS: usize = 24;

/// One matrix: heading, grid (or, in a terminal when too wide, only the extremes), extremes line.
pub fn render_matrix(point: &str, key: &str, m: &Matrix, format: Format) -> String {
    let heading = format!("{point} — {key}: {} ({})", m.title, m.unit);
    let mut out = match format {
        Format::Table => format!("{heading}\n"),
        Format::Md => format!("### {heading}\n\n"),
    };
    if !m.is_well_formed() {
        out += &format!(
            "(malformed matrix: {} rows for {} row labels, {} column labels; not shown)\n",
            m.values.len(),
            m.row_labels.len(),
            m.col_labels.len()
        );
        return out;
    }
    if format == Format::Table && m.col_labels.len() > MAX_TERMINAL_COLUMNS {
        out += &format!(
            "({} × {} cells: too wide for a terminal; see `overhead report --format md` or the record)\n",
            m.row_labels.len(),
            m.col_labels.len()
        );
    } else {
        out += &format!("{}\n", grid(m, format));
        if format == Format::Md {
            // A line right after a Markdown table would be read as one more row.
            out += "\n";
        }
    }
    if let Some(line) = extremes(m) {
        out += &format!("{line}\n");
    }
    out
}

/// The grid: a header of column labels, one row per row label.
fn grid(m: &Matrix, format: Format) -> String {
    let mut table = new_table(format);
    table.set_content_arrangement(ContentArrangement::Disabled);
    let mut header = vec![String::new()];
    header.extend(m.col_labels.iter().cloned());
    table.set_header(header);
    let signed = m.values.iter().flatten().flatten().any(|&v| v < 0.0);
    for (i, label) in m.row_labels.iter().enumerate() {
        let mut cells = vec![Cell::new(label)];
        for (j, value) in m.values[i].iter().enumerate() {
            let uncertainty = m.uncertainty.as_ref().and_then(|u| u[i][j]);
            cells.push(Cell::new(cell_text(*value, uncertainty, signed)).set_alignment(CellAlignment::Right));
        }
        table.add_row(cells);
    }
    table.to_string()
}

/// `+54`, `-3.20 ±0.500`, `—` for an empty cell. Signs are explicit when the matrix has any negative
/// cell (offsets and relative rates, as Ben-Asher & Feitelson 1991 Table 1 prints them), plain otherwise (counts).
pub fn cell_text(value: Option<f64>, uncertainty: Option<f64>, signed: bool) -> String {
    match (value, uncertainty) {
        (None, _) => "—".into(),
        (Some(v), None) => format_number(v, signed),
        (Some(v), Some(u)) => format!("{} ±{}", format_number(v, signed), format_number(u, false)),
    }
}

/// About three significant digits without an exponent: `1234`, `123`, `12.3`, `1.23`, `0.123`; zero
/// (or what rounds to it) as `0`; with `signed`, a `+` before positive numbers.
pub fn format_number(v: f64, signed: bool) -> String {
    if !v.is_finite() {
        return "n/a".into();
    }
    let magnitude = v.abs();
    if magnitude < 0.0005 {
        return "0".into();
    }
    let digits = match magnitude {
        m if m >= 100.0 => 0,
        m if m >= 10.0 => 1,
        m if m >= 1.0 => 2,
        _ => 3,
    };
    if signed {
        format!("{v:+.digits$}")
    } else {
        format!("{v:.digits$}")
    }
}

/// "min -80 ppm (row 3, column 6); max +80 ppm (row 6, column 3)" over the filled cells, or "every
/// filled cell: 0 count" when they are all equal; `None` when no cell is filled.
fn extremes(m: &Matrix) -> Option<String> {
    let filled = m
        .values
        .iter()
        .enumerate()
        .flat_map(|(i, row)| row.iter().enumerate().filter_map(move |(j, v)| v.map(|v| (v, i, j))));
    let mut min: Option<(f64, usize, usize)> = None;
    let mut max: Option<(f64, usize, usize)> = None;
    for cell in filled {
        if min.is_none_or(|m| cell.0 < m.0) {
            min = Some(cell);
        }
        if max.is_none_or(|m| cell.0 > m.0) {
            max = Some(cell);
        }
    }
    let signed = min.is_some_and(|m| m.0 < 0.0);
    let describe = |(v, i, j): (f64, usize, usize)| {
        format!("{} {} (row {}, column {})", format_number(v, signed), m.unit, m.row_labels[i], m.col_labels[j])
    };
    let (min, max) = (min?, max?);
    if min.0 == max.0 {
        return Some(format!("every filled cell: {} {}", format_number(min.0, signed), m.unit));
    }
    Some(format!("min {}; max {}", describe(min), describe(max)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offsets() -> Matrix {
        let mut m = Matrix::square("offset", "ns", vec!["0".into(), "1".into(), "2".into()]);
        m.values[0][1] = Some(12.5);
        m.values[1][0] = Some(-12.5);
        m.values[0][2] = Some(0.25);
        m.uncertainty = Some(vec![vec![None, Some(40.0), Some(39.96)], vec![Some(41.0), None, None], vec![None; 3]]);
        m
    }

    #[test]
    fn cells_show_sign_uncertainty_and_empty_cells() {
        let text = render_matrix("clock.offset/runtime:os", "offset", &offsets(), Format::Md);
        assert!(text.starts_with("### clock.offset/runtime:os — offset: offset (ns)"), "{text}");
        assert!(text.contains("+12.5 ±40.0"), "{text}");
        assert!(text.contains("-12.5 ±41.0"), "{text}");
        assert!(text.contains("+0.250 ±40.0"), "{text}");
        assert!(text.contains('—'), "the diagonal is shown empty: {text}");
        assert!(text.contains("\n\nmin -12.5 ns (row 1, column 0); max +12.5 ns (row 0, column 1)"), "{text}");
        // One header line, one separator, three rows, all with four cells.
        let grid: Vec<&str> = text.lines().filter(|l| l.starts_with('|')).collect();
        assert_eq!(grid.len(), 5, "{text}");
        assert!(grid.iter().all(|l| l.matches('|').count() == 5), "{text}");
    }

    #[test]
    fn counts_have_no_sign_and_wide_matrices_are_summarised_in_a_terminal() {
        let labels: Vec<String> = (0..MAX_TERMINAL_COLUMNS + 1).map(|i| i.to_string()).collect();
        let mut m = Matrix::square("warps", "count", labels);
        m.values[3][4] = Some(2.0);
        m.values[4][3] = Some(0.0);
        let terminal = render_matrix("p", "warps", &m, Format::Table);
        assert!(terminal.contains("too wide for a terminal"), "{terminal}");
        assert!(terminal.contains("max 2.00 count (row 3, column 4)"), "{terminal}");
        let md = render_matrix("p", "warps", &m, Format::Md);
        assert!(!md.contains("too wide") && md.contains("| 2.00"), "{md}");
        m.values[3][4] = Some(0.0);
        let zeros = render_matrix("p", "warps", &m, Format::Table);
        assert!(zeros.contains("every filled cell: 0 count"), "{zeros}");
    }

    #[test]
    fn malformed_matrices_are_named_not_rendered() {
        let mut m = offsets();
        m.values.pop();
        let text = render_matrix("p", "offset", &m, Format::Table);
        assert!(text.contains("malformed matrix: 2 rows for 3 row labels"), "{text}");
    }

    #[test]
    fn numbers_keep_three_digits() {
        assert_eq!(format_number(1234.4, false), "1234");
        assert_eq!(format_number(54.0, true), "+54.0");
        assert_eq!(format_number(-80.0, true), "-80.0");
        assert_eq!(format_number(0.0001, true), "0");
        assert_eq!(format_number(f64::NAN, false), "n/a");
    }
}
