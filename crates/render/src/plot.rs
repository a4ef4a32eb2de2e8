//! The HTML report's plots, drawn as SVG strings with plotters' SVG backend: curves with CI error bars and
//! fitted lines, heat maps of matrices, latency histograms and bar charts of shares. Text stays SVG
//! `<text>`, so no font library is needed and the page stays self-contained.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::colors::colormaps::ViridisRGB;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::curve::{Curve, CurvePoint};
use overhead_record::{Distribution, Matrix};
use overhead_units::format_ns;

/// Width and height of a curve, histogram or bar chart (px; the page scales it to its column).
pub(crate) const CHART: (u32, u32) = (640, 420);
/// Points along a fitted line.
const FIT_STEPS: usize = 64;
/// Cells per side above which a heat map averages blocks of CPUs (keeps the SVG under a few MB).
const MAX_HEAT_CELLS: usize = 96;

pub(crate) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// Any drawing error as text (plotters' error types borrow the backend).
pub(crate) fn draw_err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow::anyhow!("drawing the plot failed: {e:?}")
}

/// Series colours that stay apart on white and for most colour-blind readers (Tableau 10's order).
const SERIES_COLOURS: [RGBColor; 10] = [
    RGBColor(0x4e, 0x79, 0xa7),
    RGBColor(0xf2, 0x8e, 0x2b),
    RGBColor(0xe1, 0x57, 0x59),
    RGBColor(0x76, 0xb7, 0xb2),
    RGBColor(0x59, 0xa1, 0x4f),
    RGBColor(0xed, 0xc9, 0x48),
    RGBColor(0xb0, 0x7a, 0xa1),
    RGBColor(0xff, 0x9d, 0xa7),
    RGBColor(0x9c, 0x75, 0x5f),
    RGBColor(0xba, 0xb0, 0xac),
];

/// The `i`-th series colour.
pub(crate) fn colour(i: usize) -> RGBColor {
    SERIES_COLOURS[i % SERIES_COLOURS.len()]
}

/// The font size (px) of a chart's title on a canvas `width` px wide: 20, smaller for a title that would not
/// fit (a sans-serif character is about 0.55 em wide on average), never below 11. A centred title wider
/// than its canvas is cut at both edges.
pub(crate) fn title_size(title: &str, width: u32) -> f64 {
    let fits = f64::from(width.saturating_sub(40)) / (0.55 * title.chars().count().max(1) as f64);
    fits.clamp(11.0, 20.0)
}

/// Draws `draw` on a blank `size` canvas and returns the SVG document.
pub(crate) fn svg(size: (u32, u32), draw: impl FnOnce(&Area) -> anyhow::Result<()>) -> anyhow::Result<String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        draw(&root)?;
        root.present().map_err(draw_err)?;
    }
    Ok(out)
}

/// A chart with the report's caption, margin and label areas (room for `1.20 µs` on the y axis).
fn chart_builder<'a, 'b>(root: &'a Area<'b>, title: &str) -> ChartBuilder<'a, 'b, SVGBackend<'b>> {
    let mut builder = ChartBuilder::on(root);
    builder
        .caption(title, ("sans-serif", title_size(title, CHART.0)))
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(90);
    builder
}

/// The axis range of `values` with 5% room, or a decade of room on a log axis; never empty.
fn range(values: impl Iterator<Item = f64>, log: bool) -> (f64, f64) {
    let (mut lo, mut hi) = values
        .filter(|v| v.is_finite() && (!log || *v > 0.0))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if log {
        return (lo / 1.5, hi * 1.5);
    }
    if hi - lo < f64::EPSILON * hi.abs().max(1.0) {
        (lo, hi) = (lo - 0.5 * lo.abs().max(1.0), hi + 0.5 * hi.abs().max(1.0));
    }
    let pad = (hi - lo) * 0.05;
    ((lo - pad).min(if lo >= 0.0 { 0.0 } else { lo - pad }), hi + pad)
}

/// A tick on a count axis: whole numbers without decimals (`100000`, not `100000.0`); anything else with
/// at most three significant digits (`0.6`, not `0.6000000000000001`; `-0.000618`, not `-0.0006180`).
fn number_label(v: &f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else if *v == 0.0 || !v.is_finite() {
        format!("{v}")
    } else {
        let decimals = (2 - v.abs().log10().floor() as i32).max(0) as usize;
        let text = format!("{v:.decimals$}");
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            text
        }
    }
}

/// A value with its unit, in a smaller unit where the scale it belongs to (`scale`, the largest magnitude
/// shown beside it) would otherwise read as a string of zeros: below 0.1 ppm in ppb (`-0.618 ppb`, not
/// `-0.000618 ppm`).
fn scaled_label(v: f64, scale: f64, unit: &str) -> String {
    if unit == "ppm" && scale > 0.0 && scale < 0.1 {
        return format!("{} ppb", number_label(&(v * 1e3)));
    }
    format!("{} {unit}", number_label(&v))
}

/// A tick on a byte axis: `512 B`, `4 KiB`, `1.5 MiB` (binary multiples, at most four significant digits).
fn bytes_label(v: &f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = *v;
    let mut unit = 0;
    while value.abs() >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{} {}", number_label(&value), UNITS[unit])
}

/// Parameters whose values are sizes in bytes: their axis reads B, KiB, MiB.
const BYTE_PARAMETERS: [&str; 3] = ["payload", "bytes", "size"];

/// Parameters whose values are percentages (`sync.rwlock`'s share of writes): their ticks read `10%` and
/// their axis says of what.
const PERCENT_PARAMETERS: [(&str, &str); 1] = [("writers", "writers, % of operations")];

/// A tick on a percentage axis: `10%`.
fn percent_label(v: &f64) -> String {
    format!("{}%", number_label(v))
}

/// The x axis's name: the parameter, or what a percentage parameter is a share of.
fn x_description(curve: &Curve) -> &str {
    PERCENT_PARAMETERS.iter().find(|(p, _)| *p == curve.x).map_or(curve.x.as_str(), |(_, d)| d)
}

/// What the numbers on a curve's x axis are, which decides its ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum XKind {
    /// Sizes in bytes: ticks at whole bytes, in binary units.
    Bytes,
    /// Whole numbers (threads, CPUs, activities, waiters, load, tasks): integer ticks only.
    Count,
    /// Anything else.
    Number,
}

fn x_kind(curve: &Curve) -> XKind {
    if BYTE_PARAMETERS.contains(&curve.x.as_str()) {
        XKind::Bytes
    } else if all_points(curve).all(|p| p.x.fract() == 0.0) {
        XKind::Count
    } else {
        XKind::Number
    }
}

/// One entry of a plot's legend, drawn by the page under the plot.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LegendEntry {
    /// CSS colour, `#rrggbb`.
    pub colour: String,
    pub label: String,
}

/// The `i`-th series colour as CSS.
fn css(i: usize) -> String {
    let RGBColor(r, g, b) = colour(i);
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// The legend of a curve: one entry per series, in the colours [`curve_svg`] draws them.
pub fn legend(curve: &Curve) -> Vec<LegendEntry> {
    curve.series.iter().enumerate().map(|(i, s)| LegendEntry { colour: css(i), label: s.label.clone() }).collect()
}

/// The legend of [`bars_svg`]'s groups.
pub fn bars_legend(groups: &[(String, Vec<f64>)]) -> Vec<LegendEntry> {
    groups.iter().enumerate().map(|(i, (label, _))| LegendEntry { colour: css(i), label: label.clone() }).collect()
}

/// Ticks on a y axis in ns read best with units (`1.20 µs`); the zero tick is `0` (a tick computed as
/// −1e-13 would otherwise read `-0.000 ns`).
fn ns_label(v: &f64) -> String {
    if v.abs() < 1e-6 {
        "0".into()
    } else {
        format_ns(*v)
    }
}

/// A curve: each series' medians joined by a line, the 95% CI as error bars, the fit as a dashed line
/// over the series' x range, and marked points (an optimum) as rings in their series' colour. The legend
/// is the page's ([`legend`]): inside the plot it would hide data.
///
/// Ticks come from plotters' own key points: a count or byte axis (threads, payload) is a [`Linspace`] of
/// whole numbers, whose ticks plotters picks among them, or a base-2 logarithmic axis (powers of two); the
/// y axis's ticks carry their unit (`1.20 µs`), so its label names none.
pub fn curve_svg(curve: &Curve, title: &str) -> anyhow::Result<String> {
    let kind = x_kind(curve);
    let (lo, hi) = range(all_points(curve).map(|p| p.x), curve.log_x);
    let percent = PERCENT_PARAMETERS.iter().any(|(p, _)| *p == curve.x);
    let format_x: &dyn Fn(&f64) -> String = match (kind, percent) {
        (XKind::Bytes, _) => &bytes_label,
        (_, true) => &percent_label,
        _ => &number_label,
    };
    svg(CHART, |root| match (curve.log_x, kind) {
        (true, XKind::Number) => draw_with_y(root, curve, title, (lo..hi).log_scale(), format_x),
        (true, _) => draw_with_y(root, curve, title, (lo..hi).log_scale().base(2.0), format_x),
        (false, XKind::Number) => draw_with_y(root, curve, title, lo..hi, format_x),
        (false, _) => {
            // Whole numbers a power of ten apart, at most about a thousand of them; plotters picks the ticks.
            let step = 10f64.powf(((hi - lo) / 1000.0).log10().ceil().max(0.0));
            // A count is never negative: the margin left of a point at 0 would read `-1`.
            let lo = if all_points(curve).all(|p| p.x >= 0.0) { lo.max(0.0) } else { lo };
            let (lo, hi) = ((lo / step).floor() * step, (hi / step).ceil() * step);
            draw_with_y(root, curve, title, (lo..hi).step(step), format_x)
        }
    })
}

fn all_points(curve: &Curve) -> impl Iterator<Item = &CurvePoint> {
    curve.series.iter().flat_map(|s| s.points.iter())
}

/// [`draw_curve`] with the y axis linear or logarithmic, as `curve` says.
fn draw_with_y<X>(
    root: &Area,
    curve: &Curve,
    title: &str,
    x: X,
    format_x: &dyn Fn(&f64) -> String,
) -> anyhow::Result<()>
where
    X: plotters::coord::ranged1d::AsRangedCoord<Value = f64>,
    X::CoordDescType: plotters::coord::ranged1d::ValueFormatter<f64>,
{
    let (lo, hi) = range(all_points(curve).flat_map(|p| [p.ci_low, p.median, p.ci_high]), curve.log_y);
    if curve.log_y {
        draw_curve(root, curve, title, x, (lo..hi).log_scale(), format_x)
    } else {
        draw_curve(root, curve, title, x, lo..hi, format_x)
    }
}

fn draw_curve<X, Y>(
    root: &Area,
    curve: &Curve,
    title: &str,
    x: X,
    y: Y,
    format_x: &dyn Fn(&f64) -> String,
) -> anyhow::Result<()>
where
    X: plotters::coord::ranged1d::AsRangedCoord<Value = f64>,
    Y: plotters::coord::ranged1d::AsRangedCoord<Value = f64>,
    X::CoordDescType: plotters::coord::ranged1d::ValueFormatter<f64>,
    Y::CoordDescType: plotters::coord::ranged1d::ValueFormatter<f64>,
{
    let mut chart = chart_builder(root, title).build_cartesian_2d(x, y).map_err(draw_err)?;
    chart
        .configure_mesh()
        .x_desc(x_description(curve))
        .y_desc(curve.y_label.as_str())
        .y_label_formatter(&ns_label)
        // On a log axis plotters adds 2×, 3×, … 9× ticks when it may show many, which crowd the top of a
        // decade (`900 µs` over `1.00 ms`); five allow only the decades.
        .y_labels(if curve.log_y { 5 } else { 10 })
        .x_label_formatter(&format_x)
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(draw_err)?;
    for (i, series) in curve.series.iter().enumerate() {
        let c = colour(i);
        let line: Vec<(f64, f64)> = series.points.iter().map(|p| (p.x, p.median)).collect();
        chart.draw_series(LineSeries::new(line.clone(), c.stroke_width(2))).map_err(draw_err)?;
        chart.draw_series(line.iter().map(|&(x, y)| Circle::new((x, y), 3, c.filled()))).map_err(draw_err)?;
        chart
            .draw_series(
                series
                    .points
                    .iter()
                    .map(|p| ErrorBar::new_vertical(p.x, p.ci_low, p.median, p.ci_high, c.stroke_width(1), 8)),
            )
            .map_err(draw_err)?;
        if let Some(fit) = &series.fit {
            let (lo, hi) = (line.first().map_or(0.0, |p| p.0), line.last().map_or(0.0, |p| p.0));
            let fitted: Vec<(f64, f64)> = (0..=FIT_STEPS)
                .map(|k| {
                    let x = if curve.log_x && lo > 0.0 {
                        lo * (hi / lo).powf(k as f64 / FIT_STEPS as f64)
                    } else {
                        lo + (hi - lo) * k as f64 / FIT_STEPS as f64
                    };
                    (x, fit.a + fit.b * x + fit.c.unwrap_or(0.0) * x * x)
                })
                .filter(|&(_, y)| !curve.log_y || y > 0.0)
                .collect();
            chart.draw_series(DashedLineSeries::new(fitted, 6, 4, c.mix(0.8).stroke_width(1))).map_err(draw_err)?;
        }
    }
    for mark in &curve.marks {
        let ring = Circle::new((mark.x, mark.y), 8, colour(mark.series).stroke_width(3));
        chart.draw_series(std::iter::once(ring)).map_err(draw_err)?;
    }
    Ok(())
}

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
            // A segmented a..b holds the segments a, a+1, …, b: one per CPU is 0..n − 1.
            .build_cartesian_2d((0..n_cols - 1).into_segmented(), (0..n_rows - 1).into_segmented())
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
fn blocks(matrix: &Matrix) -> (Vec<Vec<Option<f64>>>, Vec<String>, Vec<String>) {
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

/// A latency histogram: events per bucket against the bucket's upper bound, both axes logarithmic,
/// with the median and the 99th percentile marked.
pub fn histogram_svg(dist: &Distribution, title: &str) -> anyhow::Result<String> {
    let (x_lo, x_hi) = range(dist.buckets.iter().map(|b| b.0).chain([dist.min_ns.max(1.0)]), true);
    let y_hi = dist.buckets.iter().map(|b| b.1).max().unwrap_or(1) as f64 * 2.0;
    svg(CHART, |root| {
        let mut chart = chart_builder(root, title)
            .build_cartesian_2d((x_lo..x_hi).log_scale(), (0.5f64..y_hi).log_scale())
            .map_err(draw_err)?;
        chart
            .configure_mesh()
            .x_desc("latency")
            .y_desc("events")
            .x_label_formatter(&ns_label)
            // Counts: `100`, not plotters' default `100.0`.
            .y_label_formatter(&number_label)
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(draw_err)?;
        let mut lower = dist.min_ns.max(x_lo);
        let bars: Vec<Rectangle<(f64, f64)>> = dist
            .buckets
            .iter()
            .map(|&(upper, events)| {
                let bar = Rectangle::new(
                    [(lower, 0.5), (upper.max(lower * 1.001), events as f64)],
                    colour(0).mix(0.7).filled(),
                );
                lower = upper;
                bar
            })
            .collect();
        chart.draw_series(bars).map_err(draw_err)?;
        for (label, x, c) in [("p50", dist.p50_ns, colour(1)), ("p99", dist.p99_ns, colour(2))] {
            chart
                .draw_series(LineSeries::new([(x, 0.5), (x, y_hi)], c.stroke_width(2)))
                .map_err(draw_err)?
                .label(format!("{label} {}", format_ns(x)))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2)));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .draw()
            .map_err(draw_err)?;
        Ok(())
    })
}

/// Grouped bars: for each category (a task count, a thread), one bar per group member (a CPU), in `unit`.
/// `groups` are `(member label, value per category)`; their legend is [`bars_legend`].
pub fn bars_svg(
    title: &str,
    unit: &str,
    categories: &[String],
    groups: &[(String, Vec<f64>)],
) -> anyhow::Result<String> {
    let (_, hi) = range(groups.iter().flat_map(|(_, v)| v.iter().copied()).chain([0.0]), false);
    let members = groups.len().max(1) as f64;
    svg(CHART, |root| {
        let mut chart =
            chart_builder(root, title).build_cartesian_2d(0f64..categories.len() as f64, 0f64..hi).map_err(draw_err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(categories.len().clamp(1, 20))
            .x_label_formatter(&|v| {
                let i = (v - 0.5).round();
                if (v - 0.5 - i).abs() < 0.01 {
                    categories.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .y_desc(unit)
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(draw_err)?;
        for (g, (_, values)) in groups.iter().enumerate() {
            let c = colour(g);
            let width = 0.8 / members;
            chart
                .draw_series(values.iter().enumerate().map(|(i, &v)| {
                    let x0 = i as f64 + 0.1 + g as f64 * width;
                    Rectangle::new([(x0, 0.0), (x0 + width * 0.95, v)], c.filled())
                }))
                .map_err(draw_err)?;
        }
        Ok(())
    })
}

/// One bar of [`ranked_bars_svg`]: a label, a value with its interval (ns), whether it is highlighted, and
/// a note printed beside it (a point's flags).
#[derive(Debug, Clone, PartialEq)]
pub struct RankedBar {
    /// The bar's name, shown as text on the category axis.
    pub label: String,
    /// The bar's length, ns.
    pub value: f64,
    /// The interval's low end, ns.
    pub low: f64,
    /// The interval's high end, ns.
    pub high: f64,
    /// Drawn in the highlight colour ([`RANKED_HIGHLIGHT`]) instead of grey ([`RANKED_OTHER`]).
    pub highlight: bool,
    /// Printed after the bar's value (`noisy, <res`); empty for none.
    pub note: String,
}

/// The fill of a highlighted [`RankedBar`] (CSS), for the figure's legend.
pub const RANKED_HIGHLIGHT: &str = "#4e79a7";
/// The fill of the other bars (CSS).
pub const RANKED_OTHER: &str = "#c9c4c1";
/// The longest label [`ranked_bars_svg`] prints whole; longer ones end in `…`.
const MAX_BAR_LABEL: usize = 34;
/// Largest over smallest positive value past which [`ranked_bars_svg`]'s axis is logarithmic.
const RANKED_LOG_SPREAD: f64 = 10.0;

/// Horizontal bars, one per entry, the first at the top, each with its interval as an error bar and its
/// value (and note) printed after the error bar's end; labels are text on the category axis, the value axis
/// is time with its unit on every tick (`1.20 µs`) and `axis` as its name. Readable with 2 to 12 bars: the
/// height grows with the count. The axis is logarithmic when the values span more than
/// [`RANKED_LOG_SPREAD`]× (a fastest bar 400× shorter than the slowest would be invisible), and says so;
/// there a bar starts at the axis's left end and an interval reaching zero or below is drawn to it.
pub fn ranked_bars_svg(title: &str, axis: &str, bars: &[RankedBar]) -> anyhow::Result<String> {
    let positive = |v: &f64| v.is_finite() && *v > 0.0;
    let values: Vec<f64> = bars.iter().map(|b| b.value).collect();
    let (min_v, max_v) =
        values.iter().copied().filter(positive).fold((f64::INFINITY, 0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let log = values.iter().all(positive) && max_v / min_v > RANKED_LOG_SPREAD;
    let labels: Vec<String> = bars
        .iter()
        .map(|b| match b.label.chars().count() {
            n if n > MAX_BAR_LABEL => format!("{}…", b.label.chars().take(MAX_BAR_LABEL - 1).collect::<String>()),
            _ => b.label.clone(),
        })
        .collect();
    let annotations: Vec<String> = bars
        .iter()
        .map(|b| if b.note.is_empty() { ns_label(&b.value) } else { format!("{} ({})", ns_label(&b.value), b.note) })
        .collect();
    let label_px = (labels.iter().map(|l| l.chars().count()).max().unwrap_or(4) as u32 * 8 + 20).clamp(70, 300);
    let width = CHART.0;
    let height = 110 + 36 * bars.len().max(2) as u32;
    // Each bar's annotation starts right of its interval's end (≈ 7 px a character at 13 px): the share of
    // the plot's width it needs, and where its interval ends.
    let plot_px = f64::from(width.saturating_sub(label_px + 56).max(200));
    let needs: Vec<(f64, f64)> = bars
        .iter()
        .zip(&annotations)
        .filter_map(|(b, a)| {
            let end = [b.value, b.high].into_iter().filter(|v| v.is_finite()).reduce(f64::max)?;
            Some((end, ((a.chars().count() as f64 * 7.0 + 14.0) / plot_px).min(0.6)))
        })
        .collect();
    // The smallest right end of an axis from `lo` (in the axis's own scale, `scale`) that leaves every
    // annotation its room: a bar ending at `end` needs (end − lo) / (hi − lo) ≤ 1 − share.
    let right_end = |lo: f64, scale: &dyn Fn(f64) -> f64| {
        needs.iter().map(|&(end, share)| scale(lo) + (scale(end) - scale(lo)) / (1.0 - share)).fold(scale(lo), f64::max)
    };
    svg((width, height), |root| {
        if log {
            let lo = bars.iter().flat_map(|b| [b.value, b.low]).filter(positive).fold(min_v, f64::min) / 1.5;
            let hi = right_end(lo, &|v: f64| v.max(lo).ln()).exp() * 1.05;
            draw_ranked(
                root,
                title,
                &format!("{axis}, log scale"),
                bars,
                &labels,
                &annotations,
                label_px,
                (lo..hi).log_scale(),
                lo,
            )
        } else {
            let lo = bars.iter().flat_map(|b| [b.value, b.low]).filter(|v| v.is_finite()).fold(0f64, f64::min);
            let lo = if lo < 0.0 { lo * 1.05 } else { 0.0 };
            let hi = right_end(lo, &|v: f64| v);
            let hi = if hi > lo { hi + (hi - lo) * 0.02 } else { lo + 1.0 };
            draw_ranked(root, title, axis, bars, &labels, &annotations, label_px, lo..hi, 0.0)
        }
    })
}

/// [`ranked_bars_svg`]'s drawing on either value axis; bars start at `base` (zero, or a log axis's left end).
#[allow(clippy::too_many_arguments)]
fn draw_ranked<X>(
    root: &Area,
    title: &str,
    axis: &str,
    bars: &[RankedBar],
    labels: &[String],
    annotations: &[String],
    label_px: u32,
    x: X,
    base: f64,
) -> anyhow::Result<()>
where
    X: plotters::coord::ranged1d::AsRangedCoord<Value = f64>,
    X::CoordDescType: plotters::coord::ranged1d::ValueFormatter<f64>,
{
    let n = bars.len() as i32;
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", title_size(title, CHART.0)))
        .margin(12)
        // Room for the last tick's label (`10.0 µs`) when the axis ends on it.
        .margin_right(32)
        .x_label_area_size(48)
        .y_label_area_size(label_px)
        // A segmented 0..n − 1 holds one segment per bar; segment y holds bar n − 1 − y, so the first is on top.
        .build_cartesian_2d(x, (0..n - 1).into_segmented())
        .map_err(draw_err)?;
    let (x_lo, _) = {
        let r = chart.x_range();
        (r.start, r.end)
    };
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(bars.len().max(1))
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => {
                usize::try_from(n - 1 - i).ok().and_then(|i| labels.get(i)).cloned().unwrap_or_default()
            }
            _ => String::new(),
        })
        .x_labels(6)
        .x_label_formatter(&ns_label)
        .x_desc(axis)
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(draw_err)?;
    let fill = |b: &RankedBar| if b.highlight { colour(0) } else { RGBColor(0xc9, 0xc4, 0xc1) };
    let base = base.max(x_lo);
    let at = |i: usize| n - 1 - i as i32;
    chart
        .draw_series(bars.iter().enumerate().filter(|(_, b)| b.value.is_finite()).map(|(i, b)| {
            let mut bar = Rectangle::new(
                [(base, SegmentValue::Exact(at(i))), (b.value.max(x_lo), SegmentValue::Exact(at(i) + 1))],
                fill(b).filled(),
            );
            bar.set_margin(6, 6, 0, 0);
            bar
        }))
        .map_err(draw_err)?;
    // The interval as a line with end caps, without plotters' circle at the median (the bar ends there, and
    // a circle would hide a narrow interval); an end at or below the axis's left end is drawn to it.
    let clip = |v: f64| if v.is_finite() { v.max(x_lo) } else { x_lo };
    let font = ("sans-serif", 13).into_text_style(root).pos(Pos::new(HPos::Left, VPos::Center));
    for (i, (b, text)) in bars.iter().zip(annotations).enumerate() {
        let y = SegmentValue::CenterOf(at(i));
        if b.low.is_finite() || b.high.is_finite() {
            let (x0, py) = chart.backend_coord(&(clip(b.low), y.clone()));
            let (x1, _) = chart.backend_coord(&(clip(b.high), y.clone()));
            let whisker = BLACK.stroke_width(1);
            root.draw(&PathElement::new(vec![(x0, py), (x1, py)], whisker)).map_err(draw_err)?;
            for x in [x0, x1] {
                root.draw(&PathElement::new(vec![(x, py - 6), (x, py + 6)], whisker)).map_err(draw_err)?;
            }
        }
        let end = [b.high, b.value].into_iter().filter(|v| v.is_finite()).fold(x_lo, f64::max);
        let (px, py) = chart.backend_coord(&(end, y));
        root.draw(&Text::new(text.clone(), (px + 10, py), font.clone())).map_err(draw_err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curve::{Mark, Series};

    fn curve(log: bool) -> Curve {
        let points = [1.0, 10.0, 1000.0].map(|x| CurvePoint { x, median: x * 2.0, ci_low: x * 1.9, ci_high: x * 2.1 });
        Curve {
            experiment: "x.y".into(),
            panel: Vec::new(),
            x: "threads".into(),
            log_x: log,
            log_y: log,
            y_label: "per operation (ns)".into(),
            series: vec![Series { label: "os · a:b".into(), points: points.to_vec(), fit: None, fit_note: None }],
            marks: vec![Mark { label: "best".into(), series: 0, x: 10.0, y: 20.0 }],
            lone: Vec::new(),
        }
    }

    #[test]
    fn a_long_title_gets_a_smaller_font_that_fits_and_a_short_one_keeps_20() {
        assert_eq!(title_size("sync.faa", 640), 20.0);
        let long = "msg.throughput, pattern:spsc capacity:1024 placement:other_core — time per operation";
        let size = title_size(long, 640);
        assert!(size < 20.0 && size * 0.55 * long.chars().count() as f64 <= 600.0, "{size}");
        assert_eq!(title_size(&"x".repeat(400), 640), 11.0);
    }

    #[test]
    fn a_percentage_axis_says_so_in_its_ticks_and_name() {
        let mut c = curve(false);
        c.x = "writers".into();
        let svg = curve_svg(&c, "sync.rwlock").unwrap();
        assert!(svg.contains("writers, % of operations") && svg.contains("\n100%\n"), "{svg}");
    }

    #[test]
    fn a_tick_has_at_most_three_significant_digits_and_a_tiny_ppm_reads_in_ppb() {
        assert_eq!(number_label(&-0.000618123), "-0.000618");
        assert_eq!(number_label(&12.3456), "12.3");
        assert_eq!(number_label(&0.6000000000000001), "0.6");
        assert_eq!(scaled_label(-0.000618123, 0.000618123, "ppm"), "-0.618 ppb");
        assert_eq!(scaled_label(2.5, 2.5, "ppm"), "2.5 ppm");
        assert_eq!(scaled_label(0.0, 0.0, "ppm"), "0 ppm");
        // Beside a larger end, a small one keeps the bar's unit.
        assert_eq!(scaled_label(0.0238, 0.247, "ppm"), "0.0238 ppm");
        assert!(number_label(&-0.000618123).len() <= 9 && number_label(&(-0.000618123 * 1e3)).len() <= 8);
    }

    #[test]
    fn the_zero_tick_reads_0_and_others_keep_their_unit() {
        assert_eq!(ns_label(&-1e-13), "0");
        assert_eq!(ns_label(&0.0), "0");
        assert_eq!(ns_label(&1500.0), "1.50 µs");
        assert_eq!(ns_label(&0.25), "0.250 ns");
    }

    #[test]
    fn a_curve_is_an_svg_with_its_title_axis_and_legend() {
        for log in [false, true] {
            let svg = curve_svg(&curve(log), "sync.faa").unwrap();
            assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "{}", &svg[..80]);
            for text in ["sync.faa", "threads", "per operation (ns)"] {
                assert!(svg.contains(text), "{text} missing");
            }
        }
    }

    #[test]
    fn a_heat_map_draws_one_cell_per_value_and_averages_blocks_past_the_limit() {
        let m = |n: usize| Matrix {
            title: "rtt".into(),
            unit: "ns".into(),
            row_labels: (0..n).map(|i| i.to_string()).collect(),
            col_labels: (0..n).map(|i| i.to_string()).collect(),
            values: (0..n).map(|i| (0..n).map(|j| (i != j).then_some((i + j) as f64)).collect()).collect(),
            uncertainty: None,
        };
        let svg = heat_map_svg(&m(3), "mem.c2c").unwrap();
        // 6 cells plus the 64 steps of the colour bar, plus the background.
        let rects = svg.matches("<rect").count();
        assert!((70..=72).contains(&rects), "{rects} rects");
        let (values, rows, _) = blocks(&m(200));
        assert_eq!((values.len(), rows.len()), (67, 67), "200 CPUs in blocks of 3");
        assert_eq!(rows[0], "0–2");
        assert_eq!(values[0][0], Some((1.0 + 1.0 + 2.0 + 2.0 + 3.0 + 3.0) / 6.0), "the diagonal's gaps are skipped");
    }

    /// Ranked bars: every label as text (a long one cut with `…`), the highlight only on highlighted bars, the
    /// height growing with the count, and a log axis that says so once the values span more than 10×.
    #[test]
    fn ranked_bars_label_highlight_and_scale() {
        let bar = |i: usize, value: f64| RankedBar {
            label: format!("runtime-{i} / implementation"),
            value,
            low: value * 0.9,
            high: value * 1.1,
            highlight: i < 2,
            note: if i == 0 { "noisy".into() } else { String::new() },
        };
        let two = ranked_bars_svg("t", "median time per operation, 95% CI", &[bar(0, 10.0), bar(1, 12.0)]).unwrap();
        assert!(two.contains("runtime-0 / implementation") && two.contains("runtime-1 / implementation"));
        assert!(two.contains("10.0 ns (noisy)") && !two.contains("log scale"), "a linear axis for 1.2×");
        let twelve: Vec<RankedBar> = (0..12).map(|i| bar(i, 10.0 * (i + 1) as f64)).collect();
        let svg = ranked_bars_svg("t", "median time per operation, 95% CI", &twelve).unwrap();
        assert!(svg.contains("log scale"), "12× apart: a log axis");
        assert!((0..12).all(|i| svg.contains(&format!("runtime-{i} / implementation"))));
        let fill =
            |svg: &str| svg.matches(RANKED_HIGHLIGHT).count() + svg.matches(&RANKED_HIGHLIGHT.to_uppercase()).count();
        assert_eq!((fill(&two), fill(&svg)), (2, 2), "only the highlighted bars are coloured");
        let height = |svg: &str| svg.split("height=\"").nth(1).and_then(|h| h.split('"').next()?.parse::<u32>().ok());
        assert!(height(&svg) > height(&two), "twelve bars get a taller chart");
        let long = RankedBar { label: "x".repeat(60), ..bar(0, 1.0) };
        let cut = ranked_bars_svg("t", "a", &[long, bar(1, 2.0)]).unwrap();
        assert!(cut.contains(&format!("{}…", "x".repeat(MAX_BAR_LABEL - 1))));
    }

    #[test]
    fn a_histogram_and_bars_render() {
        let dist = Distribution {
            count: 30,
            min_ns: 900.0,
            p50_ns: 1000.0,
            p90_ns: 2000.0,
            p99_ns: 4000.0,
            p999_ns: 4000.0,
            max_ns: 4000.0,
            mean_ns: 1500.0,
            buckets: vec![(1000.0, 20), (2000.0, 9), (4000.0, 1)],
        };
        assert!(histogram_svg(&dist, "timer.wakeup").unwrap().contains("p99"));
        let bars = bars_svg(
            "share",
            "%",
            &["1".into(), "10".into()],
            &[("cpu 0".into(), vec![75.0, 50.0]), ("cpu 1".into(), vec![25.0, 50.0])],
        )
        .unwrap();
        assert!(bars.matches("<rect").count() >= 4);
    }
}
