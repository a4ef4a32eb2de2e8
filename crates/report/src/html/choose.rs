//! The HTML page's "Choose" figures: one horizontal bar chart per choice table of the
//! record (`RunRecord::choices`), fastest on top, the 95% CI as error bars, the best group (the best and
//! those tied with it) in colour and the rest in grey; the text report's `choose` section has the same
//! tables with their ratios (docs/METHOD.md "Choosing an implementation").

use crate::choose::{heading, verdict_text};
use overhead_record::{CatalogSnapshot, ChoiceTable, RunRecord, Verdict};
use overhead_render::figure::{slug, Figure};
use overhead_render::plot::{ranked_bars_svg, LegendEntry, RankedBar, RANKED_HIGHLIGHT, RANKED_OTHER};

/// Every choice table of the record as a bar chart.
///
/// Errors: a plot could not be drawn.
pub fn choice_figures(record: &RunRecord) -> anyhow::Result<Vec<Figure>> {
    record.choices.iter().map(|t| choice_figure(t, &record.catalog)).collect()
}

/// One table's chart, its legend (the best group, the others) and its caption: what the primitive is,
/// each candidate's verdict, and the candidates without a result.
fn choice_figure(t: &ChoiceTable, catalog: &CatalogSnapshot) -> anyhow::Result<Figure> {
    let bars: Vec<RankedBar> = t
        .candidates
        .iter()
        .map(|c| RankedBar {
            label: c.label(),
            value: c.median_ns,
            low: c.ci_low_ns,
            high: c.ci_high_ns,
            highlight: c.verdict.in_best_group(),
            note: c.flags.iter().map(|f| f.name()).collect::<Vec<_>>().join(", "),
        })
        .collect();
    let title = heading(t);
    let axis = format!("median time {}, 95% CI", t.metric.time_per());
    let mut caption = Vec::new();
    if let Some(e) = catalog.about(&t.experiment) {
        caption.push(format!("{}: {}.", e.id, e.summary));
    }
    let verdicts: Vec<String> = t.candidates.iter().map(|c| format!("{}: {}", c.label(), verdict_text(c))).collect();
    caption.push(format!("{}.", verdicts.join("; ")));
    for n in &t.not_measured {
        caption.push(format!("Not measured: {} ({}).", n.label(), n.reason));
    }
    let mut legend = vec![LegendEntry {
        colour: RANKED_HIGHLIGHT.into(),
        label: "best group: the fastest and those tied with it (ratio's 95% interval includes 1)".into(),
    }];
    let others: Vec<&str> = [Verdict::Slower, Verdict::Undecided]
        .into_iter()
        .filter(|v| t.candidates.iter().any(|c| c.verdict == *v))
        .map(|v| if v == Verdict::Slower { "slower (whole interval above 1)" } else { "undecided (no interval)" })
        .collect();
    if !others.is_empty() {
        legend.push(LegendEntry { colour: RANKED_OTHER.into(), label: others.join("; ") });
    }
    Ok(Figure {
        id: format!("fig-choose-{}", slug(&title)),
        svg: ranked_bars_svg(&title, &axis, &bars)?,
        legend,
        title,
        caption,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};

    /// Three mutexes, one tied with the best: one chart, three bars, the best group in colour, names as
    /// text, an axis without "ns" in its name (the ticks carry the unit).
    #[test]
    fn one_chart_per_table_with_the_best_group_highlighted() {
        let mut record = sample_record();
        let mutex = |lock: &str, (low, median, high): (f64, f64, f64)| {
            let mut p = point("sync.mutex", "os", &[("lock", lock), ("threads", "2")], median);
            (p.summary.ci_low, p.summary.ci_high) = (low, high);
            p
        };
        record.points = vec![
            mutex("std", (40.0, 50.0, 60.0)),
            mutex("futex", (30.0, 38.0, 45.0)),
            mutex("spin", (90.0, 95.0, 100.0)),
        ];
        overhead_analysis::analyze(&mut record, &overhead_experiments::CATALOG);
        let figures = choice_figures(&record).unwrap();
        assert_eq!(figures.len(), 1);
        let f = &figures[0];
        for text in ["os / futex", "os / std", "os / spin", "median time per operation, 95% CI"] {
            assert!(f.svg.contains(text), "{text} missing");
        }
        assert_eq!(
            f.svg.matches(&RANKED_HIGHLIGHT.to_uppercase()).count() + f.svg.matches(RANKED_HIGHLIGHT).count(),
            2
        );
        assert!(f.caption.iter().any(|c| c.contains("os / std: tied with best")), "{:?}", f.caption);
        assert_eq!(f.legend.len(), 2);
    }
}
