//! Stamps the binary: the git commit it is built from (`OVERHEAD_GIT_COMMIT`, the run record's `tool.git_commit`)
//! and the versions of the crates under test as Cargo.lock resolved them (`OVERHEAD_CRATE_VERSIONS`,
//! `tool.crates`). Only the `overhead` binary crate has this script, so a new commit relinks the binary and
//! rebuilds nothing below it (docs/ARCHITECTURE.md "Crates"). It also embeds the external probes' sources
//! (`probes/go`, `probes/java/src`, `probes/mpi`; `OUT_DIR/probe_sources.rs`, which `main` installs), so that
//! editing a probe rebuilds the binary crate alone, not the crates that hold timed loops.

use std::path::PathBuf;

/// The crates whose primitives are measured (runtimes, channels, locks): the record names the version of each
/// that Cargo.lock resolved (`tool.crates`), so that two records of different builds say what changed.
const CRATES_UNDER_TEST: [&str; 13] = [
    "tokio",
    "rayon",
    "corosensei",
    "smol",
    // What smol's primitives are made of: its executor, its locks and semaphore, its notify.
    "async-executor",
    "async-lock",
    "event-listener",
    "crossbeam-channel",
    "flume",
    "kanal",
    "async-channel",
    "parking_lot",
    "spin",
];

/// Which files of `probes/` make each probe: the same rules the runtimes read the tree with.
#[path = "crates/runtime-external/src/probe_files.rs"]
mod probe_files;

fn main() {
    crate_versions();
    git_commit();
    probe_sources();
}

/// Writes `OUT_DIR/probe_sources.rs`: `PROBE_SOURCES`, an `overhead_runtime_external::probe_sources::ProbeSources`
/// with `include_str!` of every file each probe's build needs ([`probe_files::PROBES`]), in path order.
fn probe_sources() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let probes = root.join("probes");
    let mut fields = Vec::new();
    for ((dir, keep), field) in probe_files::PROBES.into_iter().zip(["go", "java", "mpi"]) {
        println!("cargo:rerun-if-changed={}", probes.join(dir).display());
        let mut list = String::new();
        for (relative, path) in probe_files::files_of(&probes, dir, keep) {
            println!("cargo:rerun-if-changed={}", path.display());
            list += &format!("        ({relative:?}, include_str!({:?})),\n", path.display().to_string());
        }
        fields.push(format!("    {field}: &[\n{list}    ],\n"));
    }
    let code = format!(
        "/// The external probes' build inputs, embedded (build.rs).\n\
         const PROBE_SOURCES: overhead::runtime_external::probe_sources::ProbeSources = \
         overhead::runtime_external::probe_sources::ProbeSources {{\n{}}};\n",
        fields.concat()
    );
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("probe_sources.rs");
    std::fs::write(out, code).expect("OUT_DIR is writable");
}

/// Sets `OVERHEAD_CRATE_VERSIONS` to `name=version` pairs, comma-separated, for [`CRATES_UNDER_TEST`] as Cargo.lock
/// resolved them (a crate locked at two versions is named twice). Without a readable Cargo.lock the variable is empty.
fn crate_versions() {
    #[derive(serde::Deserialize)]
    struct Lock {
        package: Vec<Package>,
    }
    #[derive(serde::Deserialize)]
    struct Package {
        name: String,
        version: String,
    }
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let lock_path = root.join("Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock_path.display());
    let lock: Option<Lock> = std::fs::read_to_string(&lock_path).ok().and_then(|text| toml::from_str(&text).ok());
    let pairs: Vec<String> = lock
        .map(|lock| lock.package)
        .unwrap_or_default()
        .into_iter()
        .filter(|p| CRATES_UNDER_TEST.contains(&p.name.as_str()))
        .map(|p| format!("{}={}", p.name, p.version))
        .collect();
    println!("cargo:rustc-env=OVERHEAD_CRATE_VERSIONS={}", pairs.join(","));
}

/// Sets `OVERHEAD_GIT_COMMIT` to `git describe --always --abbrev=12`, with `-dirty.HASH` when a tracked file
/// differs from `HEAD` (HASH: the first 12 hex digits of git's hash of `git diff HEAD`, so two builds of
/// different uncommitted changes, Cargo.lock's included, are two builds to the history, not one), without writing to the repository: `git describe --dirty` refreshes the index, so a build script
/// that runs it and watches the index reruns on every build. Dirtiness comes from `git status` with optional
/// locks off (it reads the index and never rewrites it). The script reruns when `HEAD` moves (its file, the
/// branch's loose ref and `packed-refs`, found with `git rev-parse --git-path`, which also holds in a worktree
/// where `.git` is a file) or when a tracked file or folder at the top of the tree changes.
fn git_commit() {
    let git = |args: &[&str]| -> Option<String> {
        let output = std::process::Command::new("git")
            .arg("--no-optional-locks")
            .args(args)
            .env("GIT_OPTIONAL_LOCKS", "0")
            .output()
            .ok()
            .filter(|o| o.status.success())?;
        String::from_utf8(output.stdout).ok().map(|s| s.trim_end().to_string())
    };
    let Some(commit) = git(&["describe", "--always", "--abbrev=12"]) else {
        // Not a git checkout (a source archive): nothing to record, nothing to watch.
        return;
    };
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_none_or(|s| !s.is_empty());
    let suffix =
        if dirty { format!("-dirty.{}", changes_hash().unwrap_or_else(|| "unknown".into())) } else { String::new() };
    println!("cargo:rustc-env=OVERHEAD_GIT_COMMIT={commit}{suffix}");
    let root = std::env::current_dir().expect("the build script has a working directory");
    // Only paths that exist: Cargo reruns a script on every build while a watched path is missing.
    let watch = |path: &str| {
        let path = root.join(path);
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    };
    let git_path = |name: &str| git(&["rev-parse", "--git-path", name]).map(|p| root.join(p));
    let mut refs = vec!["HEAD".to_string(), "packed-refs".to_string()];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        // A branch only in `packed-refs` has no file yet: its first commit creates one in this folder.
        let packed = git_path(&branch).is_some_and(|p| !p.exists());
        let folder = branch.rsplit_once('/').map_or(branch.as_str(), |(folder, _)| folder).to_string();
        refs.push(if packed { folder } else { branch });
    }
    for name in &refs {
        if let Some(path) = git_path(name) {
            watch(&path.to_string_lossy());
        }
    }
    for entry in git(&["ls-tree", "--name-only", "HEAD"]).unwrap_or_default().lines() {
        watch(entry);
    }
}

/// The first 12 hex digits of git's object hash of `git diff HEAD --binary`: what the uncommitted changes to
/// tracked files are, as git itself hashes content (no hashing crate in the build script).
fn changes_hash() -> Option<String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let diff = Command::new("git")
        .args(["--no-optional-locks", "diff", "HEAD", "--binary"])
        .env("GIT_OPTIONAL_LOCKS", "0")
        .output()
        .ok()
        .filter(|o| o.status.success())?
        .stdout;
    let mut hasher = Command::new("git")
        .args(["hash-object", "--stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    hasher.stdin.take()?.write_all(&diff).ok()?;
    let out = hasher.wait_with_output().ok().filter(|o| o.status.success())?;
    Some(String::from_utf8(out.stdout).ok()?.trim().chars().take(12).collect())
}
