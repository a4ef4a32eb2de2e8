//! Ranked horizontal bars with CI whiskers: the choice between implementations.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::*;

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
pub(super) const MAX_BAR_LABEL: usize = 34;
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
