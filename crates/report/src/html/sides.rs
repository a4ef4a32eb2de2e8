//! The HTML page's "Sides" figure: for a run with `--side`, each side ÷ the baseline per family on one log
//! axis around ×1, the flagged ones in colour (docs/METHOD.md §17). The text section `sides` below it has
//! the same numbers and the flagged points.

use crate::sides::{verdict, LAYOUT_CAVEAT};
use overhead_record::{RunRecord, SideScope, Sides};
use overhead_render::figure::{slug, Figure};
use overhead_render::plot::LegendEntry;
use overhead_render::ratio_plot::{ratio_forest_svg, RatioRow, FASTER, SLOWER, UNFLAGGED};

/// One figure per side after the first: its families' ratios to the baseline. None without sides.
///
/// Errors: a plot could not be drawn.
pub fn side_figures(record: &RunRecord) -> anyhow::Result<Vec<Figure>> {
    let Some(sides) = &record.sides else {
        return Ok(Vec::new());
    };
    sides.sides.iter().skip(1).map(|side| side_figure(sides, &side.spec.name)).collect()
}

/// The families of `side` against the baseline.
fn side_figure(sides: &Sides, side: &str) -> anyhow::Result<Figure> {
    let families: Vec<_> = sides.ratios.iter().filter(|r| r.scope == SideScope::Family && r.side == side).collect();
    let rows: Vec<RatioRow> = families
        .iter()
        .map(|r| RatioRow {
            label: format!("{} ({} points)", r.name, r.n),
            ratio: r.ratio,
            low: r.ci_low,
            high: r.ci_high,
            flagged: r.flagged,
        })
        .collect();
    let title = format!("{side} ÷ {} per family", sides.baseline());
    let points = |flag: bool| {
        sides.ratios.iter().filter(|r| r.scope == SideScope::Point && r.side == side && r.flagged == flag).count()
    };
    let mut caption = vec![format!(
        "Each row is a family: the geometric mean over its points of {side}'s time ÷ {}'s, from processes run \
         next to each other in every round, with its 95% CI over the points; from five points on the 20% \
         trimmed mean, so a change confined to a few points shows in the points flagged, not in the family. \
         The run level is not in these intervals: the sides shared the run.",
        sides.baseline()
    )];
    let verdicts: Vec<String> = families.iter().map(|r| format!("{}: {}", r.name, verdict(r))).collect();
    caption.push(format!("{}.", verdicts.join("; ")));
    caption.push(format!(
        "Points flagged after the Benjamini–Hochberg control at 5%: {} of {} (the table \"Sides\" lists them).",
        points(true),
        points(true) + points(false)
    ));
    if sides.sides.iter().any(|s| s.spec.binary.is_some()) {
        caption.push(LAYOUT_CAVEAT.into());
    }
    Ok(Figure {
        id: format!("fig-sides-{}", slug(side)),
        svg: ratio_forest_svg(&title, &format!("{side} ÷ {}, 95% CI", sides.baseline()), &rows)?,
        legend: vec![
            LegendEntry { colour: SLOWER.into(), label: "flagged slower".into() },
            LegendEntry { colour: FASTER.into(), label: "flagged faster".into() },
            LegendEntry { colour: UNFLAGGED.into(), label: "no change shown".into() },
        ],
        title,
        caption,
    })
}
