//! The `overhead` command; everything lives in the library. Only this file sees the build's stamp (build.rs:
//! the commit and the crates under test), so a new commit recompiles this file and relinks, nothing else.

use overhead_record::BuildStamp;

/// What this binary was built from.
const BUILD: BuildStamp = BuildStamp {
    name: env!("CARGO_PKG_NAME"),
    version: env!("CARGO_PKG_VERSION"),
    git_commit: option_env!("OVERHEAD_GIT_COMMIT"),
    crate_versions: env!("OVERHEAD_CRATE_VERSIONS"),
};

fn main() -> std::process::ExitCode {
    overhead::cli::main(&BUILD)
}
