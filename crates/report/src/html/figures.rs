//! The HTML report's figures, grouped as the page shows them: curves (Ben-Asher & Feitelson's figures: cost against
//! threads, load, activities; Walfield's round trip against payload), the granularity sweep with its
//! optimum (Ben-Asher & Feitelson 1991 Fig. 7) and its per-CPU shares, heat maps of every matrix, latency distributions,
//! and how accesses to one line split among CPUs (Ben-Asher & Feitelson 1991 Table 2).

use serde::Serialize;

use super::curves::{curves, Curve, CurvePoint, Series};
use crate::sections::{Figures, EXPERIMENT_FIGURES};
use overhead_humanize::format_ns;
use overhead_record::RunRecord;
pub use overhead_render::figure::{slug, Figure};
use overhead_render::plot::{curve_svg, heat_map_svg, histogram_svg, legend};

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

/// The groups that show every experiment alike (curves, heat maps, distributions, the machine's speed): the
/// report's own; an experiment's own figures are listed in [`crate::sections::EXPERIMENT_FIGURES`].
const GENERIC: &[Figures] = &[
    Figures {
        id: "sides",
        short: "Sides",
        title: "Sides: each against the baseline, measured next to each other",
        intro: "A run with --side measured every point on each side, a point's processes for the sides back to back in every round. One chart per side: each family's ratio to the baseline (a dot) with its 95% CI (a whisker) on a log axis, the line at ×1 no change; red and green the families flagged slower and faster after the control for multiple comparisons, grey no change shown. The table \"Sides\" below has the numbers and the flagged points.",
        position: 1,
        draw: super::sides::side_figures,
    },
    Figures {
        id: "choose",
        short: "Choose",
        title: "Choosing an implementation: the fastest and those tied with it",
        intro: "One chart per primitive and setting: its implementations, fastest on top, each bar the median with its 95% CI. Coloured: the best group, the fastest and every implementation whose ratio to it has a 95% interval including 1 (conservative, from both CIs: a tie is a difference this run cannot show). Grey: significantly slower. Beside each value, the point's flags (as in the table of every point): a flagged best or tie is only as sure as its flags allow. The table \"Choosing an implementation\" below has the ratios.",
        position: 5,
        draw: super::choose::choice_figures,
    },
    Figures {
        id: "curves",
        short: "Curves",
        title: "Curves: cost against threads, load, activities and payload",
        intro: "Each line is one runtime and setting; dots are medians, bars their 95% CIs, dashed lines the least-squares fits the record holds.",
        position: 10,
        draw: curve_figures,
    },
    Figures {
        id: "heat-maps",
        short: "Heat maps",
        title: "Heat maps: every matrix (CPU × CPU)",
        intro: "One cell per pair of CPUs on a linear colour scale from the smallest value (dark) to the largest (yellow); blank cells have no value (the diagonal). The exact values are in the tables below.",
        position: 30,
        draw: heat_maps,
    },
    Figures {
        id: "distributions",
        short: "Distributions",
        title: "Latency distributions",
        intro: "Events per histogram bucket, both axes logarithmic, with the median and the 99th percentile.",
        position: 40,
        draw: distributions,
    },
    Figures {
        id: "speed",
        short: "Speed",
        title: "The machine's speed over the run",
        intro: "The reference loop (the empty loop every process times just before and after its point) in windows of the run: a rise is the machine running slower (a busy SMT sibling, a frequency change, another tenant). The record states the run's median; `overhead compare` sets two runs' speeds side by side.",
        position: 50,
        draw: speed_figures,
    },
];

/// The groups of the page with `registered` beside the generic ones, an ID listed twice kept once, ordered by
/// [`Figures::position`].
pub fn figure_kinds(registered: &[&Figures]) -> Vec<Figures> {
    let mut out: Vec<Figures> = GENERIC.to_vec();
    for group in registered {
        if !out.iter().any(|g| g.id == group.id) {
            out.push(**group);
        }
    }
    out.sort_by_key(|g| g.position);
    out
}

/// The record's figures, group by group; groups with nothing to show are left out.
///
/// Errors: a plot could not be drawn.
pub fn figure_groups(record: &RunRecord) -> anyhow::Result<Vec<FigureGroup>> {
    let mut groups = Vec::new();
    for kind in figure_kinds(EXPERIMENT_FIGURES) {
        let figures = (kind.draw)(record)?;
        if !figures.is_empty() {
            groups.push(FigureGroup {
                id: kind.id.into(),
                title: kind.title.into(),
                short: kind.short.into(),
                intro: kind.intro.into(),
                figures,
            });
        }
    }
    Ok(groups)
}

/// Every curve of the record as a figure.
fn curve_figures(record: &RunRecord) -> anyhow::Result<Vec<Figure>> {
    curves(record).iter().map(|c| curve_figure(c, &record.catalog)).collect()
}

/// The speed figure, when the record has a course.
fn speed_figures(record: &RunRecord) -> anyhow::Result<Vec<Figure>> {
    Ok(speed_figure(record)?.into_iter().collect())
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
        lone: Vec::new(),
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

fn curve_figure(curve: &Curve, catalog: &overhead_record::CatalogSnapshot) -> anyhow::Result<Figure> {
    let panel: Vec<String> = curve.panel.iter().map(|(k, v)| format!("{k}:{v}")).collect();
    let title = if panel.is_empty() {
        curve.experiment.clone()
    } else {
        format!("{} — {}", curve.experiment, panel.join(" "))
    };
    let mut caption = Vec::new();
    if let Some(e) = catalog.about(&curve.experiment) {
        caption.push(format!("{}: {}. Source: {}.", e.id, e.summary, e.source));
    }
    caption.extend(curve.series.iter().filter_map(|s| match (&s.fit, &s.fit_note) {
        (Some(f), _) => Some(format!("fit, {}: {}", s.label, f.formula(format_ns))),
        (None, Some(note)) => Some(format!("{}: {note}", s.label)),
        (None, None) => None,
    }));
    if !curve.lone.is_empty() {
        caption.push(format!("Not drawn, one point each (a lone dot is no curve): {}.", curve.lone.join("; ")));
    }
    Ok(Figure {
        id: format!("fig-{}", slug(&title)),
        svg: curve_svg(curve, &title)?,
        legend: legend(curve),
        title,
        caption,
    })
}

/// Experiments whose matrices a group of their own draws (`mpi.hosts`: host × host, with each cell's
/// placement class); the generic heat maps leave them out rather than draw them twice.
const OWN_HEAT_MAPS: &[&str] = &[overhead_schema::experiments::mpi::HOSTS];

fn heat_maps(record: &RunRecord) -> anyhow::Result<Vec<Figure>> {
    let mut figures = Vec::new();
    for p in record.points.iter().filter(|p| !OWN_HEAT_MAPS.contains(&p.spec.experiment.as_str())) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_gives_the_groups_in_the_pages_order() {
        let ids: Vec<&str> = figure_kinds(EXPERIMENT_FIGURES).iter().map(|g| g.id).collect();
        assert_eq!(
            ids,
            [
                "sides",
                "choose",
                "curves",
                "granularity",
                "heat-maps",
                "mpi-hosts",
                "wake-paths",
                "distributions",
                "speed",
                "shares"
            ]
        );
    }
}
