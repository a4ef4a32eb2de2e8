//! A latency distribution as a histogram.

use plotters::prelude::*;

use super::*;

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
