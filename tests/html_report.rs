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
    // The headline: a dozen key costs, the measured ones with a value and a CI.
    assert_eq!(html.matches("<div class=\"label\">").count(), 12, "twelve key costs");
    assert!(html.matches("95% CI ").count() >= 6, "most key costs are in a quick run, each with its CI");
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
    // Every point has its row, and the seeds' tables are there as HTML tables.
    for p in points {
        // The template escapes `/` as an entity; the browser reads it back.
        let name = p["name"].as_str().unwrap().replace('/', "&#x2f;");
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
