//! The HTML report of the fixture record: its structure always, and, where a Chromium is installed
//! (`.ci/run` installs Debian's), the page as a real browser loads it — no console errors, the script ran,
//! and every plot was laid out with a size.

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/quick-run.json")
}

fn html_of(record: &Path) -> String {
    let out = assert_cmd::Command::cargo_bin("overhead")
        .unwrap()
        .args(["report", "--format", "html"])
        .arg(record)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The Chromium to load pages with: `OVERHEAD_CHROMIUM`, else the first of the usual names on PATH.
fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("OVERHEAD_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser", "google-chrome"].map(|name| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// What a headless Chromium made of the page at `path`: the DOM after the page's script ran, and the
/// console messages that were errors (uncaught exceptions, `console.error`).
fn load_in_browser(browser: &Path, path: &Path) -> (String, Vec<String>) {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=5000",
            "--window-size=1400,1000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", path.display()))
        .output()
        .expect("the browser starts");
    assert!(out.status.success(), "the browser failed: {}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let errors = stderr
        .lines()
        .filter(|l| {
            l.contains("Uncaught") || (l.contains(":CONSOLE") && l.contains("ERROR")) || l.contains("console.error")
        })
        .map(String::from)
        .collect();
    (String::from_utf8_lossy(&out.stdout).into_owned(), errors)
}

/// The number after `attribute="` in `dom`.
fn number_attribute(dom: &str, attribute: &str) -> Option<usize> {
    let start = dom.find(&format!("{attribute}=\""))? + attribute.len() + 2;
    dom[start..].split('"').next()?.parse().ok()
}

#[test]
fn the_html_report_holds_the_headline_every_section_and_every_plot() {
    let html = html_of(&fixture());
    let record: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(fixture()).unwrap()).unwrap();
    let points = record["overhead"]["points"].as_array().unwrap();

    assert!(html.starts_with("<!DOCTYPE html>"));
    for external in ["src=\"http", "href=\"http", "src=\"//", "@import", "url(http", "<link"] {
        assert!(!html.contains(external), "the page fetches nothing, but holds {external}");
    }
    // The headline: the key costs the record measured (most of the dozen in a quick run), each with a value
    // and a CI; no empty card.
    let cards = html.matches("<div class=\"label\">").count();
    assert!((6..=12).contains(&cards), "{cards} key costs");
    let headline = &html[html.find("<section id=\"headline\"").unwrap()..html.find("<section id=\"machine\"").unwrap()];
    assert_eq!(headline.matches("95% CI ").count(), cards, "every card has its CI");
    assert!(!html.contains("not measured in this record"));
    for id in ["headline", "machine", "curves", "heat-maps", "distributions", "tables", "points"] {
        assert!(html.contains(&format!("<section id=\"{id}\"")), "section {id} missing");
    }
    // Every figure carries its plot.
    let figures = html.matches("<figure ").count();
    assert!(figures >= 10, "{figures} figures");
    assert_eq!(html.matches("<svg").count(), figures, "one SVG per figure");
    for curve in ["fig-sync-faa", "fig-sched-yield", "fig-sync-oversub-", "fig-grain-sweep"] {
        assert!(html.contains(&format!("id=\"{curve}")), "{curve} missing");
    }
    assert!(html.contains("stroke-dasharray") || html.contains("fit, "), "fitted lines are drawn");
    // Every point has its row, and the studies' tables are there as HTML tables.
    for p in points {
        // The template escapes `/` as an entity; the browser reads it back.
        // The fixture is an older record: its points read under today's names (a renamed experiment).
        let name = overhead::record::legacy::upgrade_name(p["name"].as_str().unwrap()).replace('/', "&#x2f;");
        assert!(html.contains(&format!("id=\"point-{name}\"")), "{name} has no row");
    }
    assert!(html.contains("id=\"table-primitives\"") && html.matches("<table>").count() > 5);

    let Some(browser) = chromium() else {
        assert!(
            std::env::var_os("OVERHEAD_REQUIRE_BROWSER").is_none(),
            "OVERHEAD_REQUIRE_BROWSER is set but no Chromium was found"
        );
        eprintln!("no Chromium found (set OVERHEAD_CHROMIUM): the browser check is skipped, the structural checks ran");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    std::fs::write(&page, &html).unwrap();
    let (dom, errors) = load_in_browser(&browser, &page);
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    assert!(dom.contains("data-ready=\"yes\""), "the page's script did not run to its end");
    assert_eq!(number_attribute(&dom, "data-plots"), Some(figures), "every plot is in the loaded page");
    assert_eq!(number_attribute(&dom, "data-plots-drawn"), Some(figures), "every plot was laid out with a size");

    // The check itself can fail: a page whose script throws is caught.
    let broken = dir.path().join("broken.html");
    std::fs::write(&broken, "<!DOCTYPE html><html><body><script>throw new Error('on purpose');</script></body></html>")
        .unwrap();
    let (_, errors) = load_in_browser(&browser, &broken);
    assert!(!errors.is_empty(), "a thrown error must show up as a console error");
}

/// A record like a run on a 16-CPU machine, from the fixture's first point: `sync.faa` (no fit) and
/// `spawn.forkjoin` (a line with its standard errors) over 1…16 threads, `msg.ipc` over payloads from 8 B to 1 MiB (three transports, two placements), `sched.yield` at two
/// loads (too few points for a line), `sync.oversub` `spawn_sync` at four activity counts (a quadratic) and
/// `just_spawn` at three, and a `mem.c2c` matrix whose cells are all equal. Its fits are derived as a run
/// derives them.
fn synthetic_record(dir: &Path) -> PathBuf {
    let mut record = overhead::record::load(&fixture()).unwrap();
    let template = record.points[0].clone();
    let point = |experiment: &str, params: &[(&str, String)], median: f64| {
        let mut p = template.clone();
        p.spec.experiment = experiment.into();
        p.spec.runtime = "os".into();
        p.spec.params = params.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        p.name = p.spec.name();
        p.details = Default::default();
        p.extra.clear();
        p.summary.median = median;
        (p.summary.ci_low, p.summary.ci_high) = (median * 0.97, median * 1.03);
        p
    };
    // A little scatter around each line, so the fits have errors to report.
    let wobble = |i: u32| 1.0 + 0.02 * f64::from(i % 3) - 0.02;
    let mut points = Vec::new();
    for threads in 1..=16u32 {
        let y = (40.0 + 55.0 * f64::from(threads)) * wobble(threads);
        points.push(point(
            "sync.faa",
            &[("impl", "hw".into()), ("variable", "shared".into()), ("threads", threads.to_string())],
            y,
        ));
        let y = (20_000.0 + 30_000.0 * f64::from(threads)) * wobble(threads + 1);
        points.push(point("spawn.forkjoin", &[("mechanism", "spawn".into()), ("threads", threads.to_string())], y));
    }
    for placement in ["same_cpu", "other_core"] {
        for (t, transport) in ["pipe", "unix_stream", "tcp"].iter().enumerate() {
            for (i, payload) in (3..=20).filter(|k| k % 2 == 1 || *k == 20).map(|k| 1u64 << k).enumerate() {
                let base = 2500.0 * (t as f64 + 1.0) * if placement == "same_cpu" { 0.6 } else { 1.0 };
                let y = base + payload as f64 * 0.08 * wobble(i as u32);
                let params = [
                    ("transport", transport.to_string()),
                    ("payload", payload.to_string()),
                    ("placement", placement.to_string()),
                ];
                points.push(point("msg.ipc", &params, y));
            }
        }
    }
    for load in [0u32, 4] {
        points.push(point(
            "sched.yield",
            &[("cpus", "2".into()), ("load", load.to_string())],
            300.0 + 700.0 * f64::from(load),
        ));
    }
    for activities in [2u32, 4, 8, 16] {
        let x = f64::from(activities);
        let spawn_sync = [
            ("variant", "spawn_sync".into()),
            ("barrier", "spin_yield".into()),
            ("activities", activities.to_string()),
        ];
        points.push(point("sync.oversub", &spawn_sync, (5000.0 + 900.0 * x + 40.0 * x * x) * wobble(activities)));
        if activities < 16 {
            points.push(point(
                "sync.oversub",
                &[("variant", "just_spawn".into()), ("activities", activities.to_string())],
                4000.0 + 800.0 * x,
            ));
        }
    }
    let mut c2c = point("mem.c2c", &[], 80.0);
    let n = 4;
    c2c.details.matrices.insert(
        "one_way".into(),
        overhead::record::Matrix {
            title: "one-way latency".into(),
            unit: "ns".into(),
            row_labels: (0..n).map(|i| i.to_string()).collect(),
            col_labels: (0..n).map(|i| i.to_string()).collect(),
            values: (0..n).map(|i| (0..n).map(|j| (i != j).then_some(80.0)).collect()).collect(),
            uncertainty: None,
        },
    );
    points.push(c2c);
    record.fits = overhead::analysis::fits::derive_fits(&points);
    record.points = points;
    record.skipped.clear();
    let path = dir.join("synthetic.json");
    overhead::record::write_atomic(&path, &record).unwrap();
    path
}

/// The `<text>` elements of every SVG in `html`, unescaped.
fn svg_texts(html: &str) -> Vec<String> {
    let mut texts = Vec::new();
    for svg in html.split("<svg").skip(1) {
        let svg = svg.split("</svg>").next().unwrap();
        for text in svg.split("<text").skip(1) {
            let body = text.split_once('>').map_or("", |(_, rest)| rest);
            let body = body.split("</text>").next().unwrap();
            texts.push(body.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").trim().to_string());
        }
    }
    texts
}

/// The significant digits of a tick label that is a number with an optional unit (`1.20 µs`, `512 KiB`,
/// `16`); `None` for any other text (a title, an axis name).
fn significant_digits(label: &str) -> Option<usize> {
    let number = label.split(' ').next()?;
    let rest = label[number.len()..].trim();
    let units = ["", "ns", "µs", "ms", "s", "B", "KiB", "MiB", "GiB", "%"];
    if !units.contains(&rest) || number.parse::<f64>().is_err() {
        return None;
    }
    let digits = number.trim_start_matches(['-', '+']);
    let digits: String = if digits.contains('.') {
        digits.replace('.', "").trim_start_matches('0').to_string()
    } else {
        digits.trim_start_matches('0').trim_end_matches('0').to_string()
    };
    Some(digits.len())
}

/// Every fit through a series the page prints (`… (r² 0.998, 5 points)`), as (its text, points,
/// coefficients). The timer section's fits over its table's rows (`(r² 0.99)`) are not series fits.
fn printed_fits(html: &str) -> Vec<(String, usize, usize)> {
    let mut fits = Vec::new();
    for (at, _) in html.match_indices("(r² ") {
        let start = html[..at].rfind(['>', '\n']).map_or(0, |i| i + 1);
        let line = &html[start..at];
        let after = &html[at..];
        let close = after.find(')').unwrap_or(after.len());
        let Some(points) = after[..close]
            .strip_suffix(" points")
            .and_then(|s| s.rsplit(", ").next())
            .and_then(|n| n.parse::<usize>().ok())
        else {
            continue;
        };
        let coefficients = if line.contains('²') { 3 } else { 2 };
        fits.push((line.to_string(), points, coefficients));
    }
    fits
}

/// What a careful reader checks on every figure: no tick label longer than four significant digits,
/// integer ticks on a threads axis, bytes in binary units, no y label that names a unit its ticks do not
/// use, no fit through as few points as it has coefficients (the fixture's record holds such fits, from
/// before they were refused: they must not show), and the notes and errors that replace or go with them.
#[test]
fn figures_read_right_and_fits_need_more_points_than_coefficients() {
    let dir = tempfile::tempdir().unwrap();
    let synthetic = synthetic_record(dir.path());
    for (record, is_synthetic) in [(fixture(), false), (synthetic, true)] {
        let html = html_of(&record);
        // sched.yield is drawn against load, as Ben-Asher & Feitelson 1991 Fig. 3 and its fit, even with too few loads to fit.
        assert!(
            html.contains("id=\"fig-sched-yield") && !html.contains("id=\"fig-sched-yield-load-"),
            "sched.yield's axis"
        );
        let texts = svg_texts(&html);
        assert!(texts.len() > 50, "{} texts", texts.len());
        for text in &texts {
            if let Some(digits) = significant_digits(text) {
                assert!(digits <= 4, "tick label {text:?} has {digits} significant digits ({})", record.display());
            }
            assert!(!text.ends_with("(ns)"), "an axis labelled in ns whose ticks carry their own unit: {text:?}");
        }
        for (line, points, coefficients) in printed_fits(&html) {
            assert!(points > coefficients, "a fit through {points} points with {coefficients} coefficients: {line}");
        }
        if !is_synthetic {
            continue;
        }
        std::fs::write(dir.path().join("synthetic.html"), &html).unwrap();
        if let Some(out) = std::env::var_os("OVERHEAD_SYNTHETIC_HTML") {
            std::fs::write(out, &html).unwrap();
        }
        // The threads axis of sync.faa: whole numbers only.
        let faa = html.split("id=\"fig-sync-faa").nth(1).unwrap().split("</figure>").next().unwrap();
        let ticks: Vec<String> = svg_texts(faa).into_iter().filter(|t| significant_digits(t).is_some()).collect();
        for threads in ["2", "4", "8", "16"] {
            assert!(ticks.iter().any(|t| t == threads), "threads tick {threads} missing from {ticks:?}");
        }
        assert!(ticks.iter().all(|t| !t.contains('.') || t.contains(' ')), "a fractional threads tick: {ticks:?}");
        let yield_ticks =
            svg_texts(html.split("id=\"fig-sched-yield").nth(1).unwrap().split("</figure>").next().unwrap());
        assert!(!yield_ticks.iter().any(|t| t.starts_with('-')), "no negative load: {yield_ticks:?}");
        // The payload axis reads bytes in binary units, never a long row of digits.
        let ipc = html.split("id=\"fig-msg-ipc").nth(1).unwrap().split("</figure>").next().unwrap();
        let ipc_ticks = svg_texts(ipc);
        assert!(ipc_ticks.iter().any(|t| t.ends_with(" KiB")), "{ipc_ticks:?}");
        assert!(!ipc_ticks.iter().any(|t| t.len() > 5 && t.chars().all(|c| c.is_ascii_digit())), "{ipc_ticks:?}");
        // Too few points: said, not drawn; enough: drawn with the errors of the coefficients.
        assert!(html.contains("too few points for a fit (2 points; a line needs 3)"), "sched.yield's note");
        assert!(!html.contains("too few points for a fit (3 points; a line needs 3)"));
        assert!(html.contains("fit, os · mechanism:spawn: ("), "spawn.forkjoin's fit with errors");
        assert!(html.contains(" ± "), "coefficients with their standard errors");
        // A heat map of equal cells says so on its colour bar.
        let bar = texts.iter().position(|t| t == "all cells").expect("the colour bar of equal cells says so");
        assert_eq!(texts[bar + 1], "80.0 ns", "and gives their value");
    }
}
