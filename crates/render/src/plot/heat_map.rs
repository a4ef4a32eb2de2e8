//! Heat maps of a CPU × CPU (or host × host) matrix, viridis, with a colour bar.

use plotters::prelude::*;
use plotters::style::colors::colormaps::ViridisRGB;

use super::*;

/// A heat map of `matrix`: one cell per row and column CPU, coloured on a linear viridis scale from the
/// smallest to the largest value, blank where there is no value; a colour bar with the two ends. Past
/// [`MAX_HEAT_CELLS`] per side, blocks of CPUs are averaged (the table beside it keeps every cell).
pub fn heat_map_svg(matrix: &Matrix, title: &str) -> anyhow::Result<String> {
    heat_map_svg_of(matrix, title, "CPU", "CPU")
}

/// [`heat_map_svg`] with the axes named: the columns `x` (`"CPU"`, `"to host (column)"`), the rows `y`.
pub fn heat_map_svg_of(matrix: &Matrix, title: &str, x: &str, y: &str) -> anyhow::Result<String> {
    let (values, rows, cols) = blocks(matrix);
    let finite: Vec<f64> = values.iter().flatten().flatten().copied().filter(|v| v.is_finite()).collect();
    let lo = finite.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let side = 520u32;
    svg((side + 200, side + 90), |root| {
        let (map, bar) = root.split_horizontally(side + 90);
        let (n_rows, n_cols) = (rows.len() as i32, cols.len() as i32);
        let mut chart = ChartBuilder::on(&map)
            .caption(title, ("sans-serif", title_size(title, CHART.0)))
            .margin(10)
            .x_label_area_size(52)
            .y_label_area_size(70)
            // A segmented a..b holds the segments a, a+1, …, b: one per CPU is 0..n − 1. A range of one segment
            // (0..0) has no width in plotters, so a single row or column gets a second, empty one beside it.
            .build_cartesian_2d((0..(n_cols - 1).max(1)).into_segmented(), (0..(n_rows - 1).max(1)).into_segmented())
            .map_err(draw_err)?;
        // Row 0 is drawn at the top, as a matrix is read: segment y holds row n_rows − 1 − y.
        let centre_label = |labels: &[String], v: &SegmentValue<i32>, flip: bool| match v {
            SegmentValue::CenterOf(i) => {
                let i = if flip { n_rows - 1 - i } else { *i };
                usize::try_from(i).ok().and_then(|i| labels.get(i)).cloned().unwrap_or_default()
            }
            _ => String::new(),
        };
        chart
            .configure_mesh()
            .disable_mesh()
            .x_labels(cols.len().min(24))
            .y_labels(rows.len().min(24))
            .x_label_formatter(&|v| centre_label(&cols, v, false))
            .y_label_formatter(&|v| centre_label(&rows, v, true))
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 15))
            .x_desc(x)
            .y_desc(y)
            .draw()
            .map_err(draw_err)?;
        let cells = values
            .iter()
            .enumerate()
            .flat_map(|(i, row)| row.iter().enumerate().filter_map(move |(j, v)| v.map(|v| (i, j, v))));
        chart
            .draw_series(cells.map(|(i, j, v)| {
                let t = if hi > lo { (v - lo) / (hi - lo) } else { 0.5 };
                let (x, y) = (j as i32, n_rows - 1 - i as i32);
                let corners = [
                    (SegmentValue::Exact(x), SegmentValue::Exact(y)),
                    (SegmentValue::Exact(x + 1), SegmentValue::Exact(y + 1)),
                ];
                Rectangle::new(corners, ViridisRGB::get_color(t).filled())
            }))
            .map_err(draw_err)?;
        colour_bar(&bar, lo, hi, &matrix.unit)
    })
}

/// The matrix, its row and its column labels, averaged over square blocks of CPUs when it is larger than
/// [`MAX_HEAT_CELLS`] per side (a block's label is its first and last CPU).
#[allow(clippy::type_complexity)]
pub(super) fn blocks(matrix: &Matrix) -> (Vec<Vec<Option<f64>>>, Vec<String>, Vec<String>) {
    let n = matrix.values.len().max(matrix.col_labels.len());
    let block = n.div_ceil(MAX_HEAT_CELLS).max(1);
    if block == 1 {
        return (matrix.values.clone(), matrix.row_labels.clone(), matrix.col_labels.clone());
    }
    let group = |labels: &[String]| -> Vec<String> {
        labels.chunks(block).map(|c| format!("{}–{}", c[0], c[c.len() - 1])).collect()
    };
    let rows = matrix.values.len().div_ceil(block);
    let cols = matrix.col_labels.len().div_ceil(block);
    let values = (0..rows)
        .map(|bi| {
            (0..cols)
                .map(|bj| {
                    let cells: Vec<f64> = (bi * block..((bi + 1) * block).min(matrix.values.len()))
                        .flat_map(|i| {
                            (bj * block..((bj + 1) * block).min(matrix.values[i].len()))
                                .filter_map(move |j| matrix.values[i][j])
                        })
                        .collect();
                    (!cells.is_empty()).then(|| cells.iter().sum::<f64>() / cells.len() as f64)
                })
                .collect()
        })
        .collect();
    (values, group(&matrix.row_labels), group(&matrix.col_labels))
}

/// A vertical colour bar from `lo` (bottom) to `hi` (top), labelled with both ends and the unit. When every
/// cell holds the same value (`lo == hi`) there is no scale to show: one swatch in the cells' colour,
/// labelled "all cells" and that value.
fn colour_bar(area: &Area, lo: f64, hi: f64, unit: &str) -> anyhow::Result<()> {
    let (_, h) = area.dim_in_pixel();
    let (top, bottom, left) = (60i32, h as i32 - 60, 20i32);
    let font = ("sans-serif", 13).into_font();
    // One unit for both ends, chosen by the larger: "0.0238 ppm" beside "0.247 ppm", not "23.8 ppb".
    let larger = if lo.abs().max(hi.abs()).is_finite() { lo.abs().max(hi.abs()) } else { 0.0 };
    let end = |v: f64| {
        if !v.is_finite() {
            "n/a".into()
        } else if unit == "ns" {
            format_ns(v)
        } else {
            scaled_label(v, larger, unit)
        }
    };
    if hi.partial_cmp(&lo) != Some(std::cmp::Ordering::Greater) {
        let middle = (top + bottom) / 2;
        area.draw(&Rectangle::new(
            [(left, middle - 12), (left + 24, middle + 12)],
            ViridisRGB::get_color(0.5).filled(),
        ))
        .map_err(draw_err)?;
        area.draw(&Text::new("all cells", (left + 30, middle - 14), font.clone())).map_err(draw_err)?;
        area.draw(&Text::new(end(lo), (left + 30, middle + 2), font)).map_err(draw_err)?;
        return Ok(());
    }
    let steps = 64;
    for k in 0..steps {
        let t = k as f64 / (steps - 1) as f64;
        // One pixel of overlap: abutting rectangles leave hairline gaps when the page scales the SVG.
        let y0 = bottom - ((bottom - top) as f64 * (k + 1) as f64 / steps as f64) as i32 - 1;
        let y1 = bottom - ((bottom - top) as f64 * k as f64 / steps as f64) as i32;
        area.draw(&Rectangle::new([(left, y0), (left + 24, y1)], ViridisRGB::get_color(t).filled()))
            .map_err(draw_err)?;
    }
    area.draw(&Text::new(end(hi), (left + 30, top), font.clone())).map_err(draw_err)?;
    area.draw(&Text::new(end(lo), (left + 30, bottom - 12), font.clone())).map_err(draw_err)?;
    Ok(())
}
