//! Runs across hosts and the `mpi` runtime end to end (docs/ARCHITECTURE.md "Hosts and MPI"):
//! a missing launcher, the ranks' placement on one host, a rank killed mid-point, and, where network
//! namespaces can be made (root), two simulated hosts joined by a veth pair (`scripts/netns-hosts.sh`),
//! with an unreachable host among them. Where no MPI is installed the tests that need it say so and pass,
//! unless `OVERHEAD_REQUIRE_MPI` is set (`.ci/run` sets it after installing OpenMPI).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn overhead_path() -> PathBuf {
    assert_cmd::cargo::cargo_bin("overhead")
}

fn read_record(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("results.json")).unwrap();
    serde_json::from_str::<serde_json::Value>(&text).unwrap()["overhead"].clone()
}

/// One test of this file at a time: each starts MPI jobs (and one kills a rank it finds by its environment),
/// which must not meet another test's.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Whether an MPI launcher and compiler wrapper are here; when they are not and `OVERHEAD_REQUIRE_MPI` is
/// set, the test fails instead of passing with a message.
fn mpi_here(test: &str) -> bool {
    let found = ["mpirun", "mpicc"].iter().all(|p| Command::new(p).arg("--version").output().is_ok());
    if !found {
        assert!(
            std::env::var_os("OVERHEAD_REQUIRE_MPI").is_none(),
            "{test}: OVERHEAD_REQUIRE_MPI is set but MPI is missing"
        );
        eprintln!("{test}: no mpirun/mpicc here; not run");
    }
    found
}

/// `overhead run --quick --no-history` with `args`, into a fresh folder, with a fresh probe cache; its
/// record once it has finished (it must succeed: a failed cell never fails the run).
fn quick_run(args: &[&str], envs: &[(&str, &str)]) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(overhead_path());
    cmd.args(["run", "--quick", "--budget", "4", "--no-history", "--out"]).arg(dir.path()).args(args);
    cmd.env("OVERHEAD_PROBE_CACHE", probe_cache());
    cmd.envs(envs.iter().copied());
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    read_record(dir.path())
}

/// One probe cache for the tests of this file, so the shim is built once.
fn probe_cache() -> PathBuf {
    static CACHE: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    CACHE.get_or_init(|| tempfile::tempdir().unwrap()).path().to_path_buf()
}

fn points<'r>(rec: &'r serde_json::Value, experiment: &str) -> Vec<&'r serde_json::Value> {
    rec["points"].as_array().unwrap().iter().filter(|p| p["spec"]["experiment"] == experiment).collect()
}

fn skipped<'r>(rec: &'r serde_json::Value, experiment: &str) -> Vec<&'r serde_json::Value> {
    rec["skipped"].as_array().unwrap().iter().filter(|p| p["spec"]["experiment"] == experiment).collect()
}

/// No launcher: every cell of the mpi runtime is skipped with the reason, here and across hosts, and the
/// run still measures what needs no MPI. Needs no MPI installed.
#[test]
fn a_missing_launcher_costs_only_the_cells_that_need_it() {
    let _serial = one_at_a_time();
    let rec = quick_run(
        &["--only", "mpi.barrier,base.loop", "--runtime", "mpi,os", "--hosts", "hostA,hostB"],
        &[("OVERHEAD_MPIRUN", "/nonexistent/mpirun")],
    );
    let reasons: Vec<&str> = skipped(&rec, "mpi.barrier").iter().map(|s| s["reason"].as_str().unwrap()).collect();
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("runtime mpi is not available here: no MPI launcher")
                && r.contains("/nonexistent/mpirun")),
        "{reasons:?}"
    );
    assert!(!points(&rec, "base.loop").is_empty(), "the rest of the run is measured");
}

/// On one host: every rank pinned to its own CPU, the note saying where each ran.
#[test]
fn mpi_points_on_one_host_name_where_each_rank_ran() {
    let _serial = one_at_a_time();
    if !mpi_here("mpi_points_on_one_host") {
        return;
    }
    let rec = quick_run(&["--only", "mpi.pingpong,mpi.barrier", "--runtime", "mpi"], &[]);
    let measured: Vec<_> = points(&rec, "mpi.pingpong").into_iter().chain(points(&rec, "mpi.barrier")).collect();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cpus < 2 {
        assert!(measured.is_empty(), "one CPU: no two ranks on it");
        return;
    }
    assert!(!measured.is_empty(), "skipped: {}", rec["skipped"]);
    for p in measured {
        let spec_cpus: Vec<u64> = p["spec"]["cpus"].as_array().unwrap().iter().map(|c| c.as_u64().unwrap()).collect();
        assert_ne!(spec_cpus[0], spec_cpus[1], "{}", p["name"]);
        let notes = p["notes"].to_string();
        assert!(notes.contains("rank 0 on host") && notes.contains("rank 1 on host"), "{notes}");
        assert!(p["summary"]["median"].as_f64().unwrap() > 0.0);
    }
    let same_cpu = skipped(&rec, "mpi.pingpong");
    assert!(same_cpu.iter().all(|s| s["reason"].as_str().unwrap().contains("poll")), "{same_cpu:?}");
}

/// A rank killed in the middle of a point fails that point, with the launcher's message, and only it.
#[test]
fn a_rank_killed_mid_point_costs_only_its_point() {
    let _serial = one_at_a_time();
    if !mpi_here("a_rank_killed_mid_point") || std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut run = Command::new(overhead_path())
        .args(["run", "--quick", "--budget", "4", "--no-history", "--runtime", "mpi"])
        .args(["--only", "mpi.pingpong,mpi.barrier", "--out"])
        .arg(dir.path())
        .env("OVERHEAD_PROBE_CACHE", probe_cache())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let victim = wait_for_rank_one_of("mpi.pingpong", run.id(), Duration::from_secs(60));
    // SAFETY: kill(2) on a pid this test found a moment ago; at worst it has exited and the call fails.
    unsafe { libc::kill(victim.expect("no rank 1 of mpi.pingpong appeared") as i32, libc::SIGKILL) };
    assert!(run.wait().unwrap().success(), "a failed point never fails the run");
    let rec = read_record(dir.path());
    // Usually the launcher sees the rank die and fails the point at once; killed at an unlucky moment (inside
    // MPI's start or finalisation) the launcher can wait instead, and the watchdog times the point out. Either
    // way that point, and only it, is lost. The launcher names the dead rank, its signal, or (OpenMPI, when the
    // rank's death reaches it as an exit status) 137, which is 128 + SIGKILL.
    let lost: Vec<(String, String)> = skipped(&rec, "mpi.pingpong")
        .iter()
        .filter(|s| s["kind"] == "failed" || s["kind"] == "timed_out")
        .map(|s| (s["kind"].as_str().unwrap().to_string(), s["reason"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(lost.len(), 1, "{lost:?}");
    let (kind, reason) = &lost[0];
    let names_the_kill = reason.contains("rank 1") || reason.contains("signal 9") || reason.contains("status: 137");
    assert!(kind == "timed_out" || names_the_kill, "{lost:?}");
    assert!(!points(&rec, "mpi.barrier").is_empty(), "the next point is measured: {}", rec["skipped"]);
}

/// The pid of a process below `ancestor` running as rank 1 of a point of `experiment`, polled until `limit`.
fn wait_for_rank_one_of(experiment: &str, ancestor: u32, limit: Duration) -> Option<u32> {
    let start = Instant::now();
    while start.elapsed() < limit {
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
            let has = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).any(|w| w == needle);
            if has(&cmdline, experiment.as_bytes())
                && has(&cmdline, b"probe\0--job")
                && has(&environ, b"\0OMPI_COMM_WORLD_RANK=1\0")
                && descends_from(pid, ancestor)
            {
                return Some(pid);
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

/// A quick run of the mpi runtime with `args` (a shell fragment that may use `$OVERHEAD_HOSTS`) inside the
/// first of two hosts simulated by `scripts/netns-hosts.sh`, with its launcher arguments; its record. `None`
/// (and a line saying so) where network namespaces cannot be made here (the script's exit 77).
fn run_on_simulated_hosts(test: &str, args: &str) -> Option<serde_json::Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/netns-hosts.sh");
    let dir = tempfile::tempdir().unwrap();
    let inner = format!(
        "launcher=''; for a in $OVERHEAD_LAUNCHER_ARGS; do launcher=\"$launcher --launcher-arg=$a\"; done; \
         {exe} run --quick --no-history --runtime mpi --out {out} {args} $launcher",
        exe = overhead_path().display(),
        out = dir.path().display()
    );
    let out = Command::new("bash")
        .arg(&script)
        .args(["-n", "2", "--", "sh", "-c", &inner])
        .env("OVERHEAD_PROBE_CACHE", probe_cache())
        .output()
        .unwrap();
    if out.status.code() == Some(77) {
        eprintln!(
            "{test}: cannot make network namespaces here ({}); not run",
            String::from_utf8_lossy(&out.stderr).trim()
        );
        return None;
    }
    assert!(out.status.success(), "{test}: {}", String::from_utf8_lossy(&out.stderr));
    Some(read_record(dir.path()))
}

/// Whether `ancestor` is a parent, grandparent, … of `pid` (read from /proc/PID/stat).
fn descends_from(mut pid: u32, ancestor: u32) -> bool {
    for _ in 0..64 {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
        // The fields after the command name, which is in parentheses and may hold spaces: state, ppid, …
        let Some(parent) = stat.rsplit(')').next().and_then(|rest| rest.split_whitespace().nth(1)) else {
            return false;
        };
        match parent.parse::<u32>() {
            Ok(p) if p == ancestor => return true,
            Ok(p) if p > 1 => pid = p,
            _ => return false,
        }
    }
    false
}

/// Two hosts simulated by network namespaces (`scripts/netns-hosts.sh`): the other_host points are measured
/// with their ranks on the two hosts on different CPUs, and a third, unreachable host costs only the cells
/// that need it, with the launch agent's message. Passes with a message where namespaces cannot be made.
#[test]
fn two_simulated_hosts_measure_other_host_points() {
    let _serial = one_at_a_time();
    if !mpi_here("two_simulated_hosts") {
        return;
    }
    let Some(rec) = run_on_simulated_hosts(
        "two_simulated_hosts",
        "--budget 6 --only mpi.pingpong,mpi.barrier --hosts \"$OVERHEAD_HOSTS\"",
    ) else {
        return;
    };
    let across: Vec<_> = points(&rec, "mpi.pingpong")
        .into_iter()
        .chain(points(&rec, "mpi.barrier"))
        .filter(|p| p["spec"]["placement"] == "other_host")
        .collect();
    assert_eq!(across.len(), 2, "one ping-pong and one barrier across hosts: {}", rec["skipped"]);
    for p in across {
        let hosts = p["spec"]["hosts"].as_array().unwrap();
        assert_eq!(hosts.len(), 2, "{}", p["name"]);
        assert_ne!(hosts[0], hosts[1]);
        let cpus = p["spec"]["cpus"].as_array().unwrap();
        if std::thread::available_parallelism().map_or(1, |n| n.get()) >= 2 {
            assert_ne!(cpus[0], cpus[1], "the namespaces share this machine's CPUs: {}", p["name"]);
        }
        let notes = p["notes"].to_string();
        for host in hosts {
            assert!(notes.contains(host.as_str().unwrap()), "{notes}");
        }
    }
    // Loopback traffic only inside the namespaces: the script removed them.
    let listed = Command::new("ip").args(["netns", "list"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&listed.stdout).contains("ovh-"), "namespaces left behind");
}

/// A host that cannot be reached fails only the points that need it, with the launch agent's words.
#[test]
fn an_unreachable_host_costs_only_its_cells() {
    let _serial = one_at_a_time();
    if !mpi_here("an_unreachable_host") {
        return;
    }
    let Some(rec) = run_on_simulated_hosts(
        "an_unreachable_host",
        "--budget 4 --only mpi.barrier --hosts \"${OVERHEAD_HOSTS%%,*},nohost7\"",
    ) else {
        return;
    };
    let failed: Vec<&str> = skipped(&rec, "mpi.barrier")
        .iter()
        .filter(|s| s["spec"]["placement"] == "other_host")
        .map(|s| s["reason"].as_str().unwrap())
        .collect();
    assert_eq!(failed.len(), 1, "{}", rec["skipped"]);
    assert!(failed[0].contains("nohost7"), "the agent's message names the host: {failed:?}");
    let on_one_host = points(&rec, "mpi.barrier");
    if std::thread::available_parallelism().map_or(1, |n| n.get()) >= 2 {
        assert!(!on_one_host.is_empty(), "the one-host barrier is measured: {}", rec["skipped"]);
    }
}
