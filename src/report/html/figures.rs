//! The HTML report's figures, grouped as the page shows them: curves (seed 001's figures: cost against
//! threads, load, activities; seed 003's round trip against payload), the granularity sweep with its
//! optimum (seed 001 Fig. 7) and its per-CPU shares, heat maps of every matrix, latency distributions,
//! and how accesses to one line split among CPUs (seed 001 Table 2).

use serde::Serialize;

use super::curves::{curves, grain_curve, Curve, CurvePoint, Series};
use crate::experiments::mem::FairnessResult;
use crate::record::{LabelledTable, RunRecord};
use crate::render::plot::{bars_legend, bars_svg, curve_svg, heat_map_svg, histogram_svg, legend, LegendEntry};
use crate::report::format_ns;

/// A titled group of figures (a section of the page).
#[derive(Debug, Serialize)]
pub struct FigureGroup {
    pub id: String,
    pub title: String,
    /// Its name in the page's navigation.
    pub short: String,
    /// One sentence: how to read the group.
    pub intro: String,
    pub figures: Vec<Figure>,
}

/// One plot with its title and caption lines.
#[derive(Debug, Serialize)]
pub struct Figure {
    /// The anchor: `fig-` and the plot's subject.
    pub id: String,
    pub title: String,
    pub caption: Vec<String>,
    /// The plot, an `<svg>` element.
    pub svg: String,
    /// Its series' colours and names, shown under it.
    pub legend: Vec<LegendEntry>,
}

/// The record's figures, group by group; groups with nothing to show are left out.
///
/// Errors: a plot could not be drawn.
pub fn figure_groups(record: &RunRecord) -> anyhow::Result<Vec<FigureGroup>> {
    let groups = vec![
        FigureGroup {
            id: "curves".into(),
            short: "Curves".into(),
            title: "Curves: cost against threads, load, activities and payload".into(),
            intro: "Each line is one runtime and setting; dots are medians, bars their 95% CIs, dashed lines the least-squares fits the record holds.".into(),
            figures: curves(record).iter().map(curve_figure).collect::<anyhow::Result<_>>()?,
        },
        FigureGroup {
            id: "granularity".into(),
            short: "Granularity".into(),
            title: "Granularity: elapsed time against task count, and where the tasks ran (seed 001 Fig. 7, Table 4)".into(),
            intro: "Fixed work split into more and more tasks: too few leave CPUs idle, too many pay spawn and scheduling per task. The circle marks each runtime's best task count.".into(),
            figures: grain_figures(record)?,
        },
        FigureGroup {
            id: "heat-maps".into(),
            short: "Heat maps".into(),
            title: "Heat maps: every matrix (CPU × CPU)".into(),
            intro: "One cell per pair of CPUs on a linear colour scale from the smallest value (dark) to the largest (yellow); blank cells have no value (the diagonal). The exact values are in the tables below.".into(),
            figures: heat_maps(record)?,
        },
        FigureGroup {
            id: "distributions".into(),
            short: "Distributions".into(),
            title: "Latency distributions".into(),
            intro: "Events per histogram bucket, both axes logarithmic, with the median and the 99th percentile.".into(),
            figures: distributions(record)?,
        },
        FigureGroup {
            id: "speed".into(),
            short: "Speed".into(),
            title: "The machine's speed over the run".into(),
            intro: "The reference loop (the empty loop every process times just before and after its point) in windows of the run: a rise is the machine running slower (a busy SMT sibling, a frequency change, another tenant). The record states the run's median; `overhead compare` sets two runs' speeds side by side.".into(),
            figures: speed_figure(record)?.into_iter().collect(),
        },
        FigureGroup {
            id: "shares".into(),
            short: "Shares".into(),
            title: "Shares: how accesses to one line split among CPUs (seed 001 Table 2)".into(),
            intro: "Accesses each thread made in the same windows, per 1000 of the first thread's: equal bars are a fair arbiter.".into(),
            figures: shares(record)?,
        },
    ];
    Ok(groups.into_iter().filter(|g| !g.figures.is_empty()).collect())
}

/// `text` as an anchor fragment: lower-case letters, digits and dashes.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

/// The reference loop's median per window of the run, with its CI (none without a course).
fn speed_figure(record: &RunRecord) -> anyhow::Result<Option<Figure>> {
    let Some(speed) = record.speed.as_ref().filter(|s| !s.course.is_empty()) else { return Ok(None) };
    let points = speed
        .course
        .iter()
        .map(|w| CurvePoint {
            x: w.start_s + w.length_s / 2.0,
            median: w.median_ns,
            ci_low: w.ci_low_ns,
            ci_high: w.ci_high_ns,
        })
        .collect();
    let curve = Curve {
        experiment: "speed".into(),
        panel: Vec::new(),
        x: "seconds into the run".into(),
        log_x: false,
        log_y: false,
        y_label: "reference loop, per iteration".into(),
        series: vec![Series { label: "reference loop".into(), points, fit: None, fit_note: None }],
        marks: Vec::new(),
    };
    let title = "Reference loop over the run".to_string();
    Ok(Some(Figure {
        id: "fig-speed-course".into(),
        svg: curve_svg(&curve, &title)?,
        legend: legend(&curve),
        caption: vec![format!(
            "Median ns per iteration of the processes that started in each {:.0} s window, with its 95% CI; over the whole run {:.4} ns (95% CI {:.4}–{:.4}, {} readings).",
            speed.course[0].length_s, speed.median_ns, speed.ci_low_ns, speed.ci_high_ns, speed.readings
        )],
        title,
    }))
}

fn curve_figure(curve: &Curve) -> anyhow::Result<Figure> {
    let panel: Vec<String> = curve.panel.iter().map(|(k, v)| format!("{k}:{v}")).collect();
    let title = if panel.is_empty() {
        curve.experiment.clone()
    } else {
        format!("{} — {}", curve.experiment, panel.join(" "))
    };
    let mut caption = Vec::new();
    if let Some(e) = crate::experiments::find(&curve.experiment) {
        caption.push(format!("{}: {}. Source: {}.", e.info().id, e.info().summary, e.info().source));
    }
    caption.extend(curve.series.iter().filter_map(|s| match (&s.fit, &s.fit_note) {
        (Some(f), _) => Some(format!("fit, {}: {}", s.label, f.formula(format_ns))),
        (None, Some(note)) => Some(format!("{}: {note}", s.label)),
        (None, None) => None,
    }));
    Ok(Figure {
        id: format!("fig-{}", slug(&title)),
        svg: curve_svg(curve, &title)?,
        legend: legend(curve),
        title,
        caption,
    })
}

fn grain_figures(record: &RunRecord) -> anyhow::Result<Vec<Figure>> {
    let mut figures = Vec::new();
    if let Some(curve) = grain_curve(record) {
        let caption = curve.marks.iter().map(|m| format!("{}: {}", m.label, format_ns(m.y))).collect();
        figures.push(Figure {
            id: "fig-grain-sweep".into(),
            title: crate::experiments::grain::Sweep::ID.into(),
            svg: curve_svg(&curve, "grain.sweep: elapsed vs. tasks")?,
            legend: legend(&curve),
            caption,
        });
    }
    for p in record.points.iter().filter(|p| p.spec.experiment == crate::experiments::grain::Sweep::ID) {
        if let Some(share) = p.details.tables.get("share") {
            let title = format!("{}: share of tasks per CPU", p.name);
            let (svg, legend) = table_bars(&p.spec.runtime, share)?;
            figures.push(Figure {
                id: format!("fig-{}", slug(&title)),
                title,
                caption: vec![share.title.clone()],
                svg,
                legend,
            });
        }
    }
    Ok(figures)
}

/// A labelled table as grouped bars, with their legend: its rows are the categories, its columns the bars
/// of each.
fn table_bars(title: &str, table: &LabelledTable) -> anyhow::Result<(String, Vec<LegendEntry>)> {
    let categories: Vec<String> = table.rows.iter().map(|(label, _)| label.clone()).collect();
    let groups: Vec<(String, Vec<f64>)> = table
        .columns
        .iter()
        .enumerate()
        .map(|(j, column)| {
            (
                column.clone(),
                table.rows.iter().map(|(_, cells)| cells.get(j).copied().flatten().unwrap_or(0.0)).collect(),
            )
        })
        .collect();
    Ok((bars_svg(title, &table.unit, &categories, &groups)?, bars_legend(&groups)))
}

fn heat_maps(record: &RunRecord) -> anyhow::Result<Vec<Figure>> {
    let mut figures = Vec::new();
    for p in &record.points {
        for (key, matrix) in &p.details.matrices {
            if matrix.values.len() * matrix.col_labels.len() < 2 {
                continue;
            }
            let title = format!("{} — {key}", p.name);
            let caption = vec![format!("{} ({})", matrix.title, matrix.unit)];
            let svg = heat_map_svg(matrix, &format!("{} {key}", p.spec.experiment))?;
            figures.push(Figure { id: format!("fig-{}", slug(&title)), svg, legend: Vec::new(), title, caption });
        }
    }
    Ok(figures)
}

fn distributions(record: &RunRecord) -> anyhow::Result<Vec<Figure>> {
    let mut figures = Vec::new();
    for p in &record.points {
        if let Some(d) = &p.details.distribution {
            let title = p.name.clone();
            let caption = vec![format!(
                "{} events: min {}, median {}, p90 {}, p99 {}, p99.9 {}, max {}",
                d.count,
                format_ns(d.min_ns),
                format_ns(d.p50_ns),
                format_ns(d.p90_ns),
                format_ns(d.p99_ns),
                format_ns(d.p999_ns),
                format_ns(d.max_ns)
            )];
            let svg = histogram_svg(d, &p.spec.experiment)?;
            figures.push(Figure { id: format!("fig-{}", slug(&title)), svg, legend: Vec::new(), title, caption });
        }
    }
    Ok(figures)
}

/// Seed 001 Table 2's shares: each `mem.fairness` point's accesses per thread, per 1000 of the first's.
fn shares(record: &RunRecord) -> anyhow::Result<Vec<Figure>> {
    let mut figures = Vec::new();
    for p in record.points.iter().filter(|p| p.spec.experiment == crate::experiments::mem::Fairness::ID) {
        let Some(counts) = p.details.tables.get("counts") else { continue };
        let Some(column) = counts.columns.iter().position(|c| c.starts_with("per 1000")) else { continue };
        let categories: Vec<String> = counts.rows.iter().map(|(label, _)| label.clone()).collect();
        let values = counts.rows.iter().map(|(_, cells)| cells.get(column).copied().flatten().unwrap_or(0.0)).collect();
        let title = p.name.clone();
        let mut caption = vec![counts.title.clone()];
        if let Some(jain) = p.result_as::<FairnessResult>().ok().and_then(|r| r.jain_index) {
            caption.push(format!("Jain's fairness index {jain:.3} (1 is perfectly fair)"));
        }
        let groups = [(counts.columns[column].clone(), values)];
        let svg = bars_svg(&p.spec.experiment, "per 1000 of thread 0", &categories, &groups)?;
        figures.push(Figure { id: format!("fig-{}", slug(&title)), title, caption, svg, legend: bars_legend(&groups) });
    }
    Ok(figures)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_anchor_safe() {
        assert_eq!(slug("msg.ipc — placement:same_cpu"), "msg-ipc-placement-same-cpu");
        assert_eq!(slug("mem.c2c/runtime:os/op:cas — rtt"), "mem-c2c-runtime-os-op-cas-rtt");
    }
}
