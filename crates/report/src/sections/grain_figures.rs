//! `grain.sweep`'s figures on the HTML page (Ben-Asher & Feitelson 1991 Fig. 7 and Table 4): elapsed time against the task
//! count with each runtime's optimum marked, and each point's share of tasks per CPU.

use crate::sections::Figures;
use overhead_humanize::format_ns;
use overhead_record::{PointRecord, RunRecord};
use overhead_render::curve::{Curve, CurvePoint, Mark, Series};
use overhead_render::figure::{slug, table_bars, Figure};
use overhead_render::plot::{curve_svg, legend};
use overhead_schema::experiments::grain::SweepResult;

/// The page's granularity group (docs/ARCHITECTURE.md "Renderers").
pub const GRANULARITY: Figures = Figures {
    id: "granularity",
    short: "Granularity",
    title: "Granularity: elapsed time against task count, and where the tasks ran (Ben-Asher & Feitelson 1991 Fig. 7, Table 4)",
    intro: "Fixed work split into more and more tasks: too few leave CPUs idle, too many pay spawn and scheduling per task. The circle marks each runtime's best task count.",
    position: 20,
    draw: grain_figures,
};

/// Ben-Asher & Feitelson's Fig. 7 from the `grain.sweep` points: elapsed time of the fixed work against the number of
/// tasks it is split into, one series per runtime (and thread count), from the `sweep` table (median, with
/// min and p90 as the bar), both axes logarithmic, each runtime's best task count marked. `None` when the
/// record has no sweep.
pub fn grain_curve(record: &RunRecord) -> Option<Curve> {
    let points: Vec<&PointRecord> =
        record.points.iter().filter(|p| p.spec.experiment == overhead_schema::experiments::grain::SWEEP).collect();
    let mut series = Vec::new();
    let mut marks = Vec::new();
    for p in &points {
        let Some(sweep) = p.details.tables.get("sweep") else { continue };
        let col = |name: &str| sweep.columns.iter().position(|c| c == name);
        let (Some(median), Some(min), Some(p90)) = (col("median"), col("min"), col("p90")) else { continue };
        let members: Vec<CurvePoint> = sweep
            .rows
            .iter()
            .filter_map(|(tasks, cells)| {
                let at = |i: usize| cells.get(i).copied().flatten();
                Some(CurvePoint { x: tasks.parse().ok()?, median: at(median)?, ci_low: at(min)?, ci_high: at(p90)? })
            })
            .collect();
        let label = std::iter::once(p.spec.runtime.to_string())
            .chain(p.spec.params.iter().filter(|(k, _)| k == "threads").map(|(k, v)| format!("{k}:{v}")))
            .collect::<Vec<_>>()
            .join(" · ");
        if let Ok(SweepResult { best_tasks: tasks, best_ns: ns, .. }) = p.result_as::<SweepResult>() {
            // The point's best is the median over its processes: between two of them when their number is
            // even, which is no task count of its own, so the label says what it is.
            let what = if tasks.fract() == 0.0 { "tasks" } else { "tasks, the median of the processes' best" };
            marks.push(Mark {
                label: format!("best {} ({tasks} {what})", p.spec.runtime),
                series: series.len(),
                x: tasks,
                y: ns,
            });
        }
        series.push(Series { label, points: members, fit: None, fit_note: None });
    }
    (!series.is_empty()).then(|| Curve {
        experiment: overhead_schema::experiments::grain::SWEEP.into(),
        panel: Vec::new(),
        x: "tasks".into(),
        log_x: true,
        log_y: true,
        y_label: "elapsed: median, min – p90".into(),
        series,
        marks,
        lone: Vec::new(),
    })
}

fn grain_figures(record: &RunRecord) -> anyhow::Result<Vec<Figure>> {
    let mut figures = Vec::new();
    if let Some(curve) = grain_curve(record) {
        let caption = curve.marks.iter().map(|m| format!("{}: {}", m.label, format_ns(m.y))).collect();
        figures.push(Figure {
            id: "fig-grain-sweep".into(),
            title: overhead_schema::experiments::grain::SWEEP.into(),
            svg: curve_svg(&curve, "grain.sweep: elapsed vs. tasks")?,
            legend: legend(&curve),
            caption,
        });
    }
    for p in record.points.iter().filter(|p| p.spec.experiment == overhead_schema::experiments::grain::SWEEP) {
        if let Some(share) = p.details.tables.get("share") {
            let title = format!("{}: share of tasks per CPU", p.name);
            let (svg, legend) = table_bars(&p.spec.runtime, "tasks the work is split into (K)", share)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};

    fn record_of(points: Vec<PointRecord>) -> RunRecord {
        let mut record = sample_record();
        record.points = points;
        record.fits = Vec::new();
        record
    }

    #[test]
    fn the_grain_sweep_is_read_from_its_table_with_the_optimum_marked() {
        use overhead_record::LabelledTable;
        let mut p = point("grain.sweep", "os", &[("threads", "2"), ("work", "1000000")], 1.0);
        let row = |t: &str, v: f64| (t.to_string(), vec![Some(v), Some(v * 0.5), Some(v * 2.0)]);
        p.details.tables.insert(
            "sweep".into(),
            LabelledTable {
                title: String::new(),
                unit: "ns".into(),
                columns: vec!["median".into(), "min".into(), "p90".into()],
                rows: vec![row("1", 900.0), row("10", 400.0), row("100", 600.0)],
            },
        );
        let best = SweepResult {
            work_reads: 1e6,
            best_tasks: 14.0,
            best_decade_tasks: Some(10.0),
            last_decade_tasks: Some(100.0),
            refine_evaluations: 5.0,
            serial_ns: 900.0,
            best_ns: 380.0,
            speedup: 900.0 / 380.0,
        };
        p.extra = overhead_record::result::to_extra(&best);
        let table = p.details.clone();
        let between_details = move || table.clone();
        let c = grain_curve(&record_of(vec![p])).expect("a sweep");
        assert_eq!(c.series[0].label, "os · threads:2");
        assert_eq!(c.series[0].points[1], CurvePoint { x: 10.0, median: 400.0, ci_low: 200.0, ci_high: 800.0 });
        assert_eq!((c.marks[0].x, c.marks[0].y), (14.0, 380.0));
        assert_eq!(c.marks[0].label, "best os (14 tasks)");
        assert!(c.log_x && c.log_y);
        assert!(grain_curve(&sample_record()).is_none());
        // Two processes that found 13 and 14 tasks: their median is no task count, and the label says so.
        let mut between = record_of(vec![]);
        let mut q = point("grain.sweep", "os", &[("threads", "2"), ("work", "1000000")], 1.0);
        q.details = between_details();
        q.extra = overhead_record::result::to_extra(&SweepResult { best_tasks: 13.5, ..best });
        between.points.push(q);
        let c = grain_curve(&between).expect("a sweep");
        assert_eq!(c.marks[0].label, "best os (13.5 tasks, the median of the processes' best)");
    }
}
