//! Golden tests of the renderers: a fixture record (a real `--quick` run on a 2-vCPU VM, its Google
//! Benchmark entries dropped and numbers rounded to 6 digits to keep it small) rendered to every text
//! format must match the committed output byte for byte. A change to a renderer that is meant to change
//! the output regenerates the files with `OVERHEAD_BLESS=1 cargo test --test it golden` and commits them with
//! the change, so the diff shows what a reader will see differently.

use std::path::{Path, PathBuf};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Renders the fixture with `overhead report … --format FORMAT` and compares it with `quick-run.FORMAT`.
fn check(format: &str, extension: &str) {
    let dir = golden_dir();
    let out = assert_cmd::Command::cargo_bin("overhead")
        .unwrap()
        .args(["report", "--format", format])
        .arg(dir.join("quick-run.json"))
        .env_remove("COLUMNS")
        .output()
        .unwrap();
    assert!(out.status.success(), "report failed: {}", String::from_utf8_lossy(&out.stderr));
    let rendered = String::from_utf8(out.stdout).unwrap();
    let expected_path = dir.join(format!("quick-run.{extension}"));
    if std::env::var_os("OVERHEAD_BLESS").is_some() {
        std::fs::write(&expected_path, &rendered).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&expected_path).unwrap();
    if rendered != expected {
        let first = rendered.lines().zip(expected.lines()).position(|(a, b)| a != b);
        let line = first.unwrap_or(rendered.lines().count().min(expected.lines().count()));
        panic!(
            "{format} output differs from {} at line {}:\n  got:      {:?}\n  expected: {:?}\n\
             (OVERHEAD_BLESS=1 cargo test --test it golden regenerates it if the change is meant)",
            expected_path.display(),
            line + 1,
            rendered.lines().nth(line),
            expected.lines().nth(line)
        );
    }
}

#[test]
fn terminal_table_matches_the_golden_output() {
    check("table", "txt");
}

#[test]
fn markdown_matches_the_golden_output() {
    check("md", "md");
}

/// `report --table KEY` prints exactly the section the full report shows under its heading, for every key
/// `--help` lists; an unknown key is refused with the list.
#[test]
fn every_section_alone_is_the_full_reports_section() {
    let fixture = golden_dir().join("quick-run.json");
    let run = |table: &str| {
        assert_cmd::Command::cargo_bin("overhead")
            .unwrap()
            .args(["report", "--table", table])
            .arg(&fixture)
            .output()
            .unwrap()
    };
    let full = String::from_utf8(run("all").stdout).unwrap();
    let help = assert_cmd::Command::cargo_bin("overhead").unwrap().args(["report", "--help"]).output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    let keys = ["primitives", "yield_oversub", "convert", "timers", "choose", "fits", "matrices", "latency", "grain"];
    for key in keys {
        assert!(help.contains(&format!("- {key}:")), "--help does not list {key}");
        let section = String::from_utf8(run(key).stdout).unwrap();
        assert!(!section.is_empty(), "{key} is empty for a full quick run");
        assert!(full.contains(&section), "{key} differs from its part of the full report");
    }
    let bad = run("nope");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("possible values"));
}
