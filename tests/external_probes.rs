//! The external-probe runtimes end to end: where Go or a JDK is installed (`.ci/run` installs Debian's),
//! a tiny run of each measures real points through its probe; where one is not, or is too old, every cell
//! of the runtime is a skipped cell that says why — never a gap, never a failure.

use std::path::Path;
use std::process::Command;

/// The binary, with its history in the test's own folder: a test never adds runs to the user's history.
fn overhead() -> assert_cmd::Command {
    let mut command = assert_cmd::Command::cargo_bin("overhead").unwrap();
    command.env("XDG_DATA_HOME", concat!(env!("CARGO_TARGET_TMPDIR"), "/external-probes-history"));
    command
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Whether `program args…` runs and succeeds here.
fn runs(program: &str, args: &[&str]) -> bool {
    Command::new(program).args(args).output().is_ok_and(|o| o.status.success())
}

/// The feature version of the `java` on PATH (or of JAVA_HOME's), as the JVM prints it.
fn java_feature() -> Option<u32> {
    let java = std::env::var_os("JAVA_HOME").map_or("java".into(), |h| Path::new(&h).join("bin/java"));
    let out = Command::new(java).arg("-version").output().ok()?;
    let banner = String::from_utf8_lossy(&out.stderr).into_owned();
    let quoted = banner.lines().next()?.split('"').nth(1)?.to_string();
    quoted.split(['.', '-', '+']).next()?.parse().ok()
}

/// A quick run of `runtime` narrowed to `only`, in a fresh folder with a fresh probe cache; its record's
/// `overhead` part.
fn quick_run(runtime: &str, only: &str, envs: &[(&str, &str)]) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let mut cmd = overhead();
    cmd.args(["run", "--quick", "--budget", "5", "--runtime", runtime, "--only", only, "--out"]).arg(dir.path());
    cmd.env("OVERHEAD_PROBE_CACHE", cache.path());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.assert().success();
    read_json(&dir.path().join("results.json"))["overhead"].clone()
}

/// Every point of `runtime` in `rec`, by name, with its median.
fn medians(rec: &serde_json::Value, runtime: &str) -> Vec<(String, f64)> {
    rec["points"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["spec"]["runtime"] == runtime)
        .map(|p| (p["name"].as_str().unwrap().to_string(), p["summary"]["median"].as_f64().unwrap()))
        .collect()
}

fn skipped_reasons(rec: &serde_json::Value, runtime: &str) -> Vec<String> {
    rec["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["spec"]["runtime"] == runtime)
        .map(|s| s["reason"].as_str().unwrap().to_string())
        .collect()
}

/// `runtime`'s `grain.sweep` point, checked for what the sweep always records: the decade table starting
/// at one task, a best task count among the counts tried, and shares of the tasks, where the runtime can
/// tell a task's CPU, adding up to 100%.
fn sweep_point<'r>(rec: &'r serde_json::Value, runtime: &str) -> &'r serde_json::Value {
    let point = rec["points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["spec"]["experiment"] == "grain.sweep" && p["spec"]["runtime"] == runtime)
        .unwrap_or_else(|| panic!("no grain.sweep point of {runtime}: {}", rec["skipped"]));
    let tables = &point["details"]["tables"];
    let decades = tables["sweep"]["rows"].as_array().unwrap();
    assert_eq!(decades[0][0], "1", "{runtime}: {decades:?}");
    let best = point["extra"]["best_tasks"].as_f64().unwrap();
    assert!(best >= 1.0, "{runtime}: best_tasks {best}");
    for row in tables["share"]["rows"].as_array().into_iter().flatten() {
        let total: f64 = row[1].as_array().unwrap().iter().filter_map(|c| c.as_f64()).sum();
        assert!((total - 100.0).abs() < 1e-6, "{runtime}: shares of {} add to {total}", row[0]);
    }
    point
}

#[test]
fn without_a_toolchain_every_cell_says_why() {
    let rec = quick_run("go", "base.loop,msg.switch", &[("OVERHEAD_GO", "/nonexistent/go")]);
    assert!(medians(&rec, "go").is_empty());
    let reasons = skipped_reasons(&rec, "go");
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(reasons.iter().all(|r| r.contains("not available here") && r.contains("no Go toolchain")), "{reasons:?}");
    let rec = quick_run("java-platform", "base.loop", &[("OVERHEAD_JAVA_HOME", "/nonexistent/jdk")]);
    assert!(skipped_reasons(&rec, "java-platform").iter().all(|r| r.contains("no Java runtime")));
}

#[test]
fn the_go_probe_measures_seed_004_and_seed_001_points() {
    if !runs("go", &["version"]) {
        assert!(std::env::var_os("OVERHEAD_REQUIRE_GO").is_none(), "OVERHEAD_REQUIRE_GO is set but no go was found");
        eprintln!("no Go toolchain: the go probe's run is skipped");
        return;
    }
    let rec = quick_run("go", "base.loop,msg.switch,spawn.create,sync.faa,grain.sweep,spawn.remote", &[]);
    let points = medians(&rec, "go");
    for name in [
        "base.loop/runtime:go",
        "msg.switch/runtime:go/impl:chan/placement:same_cpu",
        "spawn.create/runtime:go/kind:task",
    ] {
        let (_, median) =
            points.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("{name} missing: {points:?}"));
        assert!(median.is_finite() && *median > 0.0, "{name}: {median}");
    }
    assert!(points.iter().any(|(n, _)| n.starts_with("sync.faa/runtime:go/impl:hw/")), "{points:?}");
    // A switch costs more than a loop iteration: the probe's control subtraction kept the order of things.
    let of = |name: &str| points.iter().find(|(n, _)| n == name).unwrap().1;
    assert!(of("msg.switch/runtime:go/impl:chan/placement:same_cpu") > 10.0 * of("base.loop/runtime:go"));
    // The granularity sweep, driven from Rust over the probe's stdin: its tables, and every task counted
    // on a CPU of the point (Go reads the CPU with RDTSCP where the CPU has it).
    let sweep = sweep_point(&rec, "go");
    if std::env::consts::ARCH == "x86_64" {
        let shares = &sweep["details"]["tables"]["share"];
        let other_column = shares["columns"].as_array().unwrap().len() - 1;
        for row in shares["rows"].as_array().unwrap() {
            let other = row[1][other_column].as_f64().unwrap();
            assert!(other < 100.0, "every task of a go run counted as on another CPU: {shares}");
        }
    }
    // What the probe does not implement is a skipped cell with the reason, not a failure.
    let reasons = skipped_reasons(&rec, "go");
    assert!(reasons.iter().any(|r| r.contains("does not implement it yet")), "{reasons:?}");
    assert!(
        rec["skipped"].as_array().unwrap().iter().all(|s| s["kind"] == "skipped"),
        "nothing failed: {}",
        rec["skipped"]
    );
}

#[test]
fn the_java_probe_measures_platform_threads_and_says_what_virtual_threads_need() {
    let Some(feature) =
        java_feature().filter(|_| runs("javac", &["-version"]) || std::env::var_os("JAVA_HOME").is_some())
    else {
        assert!(
            std::env::var_os("OVERHEAD_REQUIRE_JAVA").is_none(),
            "OVERHEAD_REQUIRE_JAVA is set but no JDK was found"
        );
        eprintln!("no JDK: the java probe's run is skipped");
        return;
    };
    let rec = quick_run("java-platform,java-virtual", "base.call,msg.switch,grain.sweep", &[]);
    let platform = medians(&rec, "java-platform");
    assert_eq!(platform.len(), 3, "{platform:?} / {}", rec["skipped"]);
    let sweep = sweep_point(&rec, "java-platform");
    assert!(sweep["notes"].to_string().contains("cannot tell the CPU"), "{}", sweep["notes"]);
    assert!(sweep["details"]["tables"]["share"].is_null(), "a share table of unknown CPUs only");
    assert!(platform.iter().all(|(_, m)| m.is_finite() && *m > 0.0), "{platform:?}");
    let virtual_points = medians(&rec, "java-virtual");
    if feature >= 21 {
        assert_eq!(virtual_points.len(), 3, "{virtual_points:?} / {}", rec["skipped"]);
        sweep_point(&rec, "java-virtual");
    } else {
        assert!(virtual_points.is_empty());
        let reasons = skipped_reasons(&rec, "java-virtual");
        assert!(
            !reasons.is_empty() && reasons.iter().all(|r| r.contains("virtual threads need JDK ≥ 21")),
            "{reasons:?}"
        );
    }
}
