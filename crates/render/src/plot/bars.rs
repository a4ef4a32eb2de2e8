//! Grouped bars: a labelled table as bars.

use plotters::prelude::*;

use super::*;

/// Grouped bars: for each category (a task count, a thread), one bar per group member (a CPU), in `unit`;
/// `category_axis` says what the categories are (the x axis's description). `groups` are `(member label, value
/// per category)`; their legend is [`bars_legend`].
pub fn bars_svg(
    title: &str,
    unit: &str,
    category_axis: &str,
    categories: &[String],
    groups: &[(String, Vec<f64>)],
) -> anyhow::Result<String> {
    let (_, hi) = range(groups.iter().flat_map(|(_, v)| v.iter().copied()).chain([0.0]), false);
    let members = groups.len().max(1) as f64;
    svg(CHART, |root| {
        // Category i is centred on x = i, so the axis's whole-number ticks fall under the bars they name.
        let span = -0.5f64..categories.len() as f64 - 0.5;
        let mut chart = chart_builder(root, title).build_cartesian_2d(span, 0f64..hi).map_err(draw_err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(categories.len().clamp(1, 20))
            .x_label_formatter(&|v| {
                let i = v.round();
                if (v - i).abs() < 0.01 && i >= 0.0 {
                    categories.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .x_desc(category_axis)
            .y_desc(unit)
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(draw_err)?;
        for (g, (_, values)) in groups.iter().enumerate() {
            let c = colour(g);
            let width = 0.8 / members;
            chart
                .draw_series(values.iter().enumerate().map(|(i, &v)| {
                    let x0 = i as f64 - 0.4 + g as f64 * width;
                    Rectangle::new([(x0, 0.0), (x0 + width * 0.95, v)], c.filled())
                }))
                .map_err(draw_err)?;
        }
        Ok(())
    })
}
