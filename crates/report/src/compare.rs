//! `overhead compare` as tables: per point the baseline's median, each other record's median and its change
//! with the 95% CI of the ratio (`*` where significant), the geometric mean per family, and the points only
//! one record has. The numbers come from [`overhead_analysis::compare`]; this file only formats them.

use comfy_table::{Cell, CellAlignment};

use super::table::new_table;
use super::{format_ns, Format};
use overhead_analysis::compare::Comparison;
use overhead_record::RatioCi;

/// The whole comparison as text.
pub fn compare_tables(c: &Comparison, format: Format) -> String {
    let heading = |title: &str| match format {
        Format::Table => format!("{title}\n"),
        Format::Md => format!("### {title}\n\n"),
    };
    let gap = if format == Format::Md { "\n\n" } else { "\n" };
    let bullet = if format == Format::Md { "- " } else { "  " };
    let mut out = heading("The records");
    out += &sides_lines(c, bullet);
    out += "\n";
    out += &heading(&format!("Every point against {} (the baseline)", c.labels[0]));
    out += &points_table(c, format);
    out += gap;
    out += "change: other / baseline − 1, with the 95% CI of the ratio (log scale) holding both records' within-run \
            CIs and the run level: how far a point and its family move between runs on the machine (see the records \
            above for its source), Student's t at the degrees of freedom those estimates have; * flagged: the \
            change survives the Benjamini–Hochberg control at 5% over every point compared (a flagged change's CI \
            excludes no change; one whose CI excludes it may still be unflagged); ~ read at the baseline's machine \
            speed (the family's speed covariate); — the record lacks the point; n/a no CI\n";
    for (label, m) in c.labels[1..].iter().zip(&c.multiplicity) {
        out += &format!("{bullet}{}\n", multiplicity_line(label, m));
    }
    if !c.families.is_empty() {
        out += "\n";
        out += &heading("Geometric mean of the ratios per family");
        out += &families_table(c, format);
        out += gap;
        out += "each family's ratio weights its points by their precision (a noisy point counts for less); its CI \
                holds the shift its points share from run to run whole: it does not narrow with the number of \
                points; * flagged after the Benjamini–Hochberg control at 5% over the families\n";
    }
    for (family, decision) in &c.speed_decisions {
        out += &format!("{bullet}speed covariate for {family}: {decision}\n");
    }
    for (label, names) in &c.only_in {
        out += &format!("\nonly in {label} ({}): {}\n", names.len(), names.join(", "));
    }
    out
}

/// A line per record: its runs, machine speed and state, and where its run level came from; then the speed
/// findings.
pub fn sides_lines(c: &Comparison, bullet: &str) -> String {
    let mut out = String::new();
    for (k, s) in c.sides.iter().enumerate() {
        let role = if k == 0 { "baseline" } else { "compared" };
        let speed =
            s.speed_ns.map_or("no speed recorded".into(), |v| format!("reference loop {v:.4} ns per iteration"));
        let state = match (s.max_other_share, s.max_steal_share) {
            (Some(o), Some(st)) => {
                format!("other processes ≤ {:.1}% of a measured CPU, steal ≤ {:.1}%", o * 100.0, st * 100.0)
            }
            _ => "machine state not recorded".into(),
        };
        out += &format!(
            "{bullet}{} ({role}, {} record{}): {speed}; {state}; run level: {}\n",
            s.label,
            s.runs,
            if s.runs == 1 { "" } else { "s" },
            s.run_level
        );
    }
    for finding in c.speed_findings.iter().chain(&c.build_findings) {
        out += &format!("{bullet}{finding}\n");
    }
    out
}

/// "b.json: 9 of 338 points flagged after the control (21 with p < 0.05 before it; with no change at all,
/// about 17 would be below 0.05 by chance and any flag at all would come up in at most 5% of comparisons)".
pub fn multiplicity_line(label: &str, m: &overhead_analysis::compare::Multiplicity) -> String {
    let states = match m.state_mismatched {
        0 => String::new(),
        n => format!("; {n} cross-core point(s) left out: the two records' estimates stand for different host states"),
    };
    format!(
        "{label}: {} of {} points flagged after the control ({} with p < 0.05 before it; with no change at all about \
         {:.0} would be below 0.05 by chance, and a flag at all would come up in at most 5% of comparisons){states}",
        m.flagged,
        m.compared,
        m.raw,
        m.compared as f64 * 0.05
    )
}

/// The change cell of a point compared with another record: the change, `n/a` without a ratio, or the two
/// host states where the records' estimates stand for different ones.
pub fn change_cell(v: &overhead_analysis::compare::Versus) -> String {
    if let Some((a, b)) = v.host_states_differ {
        return format!("other host state ({} vs {})", format_ns(a), format_ns(b));
    }
    let mark = if v.speed_adjusted { " ~" } else { "" };
    v.ratio.map_or("n/a".into(), |r| change_text(&r, v.significant) + mark)
}

/// `+10.0% [+8.7%, +11.4%] *`.
pub fn change_text(r: &RatioCi, significant: bool) -> String {
    let pct = |x: f64| format!("{:+.1}%", (x - 1.0) * 100.0);
    format!("{} [{}, {}]{}", pct(r.ratio), pct(r.low), pct(r.high), if significant { " *" } else { "" })
}

fn points_table(c: &Comparison, format: Format) -> String {
    let mut table = new_table(format);
    let mut header = vec!["point".to_string(), c.labels[0].clone()];
    for label in &c.labels[1..] {
        header.push(label.clone());
        header.push(format!("change ({label})"));
    }
    table.set_header(header);
    let right = |text: String| Cell::new(text).set_alignment(CellAlignment::Right);
    for p in &c.points {
        let mut row = vec![Cell::new(&p.name), right(format_ns(p.baseline))];
        for v in &p.others {
            match v {
                None => row.extend([right("—".into()), right("—".into())]),
                Some(v) => {
                    row.push(right(format_ns(v.median)));
                    row.push(right(change_cell(v)));
                }
            }
        }
        table.add_row(row);
    }
    table.to_string()
}

fn families_table(c: &Comparison, format: Format) -> String {
    let mut table = new_table(format);
    let mut header = vec!["family".to_string()];
    header.extend(c.labels[1..].iter().map(|l| format!("{l} vs. {}", c.labels[0])));
    table.set_header(header);
    for f in &c.families {
        let mut row = vec![Cell::new(&f.family)];
        for m in &f.others {
            let text =
                m.map_or("—".into(), |f| format!("{} ({} points)", change_text(&f.ratio, f.flagged), f.points));
            row.push(Cell::new(text).set_alignment(CellAlignment::Right));
        }
        table.add_row(row);
    }
    table.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_analysis::compare::{compare, ComparedRuns};
    use overhead_analysis::run_level::RunLevel;
    use overhead_record::fixture::run_summary;

    fn side(label: &str, scale: f64) -> ComparedRuns {
        let points = [("sync.faa/runtime:os", 30.0 * scale), ("base.loop/runtime:os", scale)];
        ComparedRuns { label: label.into(), runs: vec![run_summary(label, &points, 0.01)], level: level() }
    }

    /// A run level of 1% per family, labelled assumed.
    fn level() -> RunLevel {
        RunLevel::fixed(&[("sync", 0.25, 0.01), ("base", 0.25, 0.01)])
    }

    #[test]
    fn every_point_shows_its_change_and_the_families_their_mean() {
        let c = compare(&[side("a.json", 1.0), side("b.json", 1.1)]);
        let text = compare_tables(&c, Format::Table);
        assert!(text.contains("against a.json (the baseline)"), "{text}");
        assert!(text.contains("run level: assumed"), "{text}");
        assert_eq!(text.matches("+10.0% [").count(), 4, "two points and two families: {text}");
        assert!(text.contains("] *"), "significant: {text}");
        assert!(text.contains("(1 points)"), "{text}");
        let md = compare_tables(&c, Format::Md);
        assert!(md.contains("| sync.faa/runtime:os") && md.contains("### Geometric mean"), "{md}");
    }

    #[test]
    fn changes_read_as_percentages() {
        let r = RatioCi { ratio: 0.9, low: 0.85, high: 0.95 };
        assert_eq!(change_text(&r, true), "-10.0% [-15.0%, -5.0%] *");
        assert_eq!(change_text(&RatioCi { ratio: 1.0, low: 0.98, high: 1.02 }, false), "+0.0% [-2.0%, +2.0%]");
    }
}
