//! End-to-end tests of the run level: the history every run adds to, `overhead history`, `compare`'s
//! sources (replicates, history, defaults), concurrent runs, a damaged history, and the machine-state
//! warning.

use std::path::{Path, PathBuf};

mod support;
use support::{overhead, read_json, text};

/// A tiny quick run into `out`: the loop and a call, one runtime.
fn tiny_run(data: &Path, out: &Path) -> std::process::Output {
    overhead(data)
        .args(["run", "--quick", "--only", "base.loop,base.call", "--runtime", "os", "--out"])
        .arg(out)
        .output()
        .unwrap()
}

#[test]
fn runs_fill_the_history_and_compare_names_its_source() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let runs: Vec<PathBuf> = (1..=5).map(|k| dir.path().join(format!("r{k}"))).collect();
    for (k, out) in runs.iter().enumerate() {
        let o = tiny_run(&data, out);
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert!(text(&o.stderr).contains(&format!("history: added as run {}", k + 1)), "{}", text(&o.stderr));
    }
    let record = |k: usize| read_json(&runs[k].join("results.json"));
    assert!(record(0)["overhead"]["between_runs"].is_null(), "one run is no repetition");
    let second = record(1);
    let between = &second["overhead"]["between_runs"];
    // A run the machine-state check flagged as shared is no repetition of this machine's level (the other
    // tests of this file run beside this one), so the second run may know none yet.
    let shared = |k: usize| record(k)["overhead"]["warnings"].to_string().contains("not quiet");
    if !shared(0) && !shared(1) {
        assert_eq!(between["runs"], 2, "{between}");
        assert!(between["points_pct"]["base.loop/runtime:os"].as_f64().is_some_and(|x| x > 0.0));
    }
    let speed = &second["overhead"]["speed"];
    assert!(speed["median_ns"].as_f64().is_some_and(|s| s > 0.0) && !speed["course"].as_array().unwrap().is_empty());
    assert!(second["overhead"]["machine_state"]["cpus"].as_array().is_some_and(|c| !c.is_empty()));
    let report = overhead(&data).args(["report"]).arg(runs[1].join("results.json")).output().unwrap();
    let report = text(&report.stdout);
    assert!(report.contains("between runs") && report.contains("reference loop"), "{report}");

    let listing = overhead(&data).arg("history").output().unwrap();
    let listing = text(&listing.stdout);
    // A run the machine-state check flagged as shared (other tests running beside this one) is left out of
    // the run level and counted instead.
    let level_known = listing.contains(" in 1 configuration");
    let shared_left_out = listing.contains("flagged as shared left out");
    assert!(listing.contains("5 run(s) of this machine") && (level_known || shared_left_out), "{listing}");

    let path = |k: usize| runs[k].join("results.json").display().to_string();
    let from_history = overhead(&data).args(["compare", &path(0), &path(2)]).output().unwrap();
    assert!(from_history.status.success(), "{}", text(&from_history.stderr));
    let out = text(&from_history.stdout);
    // The two records compared are left out of the history that judges them: at most 3 of its 5 runs remain
    // (fewer when the machine-state check flagged some as shared, which the source then says).
    let from_three = out.contains("run level: this machine's history: 3 runs");
    let shared = out.contains("flagged as shared left out") && !out.contains("history: 4 runs");
    assert!(from_three || shared, "{out}");
    assert!(out.contains("points flagged after the control"), "{out}");
    assert!(out.contains("by the reference loop"), "the speed ratio is a finding: {out}");
    let assumed = overhead(&data).args(["compare", "--no-history", &path(0), &path(2)]).output().unwrap();
    assert!(text(&assumed.stdout).contains("run level: assumed"), "{}", text(&assumed.stdout));
    let replicated = overhead(&data).args(["compare", &format!("{},{}", path(0), path(1)), &path(2)]).output().unwrap();
    let out = text(&replicated.stdout);
    assert!(out.contains("(baseline, 2 records)") && out.contains("run level: replicates: 2 records"), "{out}");
    overhead(&data).args(["compare", ",", &path(2)]).assert().code(2);

    let cleared = overhead(&data).args(["history", "--clear"]).output().unwrap();
    assert!(text(&cleared.stdout).contains("removed 5 run(s)"), "{}", text(&cleared.stdout));
}

#[test]
fn concurrent_runs_both_reach_the_history() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let first = {
        let (data, a) = (data.clone(), a.clone());
        std::thread::spawn(move || tiny_run(&data, &a))
    };
    let second = tiny_run(&data, &b);
    let first = first.join().unwrap();
    assert!(first.status.success() && second.status.success(), "{}{}", text(&first.stderr), text(&second.stderr));
    let listing = text(&overhead(&data).arg("history").output().unwrap().stdout);
    assert!(listing.contains("2 run(s) of this machine"), "{listing}");
    assert!(listing.contains("a/results.json") && listing.contains("b/results.json"), "{listing}");
}

#[test]
fn a_damaged_history_is_moved_aside_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(data.join("overhead")).unwrap();
    std::fs::write(data.join("overhead/history.sqlite"), "not a database, not at all".repeat(300)).unwrap();
    let o = tiny_run(&data, &dir.path().join("r"));
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("moved to") && text(&o.stderr).contains("history: added as run 1"),
        "{}",
        text(&o.stderr)
    );
    let kept = std::fs::read_dir(data.join("overhead")).unwrap().filter_map(|e| e.ok());
    assert!(kept.into_iter().any(|e| e.file_name().to_string_lossy().contains("damaged")));
}

#[test]
fn no_history_leaves_the_history_alone() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    overhead(&data)
        .args(["run", "--quick", "--only", "base.loop", "--runtime", "os", "--no-history", "--out"])
        .arg(dir.path().join("r"))
        .assert()
        .success();
    assert!(!data.join("overhead/history.sqlite").exists());
}

/// Keeps one CPU busy from another process's point of view (a thread of this test process, pinned) until
/// dropped.
struct BusyCpu {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl BusyCpu {
    fn on(cpu: usize) -> BusyCpu {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            // SAFETY: a zeroed cpu_set_t is an empty set; CPU_SET writes one bit inside it, and
            // sched_setaffinity reads the set it is given for the calling thread (pid 0).
            unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                libc::CPU_SET(cpu, &mut set);
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
            }
            let mut x = 0u64;
            while !flag.load(std::sync::atomic::Ordering::Relaxed) {
                x = std::hint::black_box(x.wrapping_add(1));
            }
        });
        BusyCpu { stop, thread: Some(thread) }
    }
}

impl Drop for BusyCpu {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The CPUs this process may run on.
fn allowed_cpus() -> Vec<usize> {
    // SAFETY: sched_getaffinity writes the calling thread's mask into the zeroed set it is given.
    let set = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set);
        set
    };
    // SAFETY: CPU_ISSET reads one bit of the set, within its size.
    (0..libc::CPU_SETSIZE as usize).filter(|&c| unsafe { libc::CPU_ISSET(c, &set) }).collect()
}

#[test]
fn a_busy_cpu_is_named_with_its_share() {
    let cpu = *allowed_cpus().last().expect("at least one CPU");
    let dir = tempfile::tempdir().unwrap();
    let busy = BusyCpu::on(cpu);
    let o = overhead(&dir.path().join("data"))
        .args(["run", "--quick", "--only", "base.loop,base.call", "--runtime", "os", "--no-history", "--cpus"])
        .arg(cpu.to_string())
        .arg("--out")
        .arg(dir.path().join("r"))
        .output()
        .unwrap();
    drop(busy);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("The machine was not quiet") && out.contains(&format!("CPU {cpu} (")), "{out}");
    let record = read_json(&dir.path().join("r/results.json"));
    let share = &record["overhead"]["machine_state"]["cpus"][0];
    assert_eq!(share["cpu"], cpu);
    assert!(share["other"].as_f64().unwrap() > 0.10, "{share}");
}
