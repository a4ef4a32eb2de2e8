//! End-to-end tests of the command line: tiny plans run for real, and every bad input refused.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use assert_cmd::cargo::CommandCargoExt;
use predicates::prelude::*;

/// The binary, with its history in the test build's own folder (never the user's).
fn overhead() -> assert_cmd::Command {
    let mut command = assert_cmd::Command::cargo_bin("overhead").unwrap();
    command.env("XDG_DATA_HOME", concat!(env!("CARGO_TARGET_TMPDIR"), "/cli-history"));
    command
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn quick_run_of_every_experiment_fills_the_record() {
    let dir = tempfile::tempdir().unwrap();
    overhead()
        .args(["run", "--quick", "--export", "csv,bmf,github-benchmark", "--out"])
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("results.json"))
        .stdout(predicate::str::contains("Key costs").and(predicate::str::contains("--table all")))
        .stdout(predicate::function(|out: &str| out.lines().count() <= 60 && out.trim_end().ends_with("results.json")));
    let record = read_json(&dir.path().join("results.json"));
    let rec = &record["overhead"];
    // The exports asked for lie next to the record, each with every point.
    let points = rec["points"].as_array().unwrap().len();
    assert_eq!(read_json(&dir.path().join("results.bmf.json")).as_object().unwrap().len(), points);
    assert_eq!(read_json(&dir.path().join("results.github-benchmark.json")).as_array().unwrap().len(), points);
    let csv = std::fs::read_to_string(dir.path().join("results.csv")).unwrap();
    assert_eq!(csv::Reader::from_reader(csv.as_bytes()).records().count(), points);
    // And the HTML report, always.
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("id=\"headline\""));
    assert_eq!(rec["interrupted"], false);
    for id in [
        "base.loop",
        "base.call",
        "base.syscall",
        "clock.read",
        "clock.convert",
        "timer.hotpath",
        "sched.switch",
        "spawn.create",
        "sync.faa",
        "sync.barrier",
        "msg.ipc",
        "rpc.methods",
        "rpc.floor",
    ] {
        let has = |key: &str| rec[key].as_array().unwrap().iter().any(|p| p["spec"]["experiment"] == id);
        assert!(has("points") || has("skipped"), "{id} is neither measured nor skipped");
    }
    for p in rec["points"].as_array().unwrap() {
        assert!(p["spec"]["cpus"].as_array().is_some_and(|c| !c.is_empty()), "{} has no CPUs", p["name"]);
        let s = &p["summary"];
        assert!(s["ci_low"].as_f64().unwrap() <= s["median"].as_f64().unwrap(), "{}", p["name"]);
        assert!(s["median"].as_f64().unwrap() <= s["ci_high"].as_f64().unwrap(), "{}", p["name"]);
    }
    for s in rec["skipped"].as_array().unwrap() {
        assert!(!s["reason"].as_str().unwrap().is_empty());
    }
    // Two-party points say how their CPUs relate.
    let switch = rec["points"].as_array().unwrap().iter().find(|p| p["spec"]["experiment"] == "sched.switch").unwrap();
    assert_eq!(switch["spec"]["placement"], "same_cpu");
    // Google Benchmark's part: repetitions and aggregates for each point.
    let entries = record["benchmarks"].as_array().unwrap();
    assert!(entries.iter().any(|e| e["aggregate_name"] == "median"));
    assert!(entries.iter().all(|e| e["time_unit"] == "ns"));

    // The record renders again, as a table and as Markdown.
    let path = dir.path().join("results.json");
    overhead().arg("report").arg(&path).assert().success().stdout(predicate::str::contains("sync.faa"));
    overhead()
        .args(["report", "--format", "md"])
        .arg(&path)
        .assert()
        .success()
        .stdout(predicate::str::contains("| point"));
    overhead()
        .args(["report", "--table", "convert"])
        .arg(&path)
        .assert()
        .success()
        .stdout(predicate::str::contains("fast_path").and(predicate::str::contains("≤ 1 h")));
    overhead()
        .args(["report", "--table", "timers"])
        .arg(&path)
        .assert()
        .success()
        .stdout(predicate::str::contains("§5.3 Absolute timeouts").and(predicate::str::contains("N × R").not()));
}

/// `--table seed001`, the older name of the yield and oversubscription tables, prints what `yield_oversub`
/// prints; the report names the studies by author, never "seed".
#[test]
fn an_older_table_name_still_works_and_the_report_names_no_seed() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/quick-run.json");
    let by = |key: &str| {
        overhead().args(["report", "--table", key]).arg(&fixture).assert().success().get_output().stdout.clone()
    };
    let (old, new) = (by("seed001"), by("yield_oversub"));
    assert!(!new.is_empty() && old == new);
    for format in ["table", "md", "html"] {
        let out = overhead()
            .args(["report", "--format", format])
            .arg(&fixture)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let text = String::from_utf8_lossy(&out).to_lowercase();
        let at = text.find("seed");
        assert!(
            at.is_none(),
            "--format {format}: {:?}",
            at.map(|i| &text[i.saturating_sub(80)..(i + 40).min(text.len())])
        );
    }
    let list = overhead().arg("list").assert().success().get_output().stdout.clone();
    assert!(!String::from_utf8_lossy(&list).to_lowercase().contains("seed"));
}

/// Every export of the fixture record parses with an ordinary reader and holds every point with its
/// median and CI as the analysis makes them on load (an older record's intervals are made again on the log
/// scale); `--table` with an export is refused.
#[test]
fn exports_of_a_record_parse_and_hold_every_point() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/quick-run.json");
    // The fixture is an older record: `load` reads its points under today's names (a renamed experiment).
    let mut record = overhead::record::load(&fixture).unwrap();
    overhead::analysis::analyze(&mut record, &overhead::experiments::CATALOG);
    let points = &record.points;
    let export = |format: &str| {
        let out = overhead().args(["report", "--format", format]).arg(&fixture).output().unwrap();
        assert!(out.status.success(), "{format}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let bmf: serde_json::Value = serde_json::from_str(&export("bmf")).unwrap();
    let action: serde_json::Value = serde_json::from_str(&export("github-benchmark")).unwrap();
    let csv_text = export("csv");
    let rows: Vec<csv::StringRecord> =
        csv::Reader::from_reader(csv_text.as_bytes()).records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), points.len());
    assert_eq!(action.as_array().unwrap().len(), points.len());
    // serde_json's default parser may round a number's last bit differently from the writer's.
    let same = |read: Option<f64>, value: f64| read.is_some_and(|r| (r - value).abs() <= 1e-12 * value.abs());
    for (p, row) in points.iter().zip(&rows) {
        let (name, s) = (&p.name, &p.summary);
        assert_eq!(&row[0], name);
        assert!(same(row[7].parse::<f64>().ok(), s.median), "{name}");
        assert!(same(bmf[name]["latency"]["value"].as_f64(), s.median), "{name}");
        assert!(same(bmf[name]["latency"]["lower_value"].as_f64(), s.ci_low), "{name}");
        assert!(same(bmf[name]["latency"]["upper_value"].as_f64(), s.ci_high), "{name}");
    }
    overhead()
        .args(["report", "--format", "csv", "--table", "ipc"])
        .arg(&fixture)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--table ipc"));
}

/// A reader that stops early (`| head`) ends `report` quietly, without a panic on the broken pipe.
#[test]
fn report_into_a_closed_pipe_ends_quietly() {
    use std::io::Read;
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/quick-run.json");
    let mut child = Command::cargo_bin("overhead")
        .unwrap()
        .args(["report", "--format", "csv"])
        .arg(&fixture)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    child.wait().unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// `compare` of the fixture record with a copy whose every time is ×1.1 reports +10% on every point, and
/// refuses a file that is not a record.
#[test]
fn compare_reports_plus_ten_percent_against_a_copy_times_1_1() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/quick-run.json");
    let mut record = read_json(&fixture);
    let points = record["overhead"]["points"].as_array_mut().unwrap();
    let n = points.len();
    for p in points.iter_mut() {
        for key in ["median", "ci_low", "ci_high"] {
            let v = p["summary"][key].as_f64().unwrap();
            p["summary"][key] = serde_json::json!(v * 1.1);
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let slower = dir.path().join("slower.json");
    std::fs::write(&slower, record.to_string()).unwrap();
    let out = overhead().arg("compare").arg(&fixture).arg(&slower).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    // Every point (a row with a point name) changes by +10.0%; points without a CI say n/a.
    let rows: Vec<&str> = text.lines().filter(|l| l.contains("/runtime:")).collect();
    assert_eq!(rows.len(), n, "{text}");
    assert!(rows.iter().all(|r| r.contains("+10.0% [") || r.contains("n/a")), "{text}");
    assert!(rows.iter().filter(|r| r.contains("+10.0% [")).count() > n / 2, "{text}");
    let not_a_record = dir.path().join("x.json");
    std::fs::write(&not_a_record, "[1, 2]").unwrap();
    overhead().arg("compare").arg(&fixture).arg(&not_a_record).assert().code(2);
    overhead().arg("compare").arg(&fixture).assert().code(2);
}

#[test]
fn unknown_experiment_is_refused_with_closest_ids() {
    overhead()
        .args(["run", "--only", "sync.fa"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("sync.faa").and(predicate::str::contains("unknown experiment")));
}

#[test]
fn plan_lists_points_and_skips_without_measuring() {
    let dir = tempfile::tempdir().unwrap();
    let out = overhead()
        .args(["run", "--quick", "--plan", "--only", "base.syscall,sync.sem", "--runtime", "os,rayon", "--out"])
        .arg(dir.path().join("never"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().any(|l| l == "base.syscall/runtime:os"), "{text}");
    assert!(text.lines().any(|l| l == "sync.sem/runtime:os/op:switch"), "{text}");
    assert!(
        text.lines().any(|l| l.starts_with("skip sync.sem/runtime:rayon: runtime rayon has no semaphore")),
        "{text}"
    );
    assert!(!dir.path().join("never").exists(), "--plan wrote a record");
}

/// The last line of `overhead run --plan --simulate` with `args` after it, checked to read as documented:
/// its points and processes.
fn simulated(args: &[&str]) -> (usize, usize) {
    let golden = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/quick-run.json");
    let out = overhead().args(["run", "--quick", "--plan", "--simulate", golden]).args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let last = text.lines().last().unwrap();
    let words: Vec<&str> = last.split(' ').collect();
    let pattern =
        ["simulated:", "P", "points,", "N", "processes,", "W", "s,", "fewest", "processes", "a", "point", "M"];
    assert_eq!(words.len(), pattern.len(), "{last}");
    for (word, expected) in words.iter().zip(pattern) {
        match expected {
            "P" | "N" | "M" => assert!(word.parse::<usize>().is_ok(), "{last}"),
            "W" => assert!(word.parse::<f64>().is_ok_and(|w| w > 0.0), "{last}"),
            _ => assert_eq!(*word, expected, "{last}"),
        }
    }
    assert!(text.lines().any(|l| l.starts_with("sync.sem/runtime:os/op:switch  ") && l.contains(" processes  ")));
    (words[1].parse().unwrap(), words[3].parse().unwrap())
}

#[test]
fn a_simulated_run_says_what_each_point_would_get_on_the_recorded_or_a_described_machine() {
    let (points, processes) = simulated(&["--only", "sync"]);
    assert!(points > 0 && processes >= points, "every point keeps its first process");
    let described = concat!(env!("CARGO_MANIFEST_DIR"), "/crates/orchestrator/tests/data/64cpu.lscpu");
    let (on_64, _) = simulated(&["--only", "sync", "--topology", described]);
    assert!(on_64 > points, "64 CPUs plan more thread counts than the record's machine: {on_64} vs {points}");
    let (sided, sided_processes) = simulated(&["--only", "sync", "--side", "a=", "--side", "b="]);
    assert!(sided == points && sided_processes >= 2 * points, "two sides: {sided} points, {sided_processes}");
    let bad = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(bad.path(), "# CPU,Core\n0,x\n").unwrap();
    let golden = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/quick-run.json");
    overhead()
        .args(["run", "--plan", "--simulate", golden, "--topology"])
        .arg(bad.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--topology").and(predicate::str::contains("\"x\" is not a number")));
}

#[test]
fn unknown_runtime_is_refused() {
    overhead()
        .args(["run", "--runtime", "pthread"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("known runtimes"));
}

#[test]
fn runtime_without_the_experiment_is_a_skipped_cell() {
    let dir = tempfile::tempdir().unwrap();
    overhead()
        .args(["run", "--quick", "--verbose", "--only", "base.syscall", "--runtime", "os,tokio", "--out"])
        .arg(dir.path())
        .assert()
        .success()
        .stdout(
            predicate::str::contains("base.syscall/runtime:os")
                .and(predicate::str::contains("Points without a result")),
        );
    let record = read_json(&dir.path().join("results.json"));
    let skipped = record["overhead"]["skipped"].as_array().unwrap();
    assert!(
        skipped
            .iter()
            .any(|s| s["spec"]["runtime"] == "tokio"
                && s["reason"].as_str().unwrap().contains("has no kernel facilities"))
    );
}

#[test]
fn cpus_beyond_the_machine_are_refused() {
    overhead()
        .args(["run", "--cpus", "0,99999"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("CPU 99999 is not available"));
    overhead().args(["run", "--cpus", "3-1"]).assert().code(2).stderr(predicate::str::contains("--cpus"));
}

#[test]
fn unwritable_out_is_refused_before_measuring() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    // Refused before anything was planned or measured: no plan line, no record (a bound on the wall time
    // would assume the host's speed).
    overhead()
        .args(["run", "--out"])
        .arg(file.join("sub"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--out").and(predicate::str::contains("cannot write")))
        .stderr(predicate::str::contains("plan:").not());
    assert!(!file.join("sub").exists());
}

#[test]
fn corrupt_or_foreign_record_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let corrupt = dir.path().join("corrupt.json");
    std::fs::write(&corrupt, "{\"context\": {").unwrap();
    overhead().arg("report").arg(&corrupt).assert().code(2).stderr(predicate::str::contains("is not JSON"));
    let plain = dir.path().join("plain.json");
    std::fs::write(&plain, r#"{"context":{},"benchmarks":[]}"#).unwrap();
    overhead().arg("report").arg(&plain).assert().code(2).stderr(predicate::str::contains("plain Google Benchmark"));
    overhead()
        .arg("report")
        .arg(dir.path().join("missing.json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read"));
}

#[test]
fn an_out_directory_holding_a_record_is_refused_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.json");
    let run = || {
        overhead().args(["run", "--quick", "--only", "base.loop", "--runtime", "os", "--out"]).arg(dir.path()).assert()
    };
    run().success();
    // The full report has every point.
    overhead()
        .args(["report", "--table", "all"])
        .arg(&path)
        .assert()
        .success()
        .stdout(predicate::str::contains("base.loop/runtime:os"));
    let first = std::fs::read(&path).unwrap();
    let record = read_json(&path);
    let processes = record["overhead"]["points"][0]["processes"].as_array().unwrap().len();
    assert!(processes >= 3, "a point is measured by at least three processes, got {processes}");
    run().code(2).stderr(predicate::str::contains("already holds a record"));
    assert_eq!(std::fs::read(&path).unwrap(), first, "the earlier record was changed");
}

#[test]
fn interrupt_keeps_finished_points_in_a_valid_record() {
    // Two families: their minimum rounds take seconds, so the first write of the record (after a second)
    // comes before they end, however fast this machine's processes are (two experiments of 16 points ended
    // them in 0.85 s here).
    const ONLY: &str = "clock,spawn";
    let planned = String::from_utf8(overhead().args(["run", "--plan", "--only", ONLY]).output().unwrap().stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("skip "))
        .count();
    assert!(planned > 40, "{planned} points planned");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.json");
    let mut child = Command::cargo_bin("overhead")
        .unwrap()
        .args(["run", "--only", ONLY, "--out"])
        .arg(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until at least one point is in the record, then interrupt as Ctrl-C would.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        assert!(Instant::now() < deadline, "no point finished within 60 s");
        if path.exists() && read_json(&path)["overhead"]["points"].as_array().is_some_and(|p| !p.is_empty()) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: sending SIGINT to our own child process.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let record = read_json(&path);
    assert_eq!(record["overhead"]["interrupted"], true);
    let points = record["overhead"]["points"].as_array().unwrap();
    assert!(!points.is_empty(), "no point kept");
    // Stopped early: some planned point has fewer than the minimum three processes (or none at all).
    let complete = points.iter().all(|p| p["processes"].as_array().map_or(0, Vec::len) >= 3);
    assert!(!complete || points.len() < planned, "the run finished its minimum rounds before the interrupt");
    overhead().arg("report").arg(&path).assert().success().stdout(predicate::str::contains("INTERRUPTED"));
}

#[test]
fn check_reports_linearity_and_control_cost() {
    let out = overhead().args(["check", "--json"]).assert().success().get_output().stdout.clone();
    let report: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let ratio = report["linearity_ratio"].as_f64().unwrap();
    assert!(ratio.is_finite() && ratio > 1.0, "{ratio}");
    assert!(report["control_cost_ns"].as_f64().unwrap() > 0.0);
    assert!(report["time_source"]["clock"]["hz"].as_f64().unwrap() > 0.0);
}

#[test]
fn list_names_every_experiment_with_its_source() {
    overhead()
        .arg("list")
        .assert()
        .success()
        .stdout(predicate::str::contains("sched.switch").and(predicate::str::contains("Feitelson")));
}

/// `overhead list` also names every runtime with the implementations it offers: the channel crates under `os`,
/// with std's mpsc first (on a wide terminal, so no cell wraps).
#[test]
fn list_names_every_runtime_with_its_implementations() {
    let out = overhead().arg("list").env("COLUMNS", "400").assert().success().get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    for name in ["os", "tokio", "fiber-asm", "mpi"] {
        assert!(text.lines().any(|l| l.trim_start().starts_with(&format!("{name} "))), "{name} missing:\n{text}");
    }
    assert!(text.contains("msg.async impl:): std_mpsc"), "{text}");
    assert!(text.contains("sync.mutex lock:): std"), "{text}");
}

/// `overhead list` fits its tables to the width it is given (`$COLUMNS` when stdout is not a terminal): long
/// cells wrap between words instead of running off the screen.
#[test]
fn list_fits_the_terminal_width() {
    for width in [80usize, 120] {
        let out =
            overhead().arg("list").env("COLUMNS", width.to_string()).assert().success().get_output().stdout.clone();
        let text = String::from_utf8(out).unwrap();
        let widest = text.lines().map(|l| l.trim_end().chars().count()).max().unwrap();
        assert!(widest <= width, "a line of {widest} characters at width {width}:\n{text}");
        assert!(text.contains("sched.switch") && text.contains("Feitelson"), "{text}");
        assert!(!text.to_lowercase().contains("seed"), "the studies by their authors, never \"seed\": {text}");
    }
}

#[test]
fn openmp_cells_of_faa_and_barrier_are_measured_with_their_team_size() {
    let dir = tempfile::tempdir().unwrap();
    overhead()
        .args(["run", "--quick", "--only", "sync.faa,sync.barrier", "--runtime", "openmp", "--out"])
        .arg(dir.path())
        .assert()
        .success();
    let record = read_json(&dir.path().join("results.json"));
    let rec = &record["overhead"];
    let failed: Vec<_> = rec["skipped"].as_array().unwrap().iter().filter(|s| s["kind"] != "skipped").collect();
    assert!(failed.is_empty(), "openmp points failed: {failed:?}");
    let points = rec["points"].as_array().unwrap();
    for (id, implementation) in [("sync.faa", "omp_atomic"), ("sync.barrier", "omp_barrier")] {
        let mine: Vec<_> = points.iter().filter(|p| p["spec"]["experiment"] == id).collect();
        assert!(!mine.is_empty() || rec["skipped"].as_array().unwrap().iter().any(|s| s["spec"]["experiment"] == id));
        for p in mine {
            assert_eq!(p["spec"]["runtime"], "openmp");
            assert!(p["name"].as_str().unwrap().contains(&format!("/impl:{implementation}/")), "{}", p["name"]);
            let threads: u64 = p["name"].as_str().unwrap().rsplit("threads:").next().unwrap().parse().unwrap();
            assert_eq!(p["threads"], threads, "{}", p["name"]);
        }
    }
}

/// A run whose kernel refuses the counters (here: turned off with OVERHEAD_COUNTERS=off, as a kernel with
/// perf_event_paranoid 3 would refuse them) completes, its points carry no counts and say why; where the
/// kernel allows them, the same point carries them (docs/METHOD.md §18).
#[test]
fn a_run_without_kernel_counters_completes_and_says_why() {
    let count = |off: bool| {
        let dir = tempfile::tempdir().unwrap();
        let mut command = overhead();
        if off {
            command.env("OVERHEAD_COUNTERS", "off");
        }
        command.args(["run", "--quick", "--only", "sched.switch", "--runtime", "os", "--no-history", "--out"]);
        command.arg(dir.path()).assert().success();
        let record = read_json(&dir.path().join("results.json"));
        record["overhead"]["points"].as_array().unwrap().clone()
    };
    let off = count(true);
    assert!(!off.is_empty());
    for p in &off {
        assert!(p["extra"].get("cs_per_op").is_none(), "{}", p["name"]);
        let notes: Vec<&str> = p["notes"].as_array().unwrap().iter().filter_map(|n| n.as_str()).collect();
        assert!(notes.iter().any(|n| n.contains("no kernel counts") && n.contains("OVERHEAD_COUNTERS")), "{notes:?}");
    }
    if overhead::machine::ThreadCounters::perf_absent().is_none() {
        let on = count(false);
        for p in &on {
            let cs = p["extra"]["cs_per_op"].as_f64().unwrap_or_else(|| panic!("{} has no counts", p["name"]));
            // A switch through a futex blocks the measuring thread once a switch.
            if p["name"].as_str().unwrap().contains("mechanism:futex") {
                assert!((0.9..=1.1).contains(&cs), "{}: {cs} context switches per switch", p["name"]);
            }
        }
        assert!(on.iter().any(|p| p["name"].as_str().unwrap().contains("mechanism:futex")));
    }
}

/// `overhead crosscheck` with one peer that stands in for lmbench's `lat_syscall` (a script printing its line)
/// and nothing else on the PATH: every round runs it and our `base.syscall`, the record holds both and the
/// verdict, and every other peer is listed as missing with what installs it.
#[test]
fn crosscheck_pairs_a_peer_with_our_point_and_lists_the_missing() {
    let bin = tempfile::tempdir().unwrap();
    let fake = bin.path().join("lat_syscall");
    std::fs::write(&fake, "#!/bin/sh\necho 'Simple syscall: 0.0001 microseconds' >&2\n").unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let out = tempfile::tempdir().unwrap();
    overhead()
        .env("PATH", bin.path())
        .env_remove("OVERHEAD_EPCC_SYNCBENCH")
        .args(["crosscheck", "--rounds", "2", "--out"])
        .arg(out.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("lmbench lat_syscall: Simple syscall"))
        .stdout(predicate::str::contains("cyclictest not found on the PATH — install: apt-get install rt-tests"));
    let record = read_json(&out.path().join("results.json"));
    let check = &record["overhead"]["crosscheck"];
    assert_eq!(check["rounds"], 2);
    let pair = &check["pairs"][0];
    assert_eq!(pair["point"], "base.syscall/runtime:os");
    assert_eq!(pair["rounds"].as_array().unwrap().len(), 2);
    // 0.1 ns is no system call: ours is hundreds of times that, and the verdict says they differ.
    assert_eq!(pair["verdict"], "differs", "{pair}");
    assert!(check["missing"].as_array().unwrap().len() >= 8, "{check}");
}

#[test]
fn crosscheck_refuses_bad_input_by_name() {
    overhead().args(["crosscheck", "--rounds", "1"]).assert().code(2).stderr(predicate::str::contains("--rounds 1"));
    overhead()
        .args(["crosscheck", "--crossbeam", "/nonexistent/crossbeam-channel"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--crossbeam /nonexistent/crossbeam-channel"));
}

/// Every time in a record's points multiplied by `factor`: each point's summary, two-level estimate, batches
/// and process medians (the controls stay).
fn scaled_record(record: &serde_json::Value, factor: f64) -> serde_json::Value {
    let mut record = record.clone();
    let scale = |v: &mut serde_json::Value| {
        if let Some(x) = v.as_f64() {
            *v = serde_json::json!(x * factor);
        }
    };
    for p in record["overhead"]["points"].as_array_mut().unwrap() {
        for key in ["median", "ci_low", "ci_high", "mean", "min", "max", "p10", "p90", "mad"] {
            scale(&mut p["summary"][key]);
        }
        if p["two_level"].is_object() {
            for key in ["estimate", "ci_low", "ci_high"] {
                scale(&mut p["two_level"][key]);
            }
        }
        for s in p["samples_ns"].as_array_mut().unwrap() {
            scale(s);
        }
        for q in p["processes"].as_array_mut().into_iter().flatten() {
            scale(&mut q["median_ns"]);
        }
    }
    record
}

/// `compare --fail-on`: a record whose every time doubled fails the gate (exit 1, the families said on
/// stderr); the same comparison without the gate, or against itself, exits 0; a bad gate is refused (2).
#[test]
fn compare_fails_on_a_flagged_slowdown_only_when_asked() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/quick-run.json");
    let dir = tempfile::tempdir().unwrap();
    let slower = dir.path().join("slower.json");
    std::fs::write(&slower, scaled_record(&read_json(&fixture), 2.0).to_string()).unwrap();
    overhead()
        .args(["compare", "--no-history", "--fail-on", "slower:5%"])
        .arg(&fixture)
        .arg(&slower)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("fail: family").and(predicate::str::contains("slower than the baseline")));
    overhead().args(["compare", "--no-history"]).arg(&fixture).arg(&slower).assert().success();
    overhead().args(["compare", "--no-history", "--fail-on", "slower"]).arg(&fixture).arg(&fixture).assert().success();
    overhead()
        .args(["compare", "--fail-on", "faster"])
        .arg(&fixture)
        .arg(&slower)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--fail-on faster: expected slower"));
}
