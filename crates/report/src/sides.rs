//! The report's `sides` section: a run that measured its plan on two or more sides (`--side`), each side
//! against the baseline per family and per point, from the processes measured next to each other
//! (`RunRecord::sides`, `overhead_analysis::sides`; docs/METHOD.md §17). `--table sides --format csv` gives
//! the same as one row per point and per family ([`sides_csv`]).

use overhead_humanize::format_ratio;
use std::fmt::Write as _;

use comfy_table::{Cell, CellAlignment};

use super::{new_table, Format};
use overhead_record::{RunRecord, SideRatio, SideRecord, SideScope, Sides};

/// What the section's tables mean, said under them.
pub const CAPTION: &str = "ratio: side ÷ baseline, the geometric mean over the pairs of processes that ran next to \
each other in the same round (a point), or over the points (a family: from five points on the 20% trimmed mean, so \
a change confined to a few points shows in the points flagged, not in the family); 95% CI by Student's t over the \
pairs (a point) or over the points (a family, Tukey–McLaughlin). The sides shared the run, so its run level is not in these intervals: \
they are for this comparison, not for another run. flagged: the change is significant after the Benjamini–Hochberg \
control at 5% over every point (or every family) compared, so among the flags about 5% may be false, however many \
points were compared; not flagged means no change shown, not none.";

/// Said when a side runs another binary: the builds differ in code layout too.
pub const LAYOUT_CAVEAT: &str = "Sides that run different binaries differ in code layout as well as in code (docs/\
METHOD.md \"Between builds\"): two builds of the same source moved whole families by a few percent, so a verdict \
between builds is the builds', not necessarily the change's.";

/// The section; empty for a record without sides.
pub fn sides_section(record: &RunRecord, format: Format) -> String {
    let Some(sides) = &record.sides else {
        return String::new();
    };
    let mut out = describe_sides(sides);
    out += &format!("{}\n", family_table(sides, format));
    let flagged: Vec<&SideRatio> = sides.ratios.iter().filter(|r| r.scope == SideScope::Point && r.flagged).collect();
    let compared = sides.ratios.iter().filter(|r| r.scope == SideScope::Point && r.not_compared.is_none()).count();
    out += &format!("Points flagged: {} of {compared} compared.\n", flagged.len());
    if !flagged.is_empty() {
        out += &format!("{}\n", point_table(&flagged, format));
    }
    let not_compared = sides.ratios.iter().filter(|r| r.not_compared.is_some()).count();
    if not_compared > 0 {
        out += &format!(
            "{not_compared} point(s) not compared (measured on one side only, or fewer than two pairs of processes with positive times; \
             `--table sides --format csv` lists them).\n"
        );
        let one_sided: Vec<&SideRatio> = sides
            .ratios
            .iter()
            .filter(|r| r.not_compared.as_deref().is_some_and(|w| w.starts_with("not on side ")))
            .collect();
        for r in one_sided.iter().take(ONE_SIDED_SHOWN) {
            out += &format!("  {} — {}\n", r.name, r.not_compared.as_deref().unwrap_or_default());
        }
        if one_sided.len() > ONE_SIDED_SHOWN {
            out += &format!("  … and {} more on one side only\n", one_sided.len() - ONE_SIDED_SHOWN);
        }
    }
    out += &format!("\n{CAPTION}\n");
    if sides.sides.iter().any(|s| s.spec.binary.is_some()) {
        out += &format!("{LAYOUT_CAVEAT}\n");
    }
    out
}

/// How many points measured on one side only the section names.
const ONE_SIDED_SHOWN: usize = 12;

/// One line per side: its name, what it is, its build, and how the order of a pair was chosen.
fn describe_sides(sides: &Sides) -> String {
    let mut out = String::new();
    let baseline = &sides.sides[0];
    out += &format!("baseline {}: {}; build {}\n", baseline.spec.name, baseline.spec.describe(), build_of(baseline));
    for side in &sides.sides[1..] {
        out += &format!(
            "side {}: {}; build {}+{}, {}\n",
            side.spec.name,
            side.spec.describe(),
            side.tool.version,
            side.tool.git_commit.as_deref().unwrap_or("unknown"),
            crates_against(side, baseline)
        );
    }
    if sides.sides.iter().any(|s| !s.toolchains.is_empty()) {
        for side in &sides.sides {
            let _ = writeln!(out, "toolchains of {}: {}", side.spec.name, toolchains_of(side));
        }
    }
    out +=
        &format!("Each point's processes for the sides ran back to back in every round, in {} order.\n\n", sides.order);
    out
}

/// A side's external toolchains on one line (`java: openjdk version "17.0.15" …; go: go1.26.8; …`), or that
/// none was found.
fn toolchains_of(side: &SideRecord) -> String {
    if side.toolchains.is_empty() {
        "none found".to_string()
    } else {
        side.toolchains.join("; ")
    }
}

/// `0.1.0+abc123` and the crates under test, as the side's binary answered.
fn build_of(side: &SideRecord) -> String {
    let t = &side.tool;
    let crates: Vec<String> = t.crates.iter().map(|c| format!("{}={}", c.name, c.version)).collect();
    format!("{}+{} ({})", t.version, t.git_commit.as_deref().unwrap_or("unknown"), crates.join(", "))
}

/// How a side's crates under test differ from the baseline's: `the same crates`, or `crates: tokio 1.48.0 →
/// 1.54.1, …` (a crate one side lacks shows `—`).
fn crates_against(side: &SideRecord, baseline: &SideRecord) -> String {
    let version = |s: &SideRecord, name: &str| -> String {
        let v: Vec<&str> = s.tool.crates.iter().filter(|c| c.name == name).map(|c| c.version.as_str()).collect();
        if v.is_empty() {
            "—".into()
        } else {
            v.join("+")
        }
    };
    let mut names: Vec<&str> = side.tool.crates.iter().chain(&baseline.tool.crates).map(|c| c.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let changed: Vec<String> = names
        .into_iter()
        .filter_map(|n| {
            let (from, to) = (version(baseline, n), version(side, n));
            (from != to).then(|| format!("{n} {from} → {to}"))
        })
        .collect();
    if changed.is_empty() {
        "the same crates".into()
    } else {
        format!("crates: {}", changed.join(", "))
    }
}

/// The verdict of a ratio: `×1.05 slower`, `×0.95 faster`, `no change shown`.
pub fn verdict(r: &SideRatio) -> String {
    match (r.flagged, r.ratio >= 1.0) {
        (false, _) => "no change shown".into(),
        (true, true) => format!("×{} slower", format_ratio(r.ratio)),
        (true, false) => format!("×{} faster", format_ratio(r.ratio)),
    }
}

/// `×1.05 (1.02–1.08)`.
fn ratio_cell(r: &SideRatio) -> String {
    format!("×{} ({}–{})", format_ratio(r.ratio), format_ratio(r.ci_low), format_ratio(r.ci_high))
}

/// Per family and side: ratio with CI, points, verdict.
fn family_table(sides: &Sides, format: Format) -> String {
    let families: Vec<&SideRatio> = sides.ratios.iter().filter(|r| r.scope == SideScope::Family).collect();
    ratio_table(["family", "side", "÷ baseline (95% CI)", "points", "verdict"], &families, format)
}

/// The flagged points: name, side, ratio with CI, pairs, verdict.
fn point_table(points: &[&SideRatio], format: Format) -> String {
    ratio_table(["point", "side", "÷ baseline (95% CI)", "pairs", "verdict"], points, format)
}

/// A table of `rows` under `header`: name, side, ratio with CI, n, verdict.
fn ratio_table(header: [&str; 5], rows: &[&SideRatio], format: Format) -> String {
    let mut table = new_table(format);
    table.set_header(header);
    for r in rows {
        table.add_row([
            Cell::new(&r.name),
            Cell::new(&r.side),
            Cell::new(ratio_cell(r)).set_alignment(CellAlignment::Right),
            Cell::new(r.n).set_alignment(CellAlignment::Right),
            Cell::new(verdict(r)),
        ]);
    }
    table.to_string()
}

/// The columns of [`sides_csv`].
pub const CSV_COLUMNS: [&str; 10] =
    ["scope", "name", "side", "ratio", "ci_low", "ci_high", "n", "p_value", "flagged", "not_compared"];

/// One row per point and per family of every side against the baseline ([`CSV_COLUMNS`]): `scope` `point` or
/// `family`, `n` the pairs (a point) or points (a family), `flagged` `true`/`false`, numbers empty where
/// a point could not be compared (`not_compared` says why). Only the header for a record without sides.
///
/// Errors: the CSV writer failed (it writes to memory; not expected).
pub fn sides_csv(record: &RunRecord) -> anyhow::Result<String> {
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record(CSV_COLUMNS)?;
    let number = |v: f64| if v.is_finite() { v.to_string() } else { String::new() };
    for r in record.sides.iter().flat_map(|s| &s.ratios) {
        let scope = match r.scope {
            SideScope::Point => "point",
            SideScope::Family => "family",
        };
        out.write_record([
            scope.to_string(),
            r.name.clone(),
            r.side.clone(),
            number(r.ratio),
            number(r.ci_low),
            number(r.ci_high),
            r.n.to_string(),
            number(r.p_value),
            r.flagged.to_string(),
            r.not_compared.clone().unwrap_or_default(),
        ])?;
    }
    Ok(String::from_utf8(out.into_inner()?)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::sample_record;
    use overhead_record::{SideSpec, ToolInfo, SIDE_ORDER};

    use overhead_record::fixture::side_ratio as ratio;

    fn with_sides(binary: Option<&str>) -> RunRecord {
        let tool = ToolInfo {
            name: "overhead".into(),
            version: "0.1.0".into(),
            git_commit: Some("abc".into()),
            crates: vec![],
        };
        let side = |name: &str, binary: Option<&str>| SideRecord {
            spec: SideSpec { name: name.into(), binary: binary.map(Into::into), env: vec![("K".into(), "1".into())] },
            tool: tool.clone(),
            points: Vec::new(),
            skipped: Vec::new(),
            toolchains: Vec::new(),
        };
        let mut record = sample_record();
        let mut not_compared = ratio(SideScope::Point, "sync.barrier/runtime:os", f64::NAN, false);
        (not_compared.not_compared, not_compared.p_value) = (Some("1 pair(s)".into()), f64::NAN);
        record.sides = Some(Sides {
            sides: vec![side("a", None), side("b", binary)],
            order: SIDE_ORDER.into(),
            ratios: vec![
                ratio(SideScope::Point, "sync.faa/runtime:os", 1.06, true),
                ratio(SideScope::Point, "sync.mutex/runtime:os", 1.01, false),
                not_compared,
                ratio(SideScope::Family, "sync", 0.95, true),
            ],
        });
        record
    }

    #[test]
    fn the_section_gives_each_family_and_the_flagged_points_with_their_verdicts() {
        assert!(sides_section(&sample_record(), Format::Table).is_empty());
        let text = sides_section(&with_sides(None), Format::Table);
        assert!(text.contains("baseline a: K=1 (this binary); build 0.1.0+abc"), "{text}");
        assert!(text.contains("side b: K=1 (this binary); build 0.1.0+abc, the same crates"), "{text}");
        assert!(text.contains("×0.95 faster") && text.contains("×1.06 slower"), "{text}");
        assert!(text.contains("Points flagged: 1 of 2 compared."), "{text}");
        assert!(!text.contains("sync.mutex"), "an unflagged point is not listed: {text}");
        assert!(text.contains("1 point(s) not compared"), "{text}");
        assert!(text.contains("Benjamini–Hochberg") && !text.contains("code layout"), "{text}");
        assert!(sides_section(&with_sides(Some("/x/overhead")), Format::Md).contains("code layout"));
    }

    #[test]
    fn a_side_names_the_crates_whose_versions_differ_from_the_baseline() {
        let mut record = with_sides(None);
        let sides = record.sides.as_mut().unwrap();
        let krate = |n: &str, v: &str| overhead_record::CrateVersion { name: n.into(), version: v.into() };
        sides.sides[0].tool.crates = vec![krate("flume", "0.11.0"), krate("tokio", "1.48.0")];
        sides.sides[1].tool.crates = vec![krate("flume", "0.11.0"), krate("tokio", "1.54.1"), krate("kanal", "0.1.1")];
        assert_eq!(crates_against(&sides.sides[1], &sides.sides[0]), "crates: kanal — → 0.1.1, tokio 1.48.0 → 1.54.1");
    }

    #[test]
    fn the_csv_has_a_row_per_point_and_family_with_the_flag() {
        let csv = sides_csv(&with_sides(None)).unwrap();
        let rows: Vec<&str> = csv.lines().collect();
        assert_eq!(rows[0], CSV_COLUMNS.join(","));
        assert_eq!(rows.len(), 5);
        assert!(rows[1].starts_with("point,sync.faa/runtime:os,b,1.06,") && rows[1].contains(",true,"), "{}", rows[1]);
        assert!(rows[3].starts_with("point,sync.barrier/runtime:os,b,,,,5,,false,1 pair(s)"), "{}", rows[3]);
        assert!(rows[4].starts_with("family,sync,b,0.95,"), "{}", rows[4]);
        assert_eq!(sides_csv(&sample_record()).unwrap().lines().count(), 1);
    }
}
