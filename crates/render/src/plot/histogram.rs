//! A latency distribution as a histogram.

use plotters::prelude::*;

use super::*;

/// The latency axis's ticks: 1, 2 and 5 times the powers of ten within `lo..=hi` (ns). Plotters' own ticks on
/// a log axis are every whole multiple of the decade, whose labels collide where the multiples crowd
/// together (400 µs … 1 ms read as one smear).
fn one_two_five(lo: f64, hi: f64) -> Vec<f64> {
    let (first, last) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    (first..=last)
        .flat_map(|decade| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(decade)))
        .filter(|&x| x >= lo && x <= hi)
        .collect()
}

/// A latency histogram: events per bucket against the bucket's upper bound, both axes logarithmic,
/// with the median and the 99th percentile marked.
pub fn histogram_svg(dist: &Distribution, title: &str) -> anyhow::Result<String> {
    let (x_lo, x_hi) = range(dist.buckets.iter().map(|b| b.0).chain([dist.min_ns.max(1.0)]), true);
    let y_hi = dist.buckets.iter().map(|b| b.1).max().unwrap_or(1) as f64 * 2.0;
    svg(CHART, |root| {
        let mut chart = chart_builder(root, title)
            .build_cartesian_2d(
                (x_lo..x_hi).log_scale().with_key_points(one_two_five(x_lo, x_hi)),
                (0.5f64..y_hi).log_scale(),
            )
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Ticks at 1, 2 and 5 per decade, inside the range only.
    #[test]
    fn the_latency_axis_ticks_at_one_two_five() {
        assert_eq!(one_two_five(60e3, 1.2e6), [1e5, 2e5, 5e5, 1e6]);
        assert_eq!(one_two_five(50.0, 220.0), [50.0, 100.0, 200.0]);
        assert!(one_two_five(300.0, 400.0).is_empty());
    }

    /// A distribution from 60 µs to 1 ms labels 100 µs, 200 µs, 500 µs and 1 ms, and none of the crowded
    /// multiples between.
    #[test]
    fn a_wide_histogram_labels_only_its_one_two_five_ticks() {
        let dist = Distribution {
            count: 300,
            min_ns: 60e3,
            p50_ns: 75e3,
            p90_ns: 80e3,
            p99_ns: 90e3,
            p999_ns: 8e5,
            max_ns: 9e5,
            mean_ns: 8e4,
            buckets: vec![(7e4, 150), (8e4, 140), (1e5, 9), (9e5, 1)],
        };
        let svg = histogram_svg(&dist, "timer.wakeup").unwrap();
        for label in ["100 µs", "200 µs", "500 µs"] {
            assert!(svg.contains(&format!(">\n{label}\n</text>")), "{label} missing");
        }
        for crowded in ["300 µs", "400 µs", "600 µs", "700 µs", "800 µs", "900 µs"] {
            assert!(!svg.contains(&format!(">\n{crowded}\n</text>")), "{crowded} labelled");
        }
    }
}
