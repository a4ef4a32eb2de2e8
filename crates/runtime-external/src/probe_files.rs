//! Which files of `probes/` make each external probe (std only: the `overhead` binary's build script includes
//! this file too, with `#[path]`, to embed the same files that the tests read from the tree).

use std::path::{Path, PathBuf};

/// Whether a file (its path relative to its probe's folder, with `/`) is one of the probe's build inputs.
pub type Keep = fn(&str) -> bool;

/// The folders under the workspace's `probes/` and the files of each that a probe's build needs: Go's
/// `go.mod`, non-test `.go` files and assembly `.s` files; every `.java` file under `java/src`; the MPI shim's
/// C (`mpi/*.c`, not its crosscheck).
pub const PROBES: [(&str, Keep); 3] = [
    ("go", |f| f == "go.mod" || f.ends_with(".s") || (f.ends_with(".go") && !f.ends_with("_test.go"))),
    ("java/src", |f| f.ends_with(".java")),
    ("mpi", |f| f.ends_with(".c") && !f.starts_with("crosscheck/")),
];

/// The files of `probes/<dir>` that `keep` selects, as (path relative to it with `/`, full path), in path order.
pub fn files_of(probes: &Path, dir: &str, keep: Keep) -> Vec<(String, PathBuf)> {
    let base = probes.join(dir);
    let mut files = Vec::new();
    collect_files(&base, &mut files);
    files.sort();
    files
        .into_iter()
        .filter_map(|file| {
            let relative = file.strip_prefix(&base).ok()?.to_string_lossy().replace('\\', "/");
            keep(&relative).then_some((relative, file))
        })
        .collect()
}

/// Every file under `dir`, recursively (nothing when it does not exist).
fn collect_files(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_files(&path, files);
        } else {
            files.push(path);
        }
    }
}
