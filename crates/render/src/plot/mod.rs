//! The HTML report's plots, drawn as SVG strings with plotters' SVG backend, one file per kind as criterion's
//! `plot/` has them: curves with CI error bars and fitted lines (`curve.rs`), heat maps of matrices
//! (`heat_map.rs`), latency histograms (`histogram.rs`), grouped bars of shares (`bars.rs`) and ranked bars of
//! a choice (`ranked_bars.rs`); this file holds what they share (the chart's frame, ranges, tick labels,
//! colours, legends). Text stays SVG `<text>`, so no font library is needed and the page stays
//! self-contained.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::curve::{Curve, CurvePoint};
use overhead_humanize::format_ns;
use overhead_record::{Distribution, Matrix};

mod bars;
mod curve;
mod heat_map;
mod histogram;
mod ranked_bars;

pub use bars::bars_svg;
use curve::all_points;
pub use curve::curve_svg;
pub use heat_map::{heat_map_svg, heat_map_svg_of};
pub use histogram::histogram_svg;
pub use ranked_bars::{ranked_bars_svg, RankedBar, RANKED_HIGHLIGHT, RANKED_OTHER};

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

/// The axis range of `values` with 5% room; on a log axis half again at either end, and down past the
/// decade at or below the smallest value, so that its lowest values sit above a labelled tick (a
/// 140–200 ns point under an axis whose lowest label was 1.00 µs could not be read); never empty.
fn range(values: impl Iterator<Item = f64>, log: bool) -> (f64, f64) {
    let (mut lo, mut hi) = values
        .filter(|v| v.is_finite() && (!log || *v > 0.0))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if log {
        let decade_below = 10f64.powf(lo.log10().floor());
        return ((lo / 1.5).min(decade_below / 1.2), hi * 1.5);
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

#[cfg(test)]
mod tests {
    use super::heat_map::blocks;
    use super::ranked_bars::MAX_BAR_LABEL;
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

    /// A log axis reaches below the decade under its smallest value, so that value has a labelled tick
    /// under it; a linear one keeps its 5% of room and zero.
    #[test]
    fn a_log_axis_reaches_past_the_decade_below_its_smallest_value() {
        let (lo, hi) = range([190.0, 80_000.0].into_iter(), true);
        assert!(lo < 100.0 && lo > 50.0 && hi >= 120_000.0, "{lo} {hi}");
        let (lo, _) = range([1.0, 256.0].into_iter(), true);
        assert!((lo - 1.0 / 1.5).abs() < 1e-12, "a value on a decade keeps its half again: {lo}");
        assert_eq!(range([10.0, 20.0].into_iter(), false), (0.0, 20.5));
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
            "tasks",
            &["1".into(), "10".into()],
            &[("cpu 0".into(), vec![75.0, 50.0]), ("cpu 1".into(), vec![25.0, 50.0])],
        )
        .unwrap();
        assert!(bars.matches("<rect").count() >= 4);
        // Every category names its group of bars on the x axis (the labels once fell between the ticks).
        let categories: Vec<String> = ["2", "8", "32", "128", "512"].map(String::from).to_vec();
        let bars = bars_svg("share", "%", "tasks", &categories, &[("cpu 0".into(), vec![50.0; 5])]).unwrap();
        for c in &categories {
            assert!(bars.contains(&format!(">\n{c}\n</text>")), "category {c} has no label: {bars}");
        }
    }
}
