//! Curves: medians against a parameter with CI error bars and dashed fits, one series per runtime.

use plotters::prelude::*;

use super::*;

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

pub(super) fn all_points(curve: &Curve) -> impl Iterator<Item = &CurvePoint> {
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
