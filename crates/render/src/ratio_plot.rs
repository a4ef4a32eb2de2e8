//! Ratios with their confidence intervals on one log axis around 1 (a forest plot, as meta-analyses draw
//! them): one row per family or point, a dot at the ratio, a whisker over its interval, a line at ×1 (no
//! change), the rows a verdict flagged in colour (slower red, faster green) and the others grey. Used for
//! the sides of a run (docs/METHOD.md §17); knows nothing of them.

use plotters::prelude::*;

use super::plot::{colour, draw_err, svg, Area, CHART};

/// One row of a [`ratio_forest_svg`].
#[derive(Debug, Clone, PartialEq)]
pub struct RatioRow {
    /// Printed on the row's axis; long labels end in `…`.
    pub label: String,
    pub ratio: f64,
    pub low: f64,
    pub high: f64,
    /// The verdict flagged this row: drawn in colour, red above 1, green below.
    pub flagged: bool,
}

/// The colour of a flagged row above 1 (slower), below 1 (faster), and of the rest (CSS), for legends.
pub const SLOWER: &str = "#e15759";
pub const FASTER: &str = "#59a14f";
pub const UNFLAGGED: &str = "#9c9c9c";

/// Largest over smallest end of the axis past which it is logarithmic.
const LOG_SPREAD: f64 = 3.0;

/// The longest label printed whole.
const MAX_LABEL: usize = 40;

/// The forest plot of `rows` (the first on top) with `title` and `axis` naming the ratio; the axis is
/// labelled `×1.05` and always holds 1. It is linear while the ratios stay within [`LOG_SPREAD`]× of each
/// other (the usual comparison: a few percent, ticks at round ratios), logarithmic beyond, where a ×2 and
/// a ×0.5 must lie as far from 1 and say so. Rows without a finite ratio are left out.
///
/// Errors: the drawing failed (a bug).
pub fn ratio_forest_svg(title: &str, axis: &str, rows: &[RatioRow]) -> anyhow::Result<String> {
    let rows: Vec<&RatioRow> = rows.iter().filter(|r| r.ratio.is_finite() && r.ratio > 0.0).collect();
    let ends = rows.iter().flat_map(|r| [r.low, r.high, r.ratio]).filter(|v| v.is_finite() && *v > 0.0);
    let (lo, hi) = ends.fold((1.0f64, 1.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    // At least ±2% around 1, and 3% of room beyond the widest interval.
    let (lo, hi) = (lo.min(0.98) / 1.03, hi.max(1.02) * 1.03);
    let labels: Vec<String> = rows
        .iter()
        .map(|r| match r.label.chars().count() {
            n if n > MAX_LABEL => format!("{}…", r.label.chars().take(MAX_LABEL - 1).collect::<String>()),
            _ => r.label.clone(),
        })
        .collect();
    let label_px = (labels.iter().map(|l| l.chars().count()).max().unwrap_or(4) as u32 * 8 + 20).clamp(70, 340);
    let height = 120 + 30 * rows.len().max(2) as u32;
    svg((CHART.0, height), |root| match hi / lo > LOG_SPREAD {
        true => {
            draw(root, title, &format!("{axis}, log scale"), &rows, &labels, label_px, (lo..hi).log_scale(), (lo, hi))
        }
        false => draw(root, title, axis, &rows, &labels, label_px, lo..hi, (lo, hi)),
    })
}

/// A ratio as a tick says it: `×1.05`, `×0.9`, `×1`.
fn ratio_tick(v: &f64) -> String {
    let text = format!("{v:.3}");
    format!("×{}", text.trim_end_matches('0').trim_end_matches('.'))
}

/// The chart of [`ratio_forest_svg`] on `root`, the x axis `coord` from `x.0` to `x.1`.
#[allow(clippy::too_many_arguments)]
fn draw<X>(
    root: &Area,
    title: &str,
    axis: &str,
    rows: &[&RatioRow],
    labels: &[String],
    label_px: u32,
    coord: X,
    x: (f64, f64),
) -> anyhow::Result<()>
where
    X: plotters::coord::ranged1d::AsRangedCoord<Value = f64>,
    X::CoordDescType: plotters::coord::ranged1d::ValueFormatter<f64>,
{
    let n = rows.len().max(1) as i32;
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", super::plot::title_size(title, CHART.0)))
        .margin(12)
        .margin_right(28)
        .x_label_area_size(48)
        .y_label_area_size(label_px)
        .build_cartesian_2d(coord, (0..n - 1).into_segmented())
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(rows.len().max(1))
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => {
                usize::try_from(n - 1 - i).ok().and_then(|i| labels.get(i)).cloned().unwrap_or_default()
            }
            _ => String::new(),
        })
        .x_labels(8)
        // Grid lines only at the labelled ticks: plotters' light lines between them drew one every 0.01
        // from ×0.8 to ×1.3, a barcode behind the whiskers (as the other plots, transparent; plotters
        // overflows on zero light lines).
        .light_line_style(plotters::style::colors::WHITE.mix(0.0))
        .x_label_formatter(&ratio_tick)
        .x_desc(axis)
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .draw()
        .map_err(draw_err)?;
    // No change: the line at ×1.
    let (one_x, top) = chart.backend_coord(&(1.0, SegmentValue::Exact(n)));
    let (_, bottom) = chart.backend_coord(&(1.0, SegmentValue::Exact(0)));
    root.draw(&PathElement::new(vec![(one_x, top), (one_x, bottom)], BLACK.stroke_width(1))).map_err(draw_err)?;
    for (i, r) in rows.iter().enumerate() {
        let y = SegmentValue::CenterOf(n - 1 - i as i32);
        let ink = match (r.flagged, r.ratio > 1.0) {
            (false, _) => RGBColor(0x9c, 0x9c, 0x9c),
            (true, true) => colour(2),
            (true, false) => colour(4),
        };
        let clip = |v: f64| if v.is_finite() && v > 0.0 { v.clamp(x.0, x.1) } else { x.0 };
        let (x0, py) = chart.backend_coord(&(clip(r.low), y.clone()));
        let (x1, _) = chart.backend_coord(&(clip(r.high), y.clone()));
        let whisker = ink.stroke_width(2);
        root.draw(&PathElement::new(vec![(x0, py), (x1, py)], whisker)).map_err(draw_err)?;
        for end in [x0, x1] {
            root.draw(&PathElement::new(vec![(end, py - 6), (end, py + 6)], whisker)).map_err(draw_err)?;
        }
        let (px, _) = chart.backend_coord(&(r.ratio, y));
        root.draw(&Circle::new((px, py), 5, ink.filled())).map_err(draw_err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_row_per_ratio_with_the_no_change_line_and_the_flags_in_colour() {
        let row = |label: &str, ratio: f64, flagged: bool| RatioRow {
            label: label.into(),
            ratio,
            low: ratio * 0.97,
            high: ratio * 1.03,
            flagged,
        };
        let rows = [row("sync (8 points)", 1.08, true), row("msg (40 points)", 0.93, true), row("base", 1.0, false)];
        let svg = ratio_forest_svg("b ÷ a", "side ÷ baseline, 95% CI", &rows).unwrap();
        for text in ["sync (8 points)", "msg (40 points)", "base", "\n×1.05\n", "\n×0.95\n", "\n×1\n"] {
            assert!(svg.contains(text), "{text} missing");
        }
        assert!(!svg.contains("log scale"), "a few percent on a linear axis");
        let wide = ratio_forest_svg("t", "a", &[row("x", 4.0, true), row("y", 0.5, true)]).unwrap();
        assert!(wide.contains("log scale"), "×0.5 to ×4 on a log axis");
        assert_eq!(svg.matches("<circle").count(), 3, "a dot per row");
        let lower = svg.to_lowercase();
        assert!(lower.contains(SLOWER) && lower.contains(FASTER) && lower.contains(UNFLAGGED));
        let none = ratio_forest_svg("t", "a", &[row("x", f64::NAN, false)]).unwrap();
        assert_eq!(none.matches("<circle").count(), 0, "a row without a ratio is left out");
    }
}
