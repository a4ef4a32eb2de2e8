//! `mem.fairness`'s figure on the HTML page (Ben-Asher & Feitelson 1991 Table 2): how accesses to one line split among the
//! threads, per 1000 of the first thread's.

use crate::sections::Figures;
use overhead_record::RunRecord;
use overhead_render::figure::{slug, Figure};
use overhead_render::plot::{bars_legend, bars_svg};
use overhead_schema::experiments::mem::FairnessResult;

/// The page's shares group (docs/ARCHITECTURE.md "Renderers").
pub const SHARES: Figures = Figures {
    id: "shares",
    short: "Shares",
    title: "Shares: how accesses to one line split among CPUs (Ben-Asher & Feitelson 1991 Table 2)",
    intro:
        "Accesses each thread made in the same windows, per 1000 of the first thread's: equal bars are a fair arbiter.",
    position: 60,
    draw: shares,
};

/// Ben-Asher & Feitelson 1991 Table 2's shares: each `mem.fairness` point's accesses per thread, per 1000 of the first's.
fn shares(record: &RunRecord) -> anyhow::Result<Vec<Figure>> {
    let mut figures = Vec::new();
    for p in record.points.iter().filter(|p| p.spec.experiment == overhead_schema::experiments::mem::FAIRNESS) {
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
        let svg = bars_svg(&p.spec.experiment, "per 1000 of thread 0", "thread", &categories, &groups)?;
        figures.push(Figure { id: format!("fig-{}", slug(&title)), title, caption, svg, legend: bars_legend(&groups) });
    }
    Ok(figures)
}
