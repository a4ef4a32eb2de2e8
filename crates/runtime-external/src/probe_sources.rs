//! The external probes' sources (Go, Java, the MPI shim), which `external` and `mpi` build on first use
//! wherever the binary runs. The `overhead` binary embeds them (its build script) and installs them before
//! anything else ([`install`]), so that editing a probe rebuilds the binary crate only, not the runtimes and
//! experiments that hold timed loops. A process that did not install them (a test of this crate or another)
//! reads them from the source tree the crate was built from.

use std::path::Path;
use std::sync::OnceLock;

use super::probe_files::{files_of, PROBES};

/// One probe's build inputs: (path relative to its folder under `probes/`, contents).
pub type Sources = &'static [(&'static str, &'static str)];

/// The three probes' sources.
#[derive(Debug, Clone, Copy)]
pub struct ProbeSources {
    /// `probes/go`: `go.mod`, the non-test `.go` files and the assembly `.s` files.
    pub go: Sources,
    /// `probes/java/src`: every `.java` file.
    pub java: Sources,
    /// `probes/mpi`: the shim's C.
    pub mpi: Sources,
}

static INSTALLED: OnceLock<ProbeSources> = OnceLock::new();

/// Makes `sources` the process's probe sources; the first call wins (the binary's `main` makes it).
pub fn install(sources: ProbeSources) {
    let _ = INSTALLED.set(sources);
}

/// The process's probe sources: those installed, else the source tree's (read once).
///
/// Errors: none installed and no source tree beside the crate's build (a binary that forgot [`install`], run
/// away from its tree), said so that it reads after "cannot build the probe: ".
pub fn sources() -> Result<&'static ProbeSources, String> {
    if let Some(s) = INSTALLED.get() {
        return Ok(s);
    }
    static FROM_TREE: OnceLock<Option<ProbeSources>> = OnceLock::new();
    FROM_TREE.get_or_init(from_tree).as_ref().ok_or_else(|| {
        "the probes' sources are not in this binary (overhead_runtime_external::probe_sources::install was not \
         called) and no source tree is at hand"
            .to_string()
    })
}

/// The sources read from `probes/` of the tree this crate was built from, leaked for the process's lifetime.
fn from_tree() -> Option<ProbeSources> {
    let probes = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../probes");
    if !probes.is_dir() {
        return None;
    }
    let read = |dir: &str, keep: super::probe_files::Keep| -> Sources {
        let files: Vec<(&'static str, &'static str)> = files_of(&probes, dir, keep)
            .into_iter()
            .filter_map(|(relative, path)| {
                let text = std::fs::read_to_string(path).ok()?;
                Some((&*Box::leak(relative.into_boxed_str()), &*Box::leak(text.into_boxed_str())))
            })
            .collect();
        Box::leak(files.into_boxed_slice())
    };
    let [(go_dir, go), (java_dir, java), (mpi_dir, mpi)] = PROBES;
    Some(ProbeSources { go: read(go_dir, go), java: read(java_dir, java), mpi: read(mpi_dir, mpi) })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tree's sources hold each probe's files and nothing else.
    #[test]
    fn the_sources_come_from_the_tree_or_the_binary() {
        let s = sources().unwrap();
        assert!(s.go.iter().any(|(p, _)| *p == "go.mod") && s.go.iter().all(|(p, _)| !p.ends_with("_test.go")));
        assert!(s.java.iter().any(|(p, text)| p.ends_with("Main.java") && text.contains("class Main")));
        assert!(s.mpi.iter().all(|(p, _)| p.ends_with(".c")) && !s.mpi.is_empty());
    }
}
