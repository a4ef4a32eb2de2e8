//! `mem.c2c` as a heat map and a summary per placement class. In a terminal each cell is shaded by its
//! round trip on a linear scale from the fastest to the slowest pair (five shades, a legend below), with
//! the number beside it while the matrix fits a screen, and one shade per cell (CPUs grouped when there
//! are too many) beyond; in Markdown the numbers. Then the `by_class` table: where the fabric's steps are.

use comfy_table::{Cell, CellAlignment, ContentArrangement};

use overhead_record::{LabelledTable, Matrix, PointRecord, RunRecord};
use overhead_render::matrix::{format_number, render_matrix, MAX_TERMINAL_COLUMNS};
use overhead_render::new_table;
use overhead_render::Format;
use overhead_schema::experiments::mem::C2cParams;

/// The shades, lightest (fastest) first.
pub const SHADES: [char; 5] = [' ', '░', '▒', '▓', '█'];
/// A compact heat map has at most this many columns; more CPUs are grouped, a column per group.
pub const MAX_COMPACT_COLUMNS: usize = 128;

/// Every `mem.c2c` point: heading, heat map, legend, class table. Empty when there is none.
pub fn render(record: &RunRecord, format: Format) -> String {
    let points: Vec<&PointRecord> =
        record.points.iter().filter(|p| p.spec.experiment == overhead_schema::experiments::mem::C2C).collect();
    let mut out = String::new();
    for p in points {
        let Some(rtt) = p.details.matrices.get("rtt") else { continue };
        if !out.is_empty() {
            out += "\n";
        }
        let op = p.spec.params_as::<C2cParams>().map_or("?", |q| q.op.name());
        out += &match format {
            Format::Table => heat_map(&format!("mem.c2c op:{op}"), rtt),
            Format::Md => render_matrix(&p.name, "rtt", rtt, Format::Md),
        };
        if let Some(table) = p.details.tables.get("by_class") {
            out += "\n";
            out += &class_table(table, format);
        }
    }
    if !out.is_empty() {
        out += "\nRead: a cell is one line passed there and back; one way is half of it. The classes show the \
                fabric's steps (SMT sibling < same L3 < other L3 < other node < other package); ± is the spread \
                of the median over the run's processes.\n";
    }
    out
}

/// The terminal heat map: a heading, the grid (numbers beside the shades while it fits a screen), and
/// the legend.
pub fn heat_map(heading: &str, m: &Matrix) -> String {
    let mut out = format!("{heading} — {} ({})\n", m.title, m.unit);
    if !m.is_well_formed() {
        return out + "(malformed matrix: not shown)\n";
    }
    let Some(scale) = Scale::of(m) else {
        return out + "(no pair measured)\n";
    };
    if m.col_labels.len() <= MAX_TERMINAL_COLUMNS {
        out += &shaded_grid(m, &scale);
    } else {
        out += &compact_grid(m, &scale);
    }
    out += "\n";
    out += &scale.legend(&m.unit);
    out
}

/// A linear scale from the fastest to the slowest filled cell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    pub min: f64,
    pub max: f64,
}

impl Scale {
    /// The range of `m`'s filled cells; `None` when none is filled.
    pub fn of(m: &Matrix) -> Option<Scale> {
        let filled = m.values.iter().flatten().flatten().copied();
        let (min, max) = filled.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
        (min <= max).then_some(Scale { min, max })
    }

    /// The shade of `v`: five equal steps from `min` to `max` (all the middle shade when they are equal).
    pub fn shade(&self, v: f64) -> char {
        if self.max <= self.min {
            return SHADES[2];
        }
        let step = ((v - self.min) / (self.max - self.min) * SHADES.len() as f64).floor();
        SHADES[(step.max(0.0) as usize).min(SHADES.len() - 1)]
    }

    /// "shade: ' ' 100–120 ns, '░' 120–140 ns, …; '·' no pair (a CPU with itself)".
    pub fn legend(&self, unit: &str) -> String {
        if self.max <= self.min {
            return format!(
                "shades: every pair '{}' {} {unit}; '·' no pair (a CPU with itself, or not measured)\n",
                SHADES[2],
                format_number(self.min, false)
            );
        }
        let width = (self.max - self.min) / SHADES.len() as f64;
        let steps: Vec<String> = SHADES
            .iter()
            .enumerate()
            .map(|(k, s)| {
                let lo = self.min + width * k as f64;
                format!("'{s}' {}–{} {unit}", format_number(lo, false), format_number(lo + width, false))
            })
            .collect();
        format!("shades: {}; '·' no pair (a CPU with itself, or not measured)\n", steps.join(", "))
    }
}

/// The grid with a shade and the number in every cell.
fn shaded_grid(m: &Matrix, scale: &Scale) -> String {
    let mut table = new_table(Format::Table);
    table.set_content_arrangement(ContentArrangement::Disabled);
    let mut header = vec![String::new()];
    header.extend(m.col_labels.iter().cloned());
    table.set_header(header);
    for (i, label) in m.row_labels.iter().enumerate() {
        let mut cells = vec![Cell::new(label)];
        for (j, value) in m.values[i].iter().enumerate() {
            let text = match value {
                None => "·".to_string(),
                Some(v) => {
                    let u = m.uncertainty.as_ref().and_then(|u| u[i][j]);
                    let number = match u {
                        Some(u) => format!("{} ±{}", format_number(*v, false), format_number(u, false)),
                        None => format_number(*v, false),
                    };
                    format!("{} {number}", scale.shade(*v).to_string().repeat(2))
                }
            };
            cells.push(Cell::new(text).set_alignment(CellAlignment::Right));
        }
        table.add_row(cells);
    }
    table.to_string()
}

/// One shade per cell; with more than [`MAX_COMPACT_COLUMNS`] CPUs, rows and columns grouped by runs of
/// `g` consecutive CPUs and each block shaded by its median filled cell.
fn compact_grid(m: &Matrix, scale: &Scale) -> String {
    let n = m.col_labels.len();
    let g = n.div_ceil(MAX_COMPACT_COLUMNS);
    let groups = n.div_ceil(g);
    let label = |k: usize| {
        let (first, last) = (&m.row_labels[k * g], &m.row_labels[((k + 1) * g).min(n) - 1]);
        if g == 1 {
            first.clone()
        } else {
            format!("{first}–{last}")
        }
    };
    let width = (0..groups).map(|k| label(k).chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    if g > 1 {
        out += &format!("(CPUs in groups of {g}; a block is shaded by its median pair)\n");
    }
    for r in 0..groups {
        out += &format!("{:>width$} ", label(r));
        for c in 0..groups {
            let mut block: Vec<f64> = (r * g..((r + 1) * g).min(n))
                .flat_map(|i| (c * g..((c + 1) * g).min(n)).filter_map(move |j| m.values[i][j]))
                .collect();
            block.sort_by(f64::total_cmp);
            out.push(block.get(block.len() / 2).map_or('·', |&v| scale.shade(v)));
        }
        out += "\n";
    }
    out
}

/// The `by_class` table as the report shows it: class, pairs, then the times in ns.
fn class_table(t: &LabelledTable, format: Format) -> String {
    let mut table = new_table(format);
    let mut header = vec!["placement class".to_string()];
    header.extend(t.columns.iter().map(|c| if c == "pairs" { c.clone() } else { format!("{c} ({})", t.unit) }));
    table.set_header(header);
    for (label, cells) in &t.rows {
        let mut row = vec![Cell::new(label)];
        for (k, v) in cells.iter().enumerate() {
            let text = match (k, v) {
                (_, None) => "—".to_string(),
                (0, Some(count)) => format!("{count:.0}"),
                (_, Some(v)) => format_number(*v, false),
            };
            row.push(Cell::new(text).set_alignment(CellAlignment::Right));
        }
        table.add_row(row);
    }
    let mut out = table.to_string() + "\n";
    if format == Format::Md {
        out += "\n";
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};
    use overhead_record::Details;

    fn matrix(n: usize) -> Matrix {
        let mut m = Matrix::square("rtt", "ns", (0..n).map(|c| c.to_string()).collect());
        for i in 0..n {
            for j in 0..n {
                if i != j {
                    m.values[i][j] = Some(100.0 + 10.0 * (i.abs_diff(j)) as f64);
                }
            }
        }
        m
    }

    #[test]
    fn shades_follow_a_linear_scale() {
        let s = Scale { min: 100.0, max: 200.0 };
        assert_eq!(s.shade(100.0), ' ');
        assert_eq!(s.shade(119.0), ' ');
        assert_eq!(s.shade(121.0), '░');
        assert_eq!(s.shade(150.0), '▒');
        assert_eq!(s.shade(200.0), '█');
        assert_eq!(Scale { min: 5.0, max: 5.0 }.shade(5.0), '▒');
        assert!(s.legend("ns").contains("'░' 120–140 ns"), "{}", s.legend("ns"));
        let one = Scale { min: 899.0, max: 899.0 }.legend("ns");
        assert!(one.starts_with("shades: every pair '▒' 899 ns;"), "{one}");
    }

    #[test]
    fn a_small_matrix_shows_shades_numbers_and_empty_diagonal() {
        let text = heat_map("mem.c2c op:cas", &matrix(3));
        assert!(text.starts_with("mem.c2c op:cas — rtt (ns)"), "{text}");
        assert!(text.contains("   110"), "fastest pair unshaded: {text}");
        assert!(text.contains("██ 120"), "slowest pair darkest: {text}");
        assert_eq!(text.matches('·').count(), 3 + 1, "three diagonal cells and the legend: {text}");
        assert!(text.contains("shades:"), "{text}");
    }

    #[test]
    fn many_cpus_give_one_shade_per_cell_then_groups() {
        let text = heat_map("p", &matrix(40));
        let rows: Vec<&str> = text.lines().filter(|l| l.trim_start().starts_with(char::is_numeric)).collect();
        assert_eq!(rows.len(), 40, "{text}");
        assert!(rows.iter().all(|r| r.chars().count() == 2 + 1 + 40), "{text}");
        let text = heat_map("p", &matrix(300));
        assert!(text.contains("groups of 3"), "{text}");
        let rows: Vec<&str> = text.lines().filter(|l| l.trim_start().starts_with(char::is_numeric)).collect();
        assert_eq!(rows.len(), 100, "300 CPUs in groups of 3");
        assert!(rows[0].trim_start().starts_with("0–2 ") && rows[99].starts_with("297–299 "), "{}", rows[0]);
    }

    #[test]
    fn the_section_renders_both_formats_from_a_record() {
        let mut record = sample_record();
        assert!(render(&record, Format::Table).is_empty(), "no mem.c2c point, nothing");
        let mut p = point("mem.c2c", "os", &[("op", "cas")], 110.0);
        let mut details = Details::default();
        let m = matrix(2);
        let machine = overhead_machine::testing::simulated(1, 1, 1, 2, 1);
        details.tables.insert("by_class".into(), overhead_analysis::merge_details::by_class(&m, &machine));
        details.matrices.insert("rtt".into(), m);
        p.details = details;
        record.points.push(p);
        let table = render(&record, Format::Table);
        assert!(table.contains("mem.c2c op:cas") && table.contains("same L3 (core complex)"), "{table}");
        assert!(table.contains("one way (rtt / 2) (ns)") && table.contains("55.0"), "{table}");
        let md = render(&record, Format::Md);
        assert!(md.contains("### mem.c2c/runtime:os/op:cas — rtt") && md.contains("| same L3 (core complex)"), "{md}");
    }
}
